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
ones (loudness, pace, peak), a move either way. Two rules keep it from judging what it cannot:

* Like with like. A bucket is judged only when its clips were measured alike on both sides: the
  distinct provenance strings of the measure's set (``quality_models[set]``: model, version,
  settings) among the bucket's clips must be the same. Otherwise the check is *not comparable*:
  it is no evidence about the voice, and the gate fails asking for a baseline measured with the
  current measures, unless ``--tts-allow-quality-model-change`` (``quality.allow_model_change``)
  says to judge it anyway. A clip whose row has no provenance counts as :data:`UNRECORDED`, so
  recorded on one side only is a difference, and unrecorded on both sides is not (nothing shows
  the measurements differ).
* Never over nothing. A bucket the baseline has no figure for is shown as such (a new category is
  normal), but a tolerance bound that applies to buckets of this run and judges none of them
  fails the gate, saying why (no baseline figures, not comparable, no figures in this run).

Floors and ceilings never pass over nothing either. A bucket of this run that a bound applies to
but that has no figure for its measure (the measure's set was not chosen, or every clip failed
before it was measured) is listed as *no figures*, not judged; a bound of any kind that applies
to buckets of this run and judges none of them fails the gate (:func:`unjudged_bounds`). The
obvious case is refused before anything runs (:func:`unmeasured_bounds_error`): a bound that
surely applies to the run (no scope, or only the run's engines) on a measure whose set the run
does not take. A bound whose scope matches nothing in the run is not asked of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from pytest_ttsbench.gating.bounds import (
    BREACHED,
    HELD,
    NOT_JUDGED,
    NOT_MEASURED,
    Judged,
    RunFacts,
    SuiteScope,
    closest,
)
from pytest_ttsbench.quality.measures import MEASURES, QualityOptionError, measure
from pytest_ttsbench.support.checked_numbers import FINITE, NON_NEGATIVE, NumberError, checked_number, parse_number
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, record_dict, written_as

if TYPE_CHECKING:  # the summaries need numpy and scipy: loaded only when a gate is evaluated
    from pytest_ttsbench.quality.summary import MeasureSummary
    from pytest_ttsbench.run_model.results import ItemResult

Kind = Literal["floor", "ceiling", "tolerance"]
Status = Literal["ok", "breached", "no figures", "no baseline figure", "not comparable"]
KINDS: tuple[Kind, ...] = ("floor", "ceiling", "tolerance")
#: The key of each kind in a configuration or case file's ``quality`` section.
SECTION_KEYS: dict[str, Kind] = {"floors": "floor", "ceilings": "ceiling", "tolerance": "tolerance"}
OPTION_NAMES: dict[Kind, str] = {
    "floor": "--tts-quality-floor",
    "ceiling": "--tts-quality-ceiling",
    "tolerance": "--tts-quality-tolerance",
}
BY = ("engine", "suite", "category")
#: The provenance of a clip whose row records none (written by hand or by another tool).
UNRECORDED = "(not recorded)"
ALLOW_MODEL_CHANGE_OPTION = "--tts-allow-quality-model-change"


@dataclass(frozen=True)
class QualityBound:
    """One floor, ceiling or tolerance on a measure, for the buckets its scope matches: a gate bound.

    Once :func:`settle_quality` has run, ``rank`` is its layer (0 the command line) and ``rivals``
    every other bound, so it knows the buckets where it is the one in force (the first layer with a
    matching bound, then the most scope names): precedence settled once, for every reader.
    """

    kind: Kind
    measure: str
    value: float
    scope: tuple[str, ...] = ()
    source: str = ""
    rank: int = field(default=0, compare=False)
    rivals: tuple[QualityBound, ...] = field(default=(), compare=False, repr=False)

    def matches(self, bucket: Sequence[str]) -> bool:
        return all(name in bucket for name in self.scope)

    def describe(self) -> str:
        """``floor piper/dnsmos_ovrl=3.2 (--tts-quality-floor)``: the bound as written, and where."""
        where = f" ({self.source})" if self.source else ""
        return f"{self.kind} {self.written}{where}"

    @property
    def written(self) -> str:
        """``piper/dnsmos_ovrl=3.2``: scope, measure and value as the user wrote them."""
        return f"{'/'.join((*self.scope, self.measure))}={self.value:g}"

    @property
    def title(self) -> str:
        return f"quality {self.describe()}"

    def _precedence(self) -> tuple[int, int]:
        return (self.rank, -len(self.scope))

    def in_force(self, bucket: Sequence[str]) -> bool:
        """Whether this is the bound a bucket is judged against: it matches and no rival outranks it."""
        mine = self._precedence()
        return self.matches(bucket) and not any(
            rival.kind == self.kind
            and rival.measure == self.measure
            and rival.matches(bucket)
            and rival._precedence() < mine
            for rival in self.rivals
        )

    def scope_problem(self, scopes: Mapping[str, SuiteScope], engines: Sequence[str]) -> str | None:
        """Why the scope (engine, suite or category names) matches nothing, or None."""
        names = set(engines) | set(scopes) | {c for s in scopes.values() for c in s.categories}
        missing = [name for name in self.scope if name not in names]
        if not missing:
            return None
        return "; ".join(f"no engine, suite or category {name!r} ({closest(name, names)})" for name in missing)

    def judge(self, run: RunFacts) -> list[Judged]:
        """The bound on every bucket of the run where it is in force; one that judged none of them is
        ``not measured``, saying why (no figures, no baseline figures, measured by other models)."""
        buckets = [bucket for bucket in _run_buckets(run.results) if self.in_force(bucket)]
        if not buckets:
            return []  # its scope matches nothing of this run: not asked of it
        kind = f"quality {self.kind}"
        checks = [_quality_check(self, bucket, run) for bucket in buckets] if self._comparable(run) else []
        # Measured by other models than the baseline's: no evidence about the voice, so not measured, and
        # said once per measure set with what to do about it.
        unlike = tuple(change.reason() for change in model_changes(c for c in checks if not c.judged))
        judged = [
            Judged(kind, f"{c.suite}/{c.category}/{c.measure}={c.limit:g}", c.source, _status(c), c.engine,
                   "" if c.judged else c.status,
                   (f"quality: {c.describe()}",) if c.breached else unlike if _status(c) == NOT_MEASURED else (), c)
            for c in checks
        ]  # fmt: skip
        if not any(check.judged for check in checks):
            why = _nothing_judged(self, buckets, checks, run)
            reason = f"quality: {self.describe()} {why}"
            judged.append(Judged(kind, self.written, self.source, NOT_MEASURED, None, why, (reason,)))
        return judged

    def _comparable(self, run: RunFacts) -> bool:
        return self.kind != "tolerance" or run.baseline is not None


def _status(check: QualityCheck) -> str:
    if check.judged:
        return BREACHED if check.breached else HELD
    return NOT_MEASURED if check.status == "not comparable" else NOT_JUDGED


def settle_quality(layers: Sequence[Sequence[QualityBound]]) -> list[QualityBound]:
    """Every quality bound of the run, highest precedence first, each knowing its layer and rivals."""
    seen: set[int] = set()
    bounds: list[QualityBound] = []
    for rank, layer in enumerate(layers):
        bounds += [replace(b, rank=rank) for b in layer if id(b) not in seen]
        seen |= {id(b) for b in layer}
    return [replace(bound, rivals=tuple(b for b in bounds if b is not bound)) for bound in bounds]


def _number(value: Any, where: str, kind: Kind) -> float:
    """A bound's value: any finite number, and not negative for a tolerance (a move the wrong way)."""
    try:
        return float(checked_number(value, f"{where}: a {kind}", NON_NEGATIVE if kind == "tolerance" else FINITE))
    except NumberError as exc:
        raise QualityOptionError(str(exc)) from None


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
            value = parse_number(number.strip(), f"{where}: a {kind}")
        except NumberError as exc:
            raise QualityOptionError(str(exc)) from None
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


def evaluate_quality(
    results: Iterable[ItemResult],
    bounds_by_layer: Sequence[Sequence[QualityBound]],
    baseline: Iterable[ItemResult] | None = None,
    allow_model_change: bool = False,
) -> list[QualityCheck]:
    """Every bucket of the run × bounded measure, in table order, with or without a figure (the checks
    the settled bounds judge; see :meth:`QualityBound.judge`)."""
    rows = tuple(results)
    run = RunFacts(
        rows, rows, tuple(dict.fromkeys(r.engine for r in rows)),
        baseline=None if baseline is None else tuple(baseline),
        extra={"allow_quality_model_change": allow_model_change},
    )  # fmt: skip
    checks = [j.measured for b in settle_quality(bounds_by_layer) for j in b.judge(run) if j.measured is not None]
    return sorted(checks, key=lambda c: (c.bucket, MEASURE_ORDER[c.measure], KINDS.index(c.kind)))


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
        allow_model_change=bool(run.extra.get("allow_quality_model_change")),
    )


