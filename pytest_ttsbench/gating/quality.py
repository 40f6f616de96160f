"""The gate's quality bounds: each floor, ceiling and tolerance judged on the buckets where it is in force.

The figure gated is a bucket's mean over its clips, per engine × suite × category. For each bucket
and measure the first layer with a matching bound wins (command line, configuration, case file),
and within a layer the bound with the most scope names: :func:`settle_quality` settles that once.

Tolerance compares with the same bucket of a baseline results file: for a measure where higher
is better, a drop of more than the tolerance fails; where lower is better, a rise; for neutral
ones (loudness, pace, peak), a move either way. Two rules keep it from judging what it cannot:

* Like with like. A bucket is judged only when its clips were measured alike on both sides: the
  distinct provenance strings of the measure's set (``quality_models[set]``: model, version,
  settings) among the bucket's clips must be the same. Otherwise the check is *not comparable*:
  it is no evidence about the voice, so it is ``not measured`` and fails the gate asking for a
  baseline measured with the current measures, unless ``--tts-allow-quality-model-change``
  (``quality.allow_model_change``) says to judge it anyway. A clip whose row has no provenance
  counts as :data:`UNRECORDED`, so recorded on one side only is a difference, and unrecorded on
  both sides is not (nothing shows the measurements differ).
* Never over nothing. A bucket without a figure beside judged ones is ``not judged`` (a new
  category the baseline has no figure for is normal), but a bound that applies to buckets of this
  run and judges none of them is ``not measured`` and says why (no figures in this run, no
  baseline figures, not comparable). A bound whose scope matches nothing in the run is not asked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from pytest_ttsbench.gating.bounds import (
    BREACHED,
    HELD,
    MATCHES_NOTHING,
    NOT_JUDGED,
    NOT_MEASURED,
    Judged,
    RunFacts,
    SuiteScope,
    closest,
)
from pytest_ttsbench.quality.bounds import Kind, QualityBound, no_figures_hint
from pytest_ttsbench.quality.measures import MEASURES, measure
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, record_dict, written_as

if TYPE_CHECKING:  # the summaries need numpy and scipy: loaded only when a gate is evaluated
    from pytest_ttsbench.quality.summary import MeasureSummary
    from pytest_ttsbench.run_model.results import ItemResult

Status = Literal["ok", "breached", "no figures", "no baseline figure", "not comparable"]
BY = ("engine", "suite", "category")
#: The provenance of a clip whose row records none (written by hand or by another tool).
UNRECORDED = "(not recorded)"
ALLOW_MODEL_CHANGE_OPTION = "--tts-allow-quality-model-change"


@dataclass(frozen=True)
class QualityLimit:
    """A quality bound as the gate judges it: its layer (``rank``, 0 the command line) and its rivals.

    It knows the buckets where it is the one in force (the first layer with a matching bound, then
    the most scope names): precedence settled once by :func:`settle_quality`, for every reader.
    """

    bound: QualityBound
    rank: int = 0
    #: every other bound of the run, with its layer
    rivals: tuple[tuple[QualityBound, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def kind(self) -> str:
        return f"quality {self.bound.kind}"

    @property
    def title(self) -> str:
        return f"quality {self.bound.describe()}"

    def describe(self) -> str:
        return self.bound.describe()

    def in_force(self, bucket: Sequence[str]) -> bool:
        """Whether this is the bound a bucket is judged against: it matches and no rival outranks it."""
        me = self.bound
        return me.matches(bucket) and not any(
            rival.kind == me.kind and rival.measure == me.measure and rival.matches(bucket)
            and (rank, -len(rival.scope)) < (self.rank, -len(me.scope))
            for rival, rank in self.rivals
        )  # fmt: skip

    def scope_problem(self, scopes: Mapping[str, SuiteScope], engines: Sequence[str]) -> str | None:
        """Why the scope (engine, suite or category names) matches nothing, or None."""
        names = set(engines) | set(scopes) | {c for s in scopes.values() for c in s.categories}
        missing = [name for name in self.bound.scope if name not in names]
        if not missing:
            return None
        return "; ".join(f"no engine, suite or category {name!r} ({closest(name, names)})" for name in missing)

    def judge(self, run: RunFacts) -> list[Judged]:
        """The bound on every bucket of the run where it is in force; one that judged none of them is
        ``not measured``, saying why (no figures, no baseline figures, measured by other models)."""
        problem = self.scope_problem(run.scopes, run.engine_profiles or run.engines)
        if problem is not None:
            reason = f"{self.title} matches nothing: {problem}"
            return [Judged(self.kind, self.describe(), self.bound.source, MATCHES_NOTHING, None, problem, (reason,))]
        every = run.once("quality buckets", lambda: _run_buckets(run.results))  # the same for every bound
        buckets = [bucket for bucket in every if self.in_force(bucket)]
        if not buckets:
            return []  # its scope matches nothing of this run: not asked of it
        comparable = self.bound.kind != "tolerance" or run.baseline is not None
        checks = [_quality_check(self.bound, bucket, run) for bucket in buckets] if comparable else []
        # Measured by other models than the baseline's: no evidence about the voice, so not measured, and
        # said once per measure set with what to do about it.
        unlike = tuple(change.reason() for change in model_changes(c for c in checks if not c.judged))
        judged = [self._judged(check, unlike) for check in checks]
        if not any(check.judged for check in checks):
            why = _nothing_judged(self.bound, buckets, checks, run)
            reason = f"quality: {self.describe()} {why}"
            judged.append(Judged(self.kind, self.bound.written, self.bound.source, NOT_MEASURED, None, why, (reason,)))
        return judged

    def _judged(self, check: QualityCheck, unlike: tuple[str, ...]) -> Judged:
        status = _status(check)
        reasons = (f"quality: {check.describe()}",) if check.breached else unlike if status == NOT_MEASURED else ()
        name = f"{check.suite}/{check.category}/{check.measure}={check.limit:g}"
        detail = "" if check.judged else check.status
        return Judged(self.kind, name, check.source, status, check.engine, detail, reasons, check)


def _status(check: QualityCheck) -> str:  # the check's own words, as the judged list says them
    if check.judged:
        return BREACHED if check.breached else HELD
    return NOT_MEASURED if check.status == "not comparable" else NOT_JUDGED


def settle_quality(layers: Sequence[Sequence[QualityBound]]) -> list[QualityLimit]:
    """Every quality bound of the run, highest precedence first, each knowing its layer and rivals."""
    seen: set[int] = set()
    ranked: list[tuple[QualityBound, int]] = []
    for rank, layer in enumerate(layers):
        ranked += [(bound, rank) for bound in layer if id(bound) not in seen]
        seen |= {id(bound) for bound in layer}
    return [
        QualityLimit(bound, rank, tuple(other for other in ranked if other[0] is not bound)) for bound, rank in ranked
    ]


#: the keys of a quality check in the gate file, in their order there
_QUALITY_CHECK_LAYOUT = (
    "engine", "suite", "category", "measure", "kind", "limit", "mean", "n", "ci95", "baseline_mean", "source",
    "status", "breached", "models", "baseline_models", "models_differ",
)  # fmt: skip


@dataclass(frozen=True)
class QualityCheck:
    """One bucket's measure against one bound."""

    engine: str
    suite: str
    category: str
    measure: str
    kind: Kind
    limit: float
    #: the bucket's mean; None when none of its clips has a figure for the measure (not judged)
    figure: float | None = field(metadata=written_as("mean"))
    n: int
    ci95: tuple[float, float] | None
    source: str
    baseline: float | None = field(default=None, metadata=written_as("baseline_mean"))
    #: tolerance only: the distinct provenance strings of the measure's set among the bucket's clips
    models: tuple[str, ...] = ()
    baseline_models: tuple[str, ...] = ()
    #: judge the tolerance even when the two sides were measured differently (an option, not a figure)
    allow_model_change: bool = field(default=False, metadata=NOT_WRITTEN)

    @property
    def bucket(self) -> tuple[str, str, str]:
        return (self.engine, self.suite, self.category)

    @property
    def models_differ(self) -> bool:
        return self.kind == "tolerance" and self.baseline is not None and self.models != self.baseline_models

    @property
    def judged(self) -> bool:
        """Given a figure, floors and ceilings always; a tolerance when the baseline has one measured alike."""
        if self.figure is None:
            return False
        if self.kind != "tolerance":
            return True
        return self.baseline is not None and (self.allow_model_change or not self.models_differ)

    @property
    def status(self) -> Status:
        if self.figure is None:
            return "no figures"
        if not self.judged:
            return "no baseline figure" if self.baseline is None else "not comparable"
        return "breached" if self.breached else "ok"

    @property
    def breached(self) -> bool:
        if not self.judged or self.figure is None:
            return False
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
        if self.figure is None:
            return (
                f"{self.engine} {self.suite}/{self.category}: no {self.measure} figures "
                f"({self.kind} {self.limit:g} not judged)"
            )
        where = f"{self.engine} {self.suite}/{self.category}: {self.measure} mean {self.figure:.4g}"
        if self.kind == "floor":
            return f"{where} below floor {self.limit:g}"
        if self.kind == "ceiling":
            return f"{where} above ceiling {self.limit:g}"
        if self.baseline is None:
            return f"{where}, no baseline figure (tolerance {self.limit:g} not judged)"
        moved = f"{where} moved {self.figure - self.baseline:+.4g} from baseline {self.baseline:.4g}"
        if self.models_differ and not self.allow_model_change:
            return f"{moved}, not comparable: measured by other models (tolerance {self.limit:g} not judged)"
        return f"{moved} (tolerance {self.limit:g})"

    def to_dict(self) -> dict[str, Any]:
        return record_dict(
            self,
            computed={"status": self.status, "breached": self.breached, "models_differ": self.models_differ},
            order=_QUALITY_CHECK_LAYOUT,
        )


