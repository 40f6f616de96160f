"""Latency budgets: synthesis time per engine gated like accuracy, and compared with a baseline.

A budget names an engine, a figure and a limit::

    --tts-latency-budget openai=p95:800ms
    --tts-latency-budget openai=p50:300ms,first_audio_p95:250ms

Figures (per synthesis request, from :func:`~pytest_ttsbench.figures.workflow.workflow_figures`):
``p50`` and ``p95`` of the synthesis time, and ``first_audio_p50`` / ``first_audio_p95`` of the
time to the first audio byte, which only adapters that stream report. The same budgets can be
set in the configuration (``latency_budgets: {openai: {p95: 800ms}}``); the command line wins
per engine and figure. A budget whose figure was not measured (no request returned audio, or
the adapter does not stream) is ``not measured``, never a pass: like every bound that judged
nothing it fails the gate unless ``--tts-allow-unmeasured-bounds``.

Against a baseline, ``--tts-latency-compare-fail p95:20%`` fails the run when an engine's figure
is more than 20 % above the baseline's, as pytest-benchmark's ``--benchmark-compare-fail`` does
for benchmarks; a figure absent from either run is not compared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pytest_ttsbench.figures.workflow import Latency, WorkflowFigures, workflow_figures
from pytest_ttsbench.gating.bounds import BREACHED, HELD, Judged, RunFacts
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.checked_numbers import NON_NEGATIVE, POSITIVE, NumberError, checked_number, parse_number
from pytest_ttsbench.support.record_dicts import record_dict, written_as

METRICS = ("p50", "p95", "first_audio_p50", "first_audio_p95")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*$")


class LatencyError(ValueError):
    """A budget or tolerance that cannot be used; the message names where it came from."""


def parse_duration(text: str | float | int, where: str) -> float:
    """``"800ms"`` → 0.8, ``"1.5s"`` → 1.5, ``2`` → 2.0 (seconds)."""
    number = isinstance(text, (int, float)) and not isinstance(text, bool)
    match = None if number else _DURATION.match(str(text))
    if not number and match is None:
        raise LatencyError(f"{where}: expected a positive duration such as 800ms or 1.5s, got {text!r}")
    try:
        if match is None:
            return float(checked_number(text, f"{where}: a duration in seconds", POSITIVE))
        value = float(parse_number(match.group(1), f"{where}: a duration", POSITIVE))
    except NumberError as exc:
        raise LatencyError(str(exc)) from None
    return value / 1000 if match.group(2) == "ms" else value


def _metric(name: str, where: str) -> str:
    if name not in METRICS:
        raise LatencyError(f"{where}: unknown latency figure {name!r}; use one of {', '.join(METRICS)}")
    return name


@dataclass(frozen=True)
class LatencyBudget:
    """A gate bound: one engine's latency figure must stay within ``seconds``."""

    engine: str
    metric: str
    seconds: float
    kind: ClassVar[str] = "latency budget"

    def judge(self, run: RunFacts) -> list[Judged]:
        found = run.once("workflow figures", lambda: workflow_figures(run.results)).get(self.engine)
        value, n = figure(found, self.metric) if found is not None else (None, 0)
        check = LatencyCheck(self.engine, self.metric, self.seconds, value, n)
        status = NOT_MEASURED if check.status == NOT_MEASURED else BREACHED if check.breached else HELD
        reasons = (
            f"{self.engine}: synthesis latency {self.metric} {1000 * (value or 0):.0f} ms over budget "
            f"{1000 * self.seconds:.0f} ms ({n} request(s))",
        )
        name = f"{self.metric}<={1000 * self.seconds:.0f}ms"
        source = "--tts-latency-budget / latency_budgets"
        return [Judged(self.kind, name, source, status, self.engine, "", reasons if check.breached else (), check)]


def parse_budgets(values: Sequence[str]) -> list[LatencyBudget]:
    """``["openai=p95:800ms,p50:300ms"]`` → budgets; a bad entry names itself."""
    budgets: list[LatencyBudget] = []
    for entry in values:
        where = f"--tts-latency-budget {entry!r}"
        engine, sep, spec = entry.partition("=")
        if not sep or not engine.strip() or not spec.strip():
            raise LatencyError(f"{where}: expected ENGINE=FIGURE:DURATION, e.g. openai=p95:800ms")
        for part in spec.split(","):
            metric, colon, duration = part.partition(":")
            if not colon:
                raise LatencyError(f"{where}: expected FIGURE:DURATION, got {part!r}")
            budgets.append(
                LatencyBudget(engine.strip(), _metric(metric.strip(), where), parse_duration(duration, where))
            )
    return budgets


def config_budgets(raw: Mapping[str, Any], where: str = "configuration") -> list[LatencyBudget]:
    """The configuration's ``latency_budgets: {ENGINE: {FIGURE: DURATION}}``."""
    budgets: list[LatencyBudget] = []
    for engine, figures in raw.items():
        if not isinstance(figures, Mapping):
            raise LatencyError(f"{where}: field latency_budgets.{engine}: expected a mapping of figure to duration")
        for metric, duration in figures.items():
            field = f"{where}: field latency_budgets.{engine}.{metric}"
            budgets.append(LatencyBudget(str(engine), _metric(str(metric), field), parse_duration(duration, field)))
    return budgets