def _run_buckets(rows: Iterable[ItemResult]) -> list[Bucket]:
    """Every engine × suite × category with a clip to measure in the run, measured or not.

    A failed clip counts: its bucket is listed without figures and can fail a bound. A row that
    replays recorded transcripts never had audio, so its bucket is not asked the quality bounds
    (as a bound scoped to an engine the run does not have is not).
    """
    return sorted({(row.engine, row.suite, row.category) for row in rows if _could_be_measured(row)})


def _could_be_measured(row: ItemResult) -> bool:
    """Whether the row's engine makes clips (a transcripts replay does not; see generation.py's provider)."""
    return row.audio_sha256 is not None or row.generation.get("provider") != "transcripts"


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
        quality_sets = run.extra.get("quality_sets")
        why.append(
            f"this run has no {bound.measure} figures for {without} of them "
            f"({no_figures_hint(bound.measure, quality_sets)})"
        )
    verb = "compared" if bound.kind == "tolerance" else "checked"
    return f"{verb} nothing: it applies to {len(buckets)} bucket(s) of this run and judged none; " + "; ".join(why)


def no_figures_hint(name: str, quality_sets: Sequence[str] | None) -> str:
    """Why a run has no figures for ``name``, as far as the run's chosen measure sets tell."""
    measure_set = measure(name, "quality gate").measure_set
    if quality_sets is not None and measure_set in quality_sets:
        return "none of their clips has a figure: each failed before it was measured, or the measure does not apply"
    if quality_sets is not None:
        return f"--tts-quality {measure_set} measures them; this run measured {', '.join(quality_sets) or 'none'}"
    return f"--tts-quality {measure_set} measures them"


