"""Gates on quality measures, apart from accuracy: floors, ceilings and tolerance against a baseline.

A bound names a measure and, optionally, a scope: names that must each equal the engine, the
suite or the category of a bucket (``piper/dnsmos_ovrl=3.2``, ``en-numerals/years/
speaking_rate=9``). The figure gated is the bucket's mean over its clips, per engine × suite ×
category. Bounds come from three layers, highest precedence first: the command line
(``--tts-quality-floor``, ``--tts-quality-ceiling``, ``--tts-quality-tolerance``), the
configuration's ``quality`` section, and a case file's ``quality`` section (scoped to its
suite). For each bucket and measure the first layer with a matching bound wins, and within a
layer the bound with the most scope names.

Tolerance compares with the same bucket of a baseline results file: for a measure where higher
is better, a drop of more than the tolerance fails; where lower is better, a rise; for neutral
ones (loudness, pace, peak), a move either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pytest_ttsbench.quality.measures import QualityOptionError, measure

if TYPE_CHECKING:  # the summaries need numpy and scipy: loaded only when a gate is evaluated
    from pytest_ttsbench.quality.summary import MeasureSummary
    from pytest_ttsbench.results import ItemResult

Kind = Literal["floor", "ceiling", "tolerance"]
KINDS: tuple[Kind, ...] = ("floor", "ceiling", "tolerance")
#: The key of each kind in a configuration or case file's ``quality`` section.
SECTION_KEYS: dict[str, Kind] = {"floors": "floor", "ceilings": "ceiling", "tolerance": "tolerance"}
OPTION_NAMES: dict[Kind, str] = {
    "floor": "--tts-quality-floor",
    "ceiling": "--tts-quality-ceiling",
    "tolerance": "--tts-quality-tolerance",
}
BY = ("engine", "suite", "category")


@dataclass(frozen=True)
class QualityBound:
    """One floor, ceiling or tolerance on a measure, for the buckets its scope matches."""

    kind: Kind
    measure: str
    value: float
    scope: tuple[str, ...] = ()
    source: str = ""

    def matches(self, bucket: Sequence[str]) -> bool:
        return all(name in bucket for name in self.scope)


def _number(value: Any, where: str, kind: Kind) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QualityOptionError(f"{where}: a {kind} must be a number, got {value!r}")
    if kind == "tolerance" and value < 0:
        raise QualityOptionError(f"{where}: a tolerance must not be negative, got {value!r}")
    return float(value)


def parse_cli_bounds(values: Sequence[str], kind: Kind) -> list[QualityBound]:
    """``["dnsmos_ovrl=3.0", "piper/dnsmos_ovrl=3.2"]`` → bounds; a bad entry names the option and itself."""
    option = OPTION_NAMES[kind]
    bounds: list[QualityBound] = []
    for entry in values:
        name, sep, number = entry.partition("=")
        parts = [p.strip() for p in name.split("/")]
        if not sep or not all(parts):
            raise QualityOptionError(f"{option} {entry!r}: expected [SCOPE/...]MEASURE=VALUE")
        where = f"{option} {entry!r}"
        measure(parts[-1], where)
        try:
            value = float(number)
        except ValueError as exc:
            raise QualityOptionError(f"{where}: {number!r} is not a number") from exc
        bounds.append(QualityBound(kind, parts[-1], _number(value, where, kind), tuple(parts[:-1]), option))
    return bounds


def section_bounds(section: Any, where: str, scope: tuple[str, ...] = ()) -> list[QualityBound]:
    """Bounds from a ``quality`` section: ``{floors: {dnsmos_ovrl: 3, piper: {dnsmos_ovrl: 3.2}}, ...}``.

    Under ``floors``, ``ceilings`` and ``tolerance``, a key holding a number is a measure and a key
    holding a mapping is a scope (an engine, suite or category name, or several joined by ``/``).
    """
    if section is None:
        return []
    if not isinstance(section, Mapping):
        raise QualityOptionError(f"{where}: field quality must be a mapping")
    bounds: list[QualityBound] = []
    for key, kind in SECTION_KEYS.items():
        entries = section.get(key)
        if entries is None:
            continue
        if not isinstance(entries, Mapping):
            raise QualityOptionError(f"{where}: field quality.{key} must be a mapping of measure to number")
        bounds += _entries(entries, kind, f"{where}: field quality.{key}", scope)
    return bounds


def _entries(entries: Mapping[str, Any], kind: Kind, where: str, scope: tuple[str, ...]) -> list[QualityBound]:
    bounds: list[QualityBound] = []
    for key, value in entries.items():
        field_where = f"{where}.{key}"
        if isinstance(value, Mapping):
            inner = tuple(p for p in str(key).split("/") if p)
            bounds += _entries(value, kind, field_where, scope + inner)
            continue
        measure(str(key), field_where)
        bounds.append(QualityBound(kind, str(key), _number(value, field_where, kind), scope, where.split(":")[0]))
    return bounds


def _pick(
    bounds_by_layer: Sequence[Sequence[QualityBound]], kind: Kind, name: str, bucket: Sequence[str]
) -> QualityBound | None:
    for layer in bounds_by_layer:
        found = [b for b in layer if b.kind == kind and b.measure == name and b.matches(bucket)]
        if found:
            return max(found, key=lambda b: len(b.scope))
    return None


@dataclass(frozen=True)
class QualityCheck:
    """One bucket's measure against one bound."""

    engine: str
    suite: str
    category: str
    measure: str
    kind: Kind
    limit: float
    figure: float
    n: int
    ci95: tuple[float, float] | None
    source: str
    baseline: float | None = None

    @property
    def breached(self) -> bool:
        if self.kind == "floor":
            return self.figure < self.limit
        if self.kind == "ceiling":
            return self.figure > self.limit
        assert self.baseline is not None
        change = self.figure - self.baseline
        direction = measure(self.measure, "quality tolerance").direction
        if direction == "higher":
            return change < -self.limit
        if direction == "lower":
            return change > self.limit
        return abs(change) > self.limit

    def describe(self) -> str:
        where = f"{self.engine} {self.suite}/{self.category}: {self.measure} mean {self.figure:.4g}"
        if self.kind == "floor":
            return f"{where} below floor {self.limit:g}"
        if self.kind == "ceiling":
            return f"{where} above ceiling {self.limit:g}"
        was = self.baseline or 0.0
        return f"{where} moved {self.figure - was:+.4g} from baseline {was:.4g} (tolerance {self.limit:g})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "suite": self.suite,
            "category": self.category,
            "measure": self.measure,
            "kind": self.kind,
            "limit": self.limit,
            "mean": self.figure,
            "n": self.n,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "baseline_mean": self.baseline,
            "source": self.source,
            "breached": self.breached,
        }