Bucket = tuple[str, ...]


def _bucket_models(rows: Sequence[ItemResult], name: str) -> dict[Bucket, tuple[str, ...]]:
    """Per bucket, the distinct provenance strings of ``name``'s set among the clips that have a figure."""
    from pytest_ttsbench.quality.summary import clip_rows

    measure_set = measure(name, "quality tolerance").measure_set
    found: dict[Bucket, set[str]] = {}
    for row in clip_rows(rows):
        value = row.quality.get(name)
        if value is None or not math.isfinite(value):
            continue  # not in the mean: its provenance does not matter
        bucket = (row.engine, row.suite, row.category)
        found.setdefault(bucket, set()).add(row.quality_models.get(measure_set) or UNRECORDED)
    return {bucket: tuple(sorted(models)) for bucket, models in found.items()}


@dataclass(frozen=True)
class _Baseline:
    """The baseline's buckets, renamed to the current engine when each side holds exactly one."""

    rows: tuple[ItemResult, ...]
    rename_to: str | None

    def _bucket(self, bucket: Bucket) -> Bucket:
        return (self.rename_to, *bucket[1:]) if self.rename_to is not None else bucket

    def means(self) -> dict[Bucket, dict[str, MeasureSummary]]:
        from pytest_ttsbench.quality.summary import summarize_quality

        return {self._bucket(key): figures for key, figures in summarize_quality(self.rows, BY).items()}

    def models(self, name: str) -> dict[Bucket, tuple[str, ...]]:
        return {self._bucket(key): models for key, models in _bucket_models(self.rows, name).items()}