def merge_budgets(*layers: Sequence[LatencyBudget]) -> list[LatencyBudget]:
    """Budgets from several sources, highest precedence first: one per (engine, figure)."""
    chosen: dict[tuple[str, str], LatencyBudget] = {}
    for layer in layers:
        for budget in layer:
            chosen.setdefault((budget.engine, budget.metric), budget)
    return [chosen[key] for key in sorted(chosen)]


def figure(figures: WorkflowFigures, metric: str) -> tuple[float | None, int]:
    """(value in seconds, requests measured) of one figure."""
    latency: Latency = figures.first_byte if metric.startswith("first_audio") else figures.synthesis
    value = latency.p50 if metric.endswith("p50") else latency.p95
    return value, latency.n


NOT_MEASURED, WITHIN, OVER = "not measured", "within budget", "over budget"  # the same words as bounds.py


@dataclass(frozen=True)
class LatencyCheck:
    engine: str
    metric: str = field(metadata=written_as("figure"))
    budget: float = field(metadata=written_as("budget_seconds"))
    measured: float | None = field(metadata=written_as("measured_seconds"))
    n: int = field(metadata=written_as("requests"))

    @property
    def status(self) -> str:
        if self.measured is None or self.n == 0:
            return NOT_MEASURED
        return OVER if self.measured > self.budget else WITHIN

    @property
    def breached(self) -> bool:
        return self.status == OVER

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, computed={"status": self.status})


@dataclass(frozen=True)
class SlowdownRule:
    """``p95:20%``: fail when the figure exceeds the baseline's by more than ``tolerance`` (0.2)."""

    metric: str
    tolerance: float
    kind: ClassVar[str] = "latency slowdown"

    def judge(self, run: RunFacts) -> list[Judged]:
        """Each engine measured in both runs (the only engine of each side, when names differ)."""
        judged = []
        for change in compare_latency(run.baseline or (), run.results, [self]):
            reasons = (
                f"{change.engine}: synthesis latency {change.metric} {1000 * change.candidate:.0f} ms is "
                f"{change.ratio:.2f}x the baseline's {1000 * change.baseline:.0f} ms "
                f"(tolerance +{100 * change.tolerance:.0f}%)",
            )
            name = f"{change.metric}<=+{100 * change.tolerance:.0f}%"
            status = BREACHED if change.slower else HELD
            judged.append(
                Judged(self.kind, name, "--tts-latency-compare-fail", status, change.engine, "",
                       reasons if change.slower else (), change)
            )  # fmt: skip
        return judged


def parse_compare_fail(values: Sequence[str]) -> list[SlowdownRule]:
    rules = []
    for entry in values:
        where = f"--tts-latency-compare-fail {entry!r}"
        metric, colon, amount = entry.partition(":")
        match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$", amount)
        if not colon or not match:
            raise LatencyError(f"{where}: expected FIGURE:PERCENT, e.g. p95:20%")
        percent = parse_number(match.group(1), f"{where}: a percentage", NON_NEGATIVE)
        rules.append(SlowdownRule(_metric(metric.strip(), where), percent / 100))
    return rules


#: the keys of a latency change in the gate file, in their order there
_LATENCY_CHANGE_LAYOUT = (
    "engine", "figure", "baseline_seconds", "candidate_seconds", "ratio", "tolerance", "slower_than_tolerated",
)  # fmt: skip


@dataclass(frozen=True)
class LatencyChange:
    engine: str
    metric: str = field(metadata=written_as("figure"))
    baseline: float = field(metadata=written_as("baseline_seconds"))
    candidate: float = field(metadata=written_as("candidate_seconds"))
    tolerance: float

    @property
    def ratio(self) -> float:
        return self.candidate / self.baseline if self.baseline > 0 else float("inf")

    @property
    def slower(self) -> bool:
        return self.ratio > 1 + self.tolerance

    def to_dict(self) -> dict[str, Any]:
        return record_dict(
            self,
            computed={"ratio": self.ratio, "slower_than_tolerated": self.slower},
            order=_LATENCY_CHANGE_LAYOUT,
        )


def compare_latency(
    baseline: Iterable[ItemResult], candidate: Iterable[ItemResult], rules: Sequence[SlowdownRule]
) -> list[LatencyChange]:
    """Each rule for each engine measured in both runs (the only engine of each side, when names differ)."""
    before, after = workflow_figures(baseline), workflow_figures(candidate)
    pairs = [(name, name) for name in sorted(before.keys() & after.keys())]
    if not pairs and len(before) == 1 and len(after) == 1:
        pairs = [(next(iter(before)), next(iter(after)))]
    changes = []
    for old, new in pairs:
        for rule in rules:
            was, _ = figure(before[old], rule.metric)
            now, _ = figure(after[new], rule.metric)
            if was is not None and now is not None:
                changes.append(LatencyChange(new, rule.metric, was, now, rule.tolerance))
    return changes