def _baseline_means(
    baseline: Iterable[ItemResult], current_engines: set[str]
) -> dict[tuple[str, ...], dict[str, MeasureSummary]]:
    """The baseline's buckets, renamed to the current engine when each side holds exactly one."""
    from pytest_ttsbench.quality.summary import summarize_quality

    rows = list(baseline)
    engines = {row.engine for row in rows}
    summaries = summarize_quality(rows, BY)
    if len(engines) == 1 and len(current_engines) == 1:
        (now,) = current_engines
        return {(now, suite, category): figures for (_, suite, category), figures in summaries.items()}
    return summaries


def evaluate_quality(
    results: Iterable[ItemResult],
    bounds_by_layer: Sequence[Sequence[QualityBound]],
    baseline: Iterable[ItemResult] | None = None,
) -> list[QualityCheck]:
    """Every bucket × measure that has a bound and a figure, in table order."""
    from pytest_ttsbench.quality.summary import summarize_quality

    rows = list(results)
    if not any(bounds_by_layer):
        return []
    summaries = summarize_quality(rows, BY)
    before = _baseline_means(baseline, {r.engine for r in rows}) if baseline is not None else {}
    checks: list[QualityCheck] = []
    for bucket, figures in summaries.items():
        engine, suite, category = bucket
        for name, summary in figures.items():
            if summary.mean is None:
                continue
            for kind in KINDS:
                bound = _pick(bounds_by_layer, kind, name, bucket)
                if bound is None:
                    continue
                was = before.get(bucket, {}).get(name) if kind == "tolerance" else None
                if kind == "tolerance" and (was is None or was.mean is None):
                    continue
                checks.append(
                    QualityCheck(
                        engine,
                        suite,
                        category,
                        name,
                        kind,
                        bound.value,
                        summary.mean,
                        summary.n,
                        summary.ci95,
                        bound.source,
                        was.mean if was is not None else None,
                    )
                )
    return checks


def override_layers(
    config_section: Mapping[str, Any],
    where: str,
    floors: Sequence[str],
    ceilings: Sequence[str],
    tolerance: Sequence[str],
) -> list[list[QualityBound]]:
    """The command line's bounds, then the configuration's: the layers above every case file's own."""
    cli = parse_cli_bounds(floors, "floor") + parse_cli_bounds(ceilings, "ceiling")
    cli += parse_cli_bounds(tolerance, "tolerance")
    return [cli, section_bounds(config_section, where)]


def case_file_layer(sections: Mapping[str, Mapping[str, Any]]) -> list[QualityBound]:
    """Every suite's own ``quality`` section, each scoped to its suite (already validated when loaded)."""
    bounds: list[QualityBound] = []
    for suite, section in sorted(sections.items()):
        bounds += section_bounds(section, f"suite {suite}", (suite,))
    return bounds