def _baseline(baseline: Iterable[ItemResult], current_engines: set[str]) -> _Baseline:
    rows = tuple(baseline)
    engines = {row.engine for row in rows}
    single = len(engines) == 1 and len(current_engines) == 1
    return _Baseline(rows, next(iter(current_engines)) if single else None)


MEASURE_ORDER = {m.name: i for i, m in enumerate(MEASURES)}


def _quality_check(bound: QualityBound, bucket: Bucket, run: RunFacts) -> QualityCheck:
    """One bucket's measure against the bound: the run's mean and, for a tolerance, the baseline's."""
    from pytest_ttsbench.quality.summary import summarize_quality

    summary = run.once("quality summaries", lambda: summarize_quality(run.results, BY)).get(bucket, {})
    figures = summary.get(bound.measure)
    mean = figures.mean if figures is not None else None
    engine, suite, category = bucket
    check = QualityCheck(
        engine, suite, category, bound.measure, bound.kind, bound.value, mean,
        figures.n if figures is not None and mean is not None else 0,
        figures.ci95 if figures is not None and mean is not None else None,
        bound.source,
    )  # fmt: skip
    if bound.kind != "tolerance" or run.baseline is None:
        return check
    before = run.once("quality baseline", lambda: _baseline(run.baseline or (), {r.engine for r in run.results}))
    was = run.once("quality baseline means", before.means).get(bucket, {}).get(bound.measure)
    now = run.once(f"quality models {bound.measure}", lambda: _bucket_models(run.results, bound.measure))
    was_models = run.once(f"quality baseline models {bound.measure}", lambda: before.models(bound.measure))
    return replace(
        check,
        baseline=was.mean if was is not None else None,
        models=now.get(bucket, ()),
        baseline_models=was_models.get(bucket, ()),
        allow_model_change=run.allow_quality_model_change,
    )