def unmeasured_bounds_error(
    bounds_by_layer: Sequence[Sequence[QualityBound]],
    quality_sets: Sequence[str],
    engines: Sequence[str],
    chosen_by: str,
    advice: str,
) -> str | None:
    """The refusal, before anything runs, of bounds that surely apply to the run but cannot be judged.

    A bound surely applies when its scope is empty or names only engines of this run (a suite or
    category scope may match nothing selected: that is left to :func:`unjudged_bounds` at the
    gate). It cannot be judged when its measure's set is not among ``quality_sets``. ``chosen_by``
    says where the sets came from; ``advice`` is said with the sets to add (``{sets}``).
    """
    missing: dict[str, list[QualityBound]] = {}
    for layer in bounds_by_layer:
        for bound in layer:
            measure_set = measure(bound.measure, "quality gate").measure_set
            if measure_set not in quality_sets and all(name in engines for name in bound.scope):
                missing.setdefault(measure_set, []).append(bound)
    if not missing:
        return None
    wanted = ",".join([*quality_sets, *missing])
    named = "; ".join(
        f"{', '.join(b.describe() for b in bounds)} needs the {measure_set} measure set"
        for measure_set, bounds in missing.items()
    )
    taken = ", ".join(quality_sets) or "none"
    return f"{named}, which this run does not take ({chosen_by}: {taken}); " + advice.format(sets=wanted)


def allow_model_change(option: bool, config_section: Mapping[str, Any]) -> bool:
    """``--tts-allow-quality-model-change``, or the configuration's ``quality.allow_model_change``."""
    return bool(option or config_section.get("allow_model_change"))


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