def _run_buckets(rows: Iterable[ItemResult]) -> list[Bucket]:
    """Every engine × suite × category with a clip to measure in the run, measured or not.

    A failed clip counts: its bucket is listed without figures and can fail a bound. A row that
    replays recorded transcripts never had audio, so its bucket is not asked the quality bounds
    (as a bound scoped to an engine the run does not have is not).
    """
    # A row's engine makes clips unless it replays transcripts (see generation.py's provider).
    made = (row for row in rows if row.audio_sha256 is not None or row.generation.get("provider") != "transcripts")
    return sorted({(row.engine, row.suite, row.category) for row in made})


@dataclass(frozen=True)
class ModelChange:
    """A measure set measured by other models (or versions, or settings) in the baseline than in this run."""

    measure_set: str
    baseline_models: tuple[str, ...]
    models: tuple[str, ...]
    measures: tuple[str, ...]
    buckets: int
    judged: bool

    def describe(self) -> str:
        def named(models: tuple[str, ...]) -> str:
            return " and ".join(repr(m) for m in models)

        return (
            f"{self.measure_set} figures measured by {named(self.baseline_models)} in the baseline, "
            f"by {named(self.models)} in this run ({', '.join(self.measures)}; {self.buckets} bucket(s))"
        )

    def reason(self) -> str:
        return (
            f"quality: tolerance not comparable: {self.describe()}, so a move is no evidence about the voice; "
            f"re-measure the baseline with this run's measures (run the baseline's voice again with --tts-quality "
            f"{self.measure_set} and gate against that run), or pass {ALLOW_MODEL_CHANGE_OPTION} "
            "(quality.allow_model_change: true) to judge them anyway"
        )


def model_changes(checks: Iterable[QualityCheck]) -> list[ModelChange]:
    """Tolerance checks whose two sides were measured differently, one entry per set and pair of provenances."""
    grouped: dict[tuple[str, tuple[str, ...], tuple[str, ...], bool], list[QualityCheck]] = {}
    for check in checks:
        if check.models_differ:
            measure_set = measure(check.measure, "quality tolerance").measure_set
            key = (measure_set, check.baseline_models, check.models, check.judged)
            grouped.setdefault(key, []).append(check)
    return [
        ModelChange(
            measure_set,
            before,
            now,
            tuple(dict.fromkeys(c.measure for c in found)),
            len({c.bucket for c in found}),
            judged,
        )
        for (measure_set, before, now, judged), found in grouped.items()
    ]


def _nothing_judged(
    bound: QualityBound, buckets: Sequence[Bucket], checks: Sequence[QualityCheck], run: RunFacts
) -> str:
    """Why a bound that applies to buckets of this run judged none of them, in one line."""
    why: list[str] = []
    statuses = [c.status for c in checks]
    if bound.kind == "tolerance" and run.baseline is None:
        why.append("no --tts-baseline was given")
    if statuses.count("no baseline figure"):
        why.append(f"the baseline has no {bound.measure} figures for {statuses.count('no baseline figure')} of them")
    if statuses.count("not comparable"):
        why.append(f"{statuses.count('not comparable')} were measured by other models than the baseline's")
    measured = run.once(f"quality models {bound.measure}", lambda: _bucket_models(run.results, bound.measure))
    without = len(set(buckets) - set(measured))
    if without:
        quality_sets = run.quality_sets
        why.append(
            f"this run has no {bound.measure} figures for {without} of them "
            f"({no_figures_hint(bound.measure, quality_sets)})"
        )
    verb = "compared" if bound.kind == "tolerance" else "checked"
    return f"{verb} nothing: it applies to {len(buckets)} bucket(s) of this run and judged none; " + "; ".join(why)
