"""The release gate: everything decided once, at the end of a session, from the recorded results.

:func:`evaluate_gate` is a pure function of the results, the gate's frozen :class:`GateConfig`
(floors, known gaps, baseline, stored snapshots: all read when the session starts) and what the
session :class:`Collected` besides results. It gathers the facts once (the repeat policy, known
gaps, the comparison with the baseline, snapshots), builds every bound the run is asked
(:func:`gate_bounds`) and judges each once: :attr:`GateOutcome.judged` is the verdict. It writes
nothing: the files a run may rewrite (``--tts-update-known-gaps``, ``--snapshot-update``) are
listed in the outcome and written by :func:`write_gate_updates`, the gate file by
:mod:`pytest_ttsbench.reporting.gate_file`. The plugin calls them on the controller (the only
process that holds every result under pytest-xdist) and :func:`final_status` to turn the outcome
into the exit status; the terminal, the gate file and ``ttsbench gate`` read the same judged list,
so they never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_ttsbench.gating.baseline import (
    Comparison,
    RegressionRule,
    attach_provenance,
    blame,
    compare,
    comparison_id,
)
from pytest_ttsbench.gating.bounds import (
    ALL_SUITES,
    BREACHED,
    HELD,
    NOT_MEASURED,
    Bound,
    Judged,
    RunFacts,
    ScopedBound,
    SuiteScope,
    gate_reasons,
    judge_all,
)
from pytest_ttsbench.gating.coverage import Coverage, EngineCoverage, ErrorRateLimit
from pytest_ttsbench.gating.latency import LatencyBudget, LatencyChange, LatencyCheck, SlowdownRule
from pytest_ttsbench.gating.snapshots import DRAW as SNAPSHOT_DRAW
from pytest_ttsbench.gating.snapshots import FIXED as SNAPSHOT_FIXED
from pytest_ttsbench.gating.snapshots import KNOWN_GAP as SNAPSHOT_KNOWN_GAP
from pytest_ttsbench.gating.snapshots import (
    SnapshotCheck,
    compare_snapshots,
    received_snapshots,
    wordings_vary,
)
from pytest_ttsbench.gating.thresholds import Floor, FloorSettings, is_slice, settle_floors
from pytest_ttsbench.run_model.clip_reuse import CacheUse, cache_use
from pytest_ttsbench.run_model.known_gaps import (
    Gap,
    KnownGaps,
    rows_on_known_gaps,
    unmatched_ids,
    updated_gaps,
    write_known_gaps,
)
from pytest_ttsbench.run_model.provenance import RunHeader
from pytest_ttsbench.run_model.repeats import RepeatedItem, aggregate, failure_is_a_draw, nondeterministic_engines
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.run_model.snapshot_files import update_snapshots

if TYPE_CHECKING:  # numpy and scipy load only when a run has quality figures to gate
    from pytest_ttsbench.gating.quality import QualityCheck
    from pytest_ttsbench.quality.bounds import QualityBound
    from pytest_ttsbench.quality.repeats import GenerationSpread


@dataclass(frozen=True)
class GateConfig:
    """What the gate is asked to enforce, fixed when the session starts."""

    engines: tuple[str, ...] = ()
    #: every configured engine profile, selected or not: names a quality bound's scope may use
    engine_profiles: tuple[str, ...] = ()
    repeats: int = 1
    repeat_policy: str = "all"
    #: the floors named on the command line, then in the configuration (case files' own: Collected)
    floors: tuple[Floor, ...] = ()
    #: ``min_n`` and ``floor_on`` as the command line, then the configuration, set them
    floor_settings: tuple[FloorSettings, ...] = ()
    known_gaps: Mapping[str, KnownGaps] = field(default_factory=dict)
    update_known_gaps: bool = False
    baseline: tuple[ItemResult, ...] | None = None
    baseline_path: Path | None = None
    fail_on_regression: bool = False
    regression_rule: RegressionRule = field(default_factory=RegressionRule)
    #: what the baseline run was made with; None for a baseline written before run headers
    baseline_header: RunHeader | None = None
    #: count verdict changes against the baseline as regressions even when the recognizer changed
    allow_asr_change: bool = False
    latency_budgets: tuple[LatencyBudget, ...] = ()
    latency_compare_fail: tuple[SlowdownRule, ...] = ()
    snapshot_mode: str = "off"
    update_snapshots: bool = False
    #: engine → (its snapshot file, the serialized transcripts stored there), for each gated engine
    snapshots: Mapping[str, tuple[Path, Mapping[str, str]]] = field(default_factory=dict)
    #: quality bounds, highest precedence first: command line, then configuration (case files: Collected)
    quality_layers: tuple[tuple[QualityBound, ...], ...] = ()
    #: judge quality tolerance even where the baseline's figures were measured by other models
    allow_quality_model_change: bool = False
    #: the quality measure sets the run took (None: not known, a run recorded without saying)
    quality_sets: tuple[str, ...] | None = None
    #: an engine that cannot run here skips its targets without failing the gate (--tts-allow-unavailable)
    allow_unavailable: bool = False
    #: bounds may go ``not measured`` (a deliberately partial run, missing shards) (--tts-allow-unmeasured-bounds)
    allow_unmeasured_bounds: bool = False
    #: the share of an engine's rows that may end in ``error`` (--tts-max-error-rate; default none)
    max_error_rate: float = 0.0
    #: recorded runs read though they do not match their manifest (--tts-allow-unverified), each named
    unverified: tuple[str, ...] = ()
    #: the judged bounds alone set the exit status; failed item tests are reported (--tts-gate-decides-exit)
    gate_decides_exit: bool = False


@dataclass
class Collected:
    """What a session saw besides results: collected suites and ids, and which tests failed how."""

    #: each collected suite's own ``thresholds`` (on the controller under xdist: sent by the workers);
    #: floors, plus the ``min_n`` and ``floor_on`` settings
    suite_thresholds: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: each collected suite's own ``quality`` section (floors, ceilings, tolerance on quality measures)
    suite_quality: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (engine, id) for every collected target key and item id, to find known-gap ids that match nothing
    ids: set[tuple[str, str]] = field(default_factory=set)
    #: (engine, target key) of tests that failed on their verdict, and a count of every other failure
    verdict_failures: set[tuple[str, str]] = field(default_factory=set)
    other_failures: int = 0
    #: this run's header (see provenance.py), to say what changed since the baseline
    header: RunHeader | None = None
    #: engine → selected test items (targets × repeats) after -k/-m; None until known
    selected: dict[str, int] | None = None
    #: engine → why it cannot run here, for engines that skipped their targets
    unavailable: dict[str, str] = field(default_factory=dict)
    #: cache entry kind → damaged entries the session found (each a miss); None: not known (a
    #: recorded run: the rows' own ``damaged`` marks are counted)
    cache_damaged: dict[str, int] | None = None
    #: suite → what its case file defines (categories, languages, facet values), selected or not
    suite_scopes: dict[str, SuiteScope] = field(default_factory=dict)
    #: suite → its case file, to name where a case file's floor comes from
    suite_sources: dict[str, str] = field(default_factory=dict)
    #: shards of a merged run that never ran (``ttsbench merge --allow-partial``)
    missing_shards: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GapUpdate:
    """A known-gaps file to rewrite after the run."""

    path: Path
    engine: str
    gaps: tuple[Gap, ...]


@dataclass
class GateOutcome:
    """What the gate found: :attr:`judged` (every bound's entries) decides; the rest is what it rests on."""

    items: list[ItemResult]  # one row per target and engine, verdict after the repeat policy
    repeats: int = 1
    repeat_policy: str = "all"
    repeated: list[RepeatedItem] = field(default_factory=list)
    #: every bound's judged entries (see bounds.py): the only input of the verdict and the exit status
    judged: list[Judged] = field(default_factory=list)
    #: bounds may go ``not measured`` (--tts-allow-unmeasured-bounds)
    allow_unmeasured: bool = False
    xfailed: list[str] = field(default_factory=list)  # "<key> [<engine>]" of known gaps still failing
    fixed_gaps: list[str] = field(default_factory=list)  # known gaps now correct (XPASS)
    unmatched_gaps: dict[str, list[str]] = field(default_factory=dict)  # engine → ids matching nothing
    updated_gap_files: list[str] = field(default_factory=list)
    comparison: Comparison | None = None
    baseline_path: str | None = None
    known_gap_ids: set[str] = field(default_factory=set)  # comparison ids that are known gaps
    blocking_regressions: list[str] = field(default_factory=list)
    regression_rule: RegressionRule = field(default_factory=RegressionRule)
    #: engine → (items whose identical requests gave different audio, items checked)
    nondeterministic: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: regressions not counted as the voice's because the recognizer changed (``--tts-allow-asr-change`` counts them)
    unattributed_regressions: list[str] = field(default_factory=list)
    excused: list[str] = field(default_factory=list)  # failed generations of items correct by the policy
    snapshot_mode: str = "off"
    snapshots: list[SnapshotCheck] = field(default_factory=list)
    missing_shards: list[str] = field(default_factory=list)  # shards of a merged run that never ran
    #: recorded runs read though they do not match their manifest (--tts-allow-unverified)
    unverified: list[str] = field(default_factory=list)
    exitstatus: int | None = None
    #: "<key> [<engine>]" of item tests that failed on their verdict (reported, never excused)
    failed_items: list[str] = field(default_factory=list)
    #: failed tests that are not an item's verdict: a case file that failed to collect, a test of the
    #: project's own, an XPASS under --tts-strict-xfail
    other_failures: int = 0
    #: the judged bounds alone set the exit status (--tts-gate-decides-exit, ``gate_decides_exit``)
    gate_decides_exit: bool = False
    #: files the run asked to rewrite; :func:`write_gate_updates` writes them
    gap_updates: list[GapUpdate] = field(default_factory=list)
    snapshot_updates: dict[Path, dict[str, str]] = field(default_factory=dict)
    #: quality figures apart from the bounds (see pytest_ttsbench/quality)
    quality_spreads: list[GenerationSpread] = field(default_factory=list)
    quality_models: dict[str, str] = field(default_factory=dict)
    quality_summary: list[dict[str, Any]] = field(default_factory=list)
    #: what the verdicts rest on: clips and transcripts reused from the cache or made now
    cache: CacheUse = field(default_factory=CacheUse)

    @property
    def reasons(self) -> list[str]:
        """Why the gate fails (empty: it passes), read off the judged list."""
        return gate_reasons(self.judged, self.allow_unmeasured)

    def _measured(self, kind: str) -> list[Any]:
        return [entry.measured for entry in self.judged if entry.kind.startswith(kind) and entry.measured is not None]

    @property
    def checks(self) -> list[dict[str, Any]]:
        """The floors' measured buckets in table order: categories, slices within a suite, slices across suites."""
        return sorted(self._measured("floor"), key=_table_order)

    @property
    def quality_checks(self) -> list[QualityCheck]:
        from pytest_ttsbench.gating.quality import MEASURE_ORDER
        from pytest_ttsbench.quality.bounds import KINDS

        checks: list[QualityCheck] = self._measured("quality")
        return sorted(checks, key=lambda c: (c.bucket, MEASURE_ORDER[c.measure], KINDS.index(c.kind)))

    @property
    def latency(self) -> list[LatencyCheck]:
        return self._measured(LatencyBudget.kind)

    @property
    def latency_changes(self) -> list[LatencyChange]:
        return self._measured(SlowdownRule.kind)

    @property
    def coverage(self) -> list[EngineCoverage]:
        return self._measured(Coverage.kind)

    @property
    def passed(self) -> bool:
        """The verdict the exit status gives, once it is known; before that, the gate's own."""
        if self.exitstatus is not None:
            return self.exitstatus == 0
        return not self.reasons

    @property
    def quality_breaches(self) -> list[QualityCheck]:
        return [check for check in self.quality_checks if check.breached]

    @property
    def breaches(self) -> list[dict[str, Any]]:
        return [check for check in self.checks if check["breached"]]

    @property
    def too_few(self) -> list[dict[str, Any]]:
        return [check for check in self.checks if check["status"] == "too few to gate"]

    @property
    def inconsistent(self) -> list[RepeatedItem]:
        return [item for item in self.repeated if not item.consistent]

    @property
    def flaky(self) -> list[RepeatedItem]:
        """Items whose generations disagree on correctness."""
        return [item for item in self.repeated if item.flaky]


def _table_order(check: Mapping[str, Any]) -> tuple[Any, ...]:
    """Categories (engine, suite, category), then slices within a suite, then slices across suites."""
    if check["suite"] == ALL_SUITES:
        return (2, check["category"], check["engine"])
    if is_slice(check["category"]):
        return (1, check["suite"], check["category"], check["engine"])
    return (0, check["engine"], check["suite"], check["category"])


def _label(row: ItemResult) -> str:
    return f"{row.key} [{row.engine}]"


def evaluate_gate(results: Sequence[ItemResult], config: GateConfig, collected: Collected) -> GateOutcome:
    """Gather the facts once (the repeat policy, known gaps, the baseline comparison, snapshots), then
    judge every bound of the run over them: the judged list is the outcome's verdict."""
    items, repeated = aggregate(results, config.repeat_policy)
    # Lists follow (engine, key), not arrival order, which differs between xdist workers and shards.
    repeated.sort(key=lambda item: (item.engine, item.key))
    repeats = max((row.repeat + 1 for row in results), default=1)
    outcome = GateOutcome(items=items, repeats=repeats, repeat_policy=config.repeat_policy, repeated=repeated)
    outcome.allow_unmeasured = config.allow_unmeasured_bounds
    outcome.gate_decides_exit = config.gate_decides_exit
    outcome.failed_items = sorted(f"{key} [{engine}]" for engine, key in collected.verdict_failures)
    outcome.other_failures = collected.other_failures
    outcome.nondeterministic = nondeterministic_engines(repeated)
    outcome.cache = cache_use(results, collected.cache_damaged)
    outcome.missing_shards = list(collected.missing_shards)
    outcome.unverified = list(config.unverified)
    for row in results:  # the one-generation probe: the same request sent twice (see pipeline)
        if row.audio_varies and row.engine not in outcome.nondeterministic:
            outcome.nondeterministic[row.engine] = (1, 1)
    _quality_figures(results, config, outcome)
    gap_rows = _known_gaps(results, items, config, collected, outcome)
    if config.baseline is not None:
        _compare_baseline(results, config, gap_rows, outcome, collected.header)
    if config.snapshot_mode != "off":
        outcome.snapshot_mode = config.snapshot_mode
        standing = _verdict_standing(items, config, gap_rows, outcome.comparison)
        for engine in config.engines:
            _check_engine_snapshots(results, config, engine, outcome, standing.get(engine, {}))
    failing = _items_under_policy(items, gap_rows, config, collected, outcome)
    outcome.judged = judge_all(
        gate_bounds(config, collected, outcome), _facts(results, config, collected, outcome, failing)
    )
    return outcome


def _facts(
    results: Sequence[ItemResult], config: GateConfig, collected: Collected, outcome: GateOutcome, failing: list[str]
) -> RunFacts:
    """What the bounds are judged over. An engine allowed to be unavailable here (--tts-allow-unavailable)
    is not asked its floors; an engine with rows the configuration did not name is."""
    engines = [e for e in config.engines if not (config.allow_unavailable and e in collected.unavailable)]
    engines += [row.engine for row in outcome.items if row.engine not in config.engines]
    return RunFacts(
        tuple(results),
        tuple(outcome.items),
        tuple(dict.fromkeys(engines)),
        scopes_of(results, collected),
        config.baseline,
        comparison=outcome.comparison,
        blocking_regressions=tuple(outcome.blocking_regressions),
        snapshots=tuple(check for check in outcome.snapshots if not check.updated),
        items_not_correct=tuple(failing),
        engine_profiles=config.engine_profiles or config.engines,
        quality_sets=config.quality_sets,
        allow_quality_model_change=config.allow_quality_model_change,
    )


def scoped_bounds(config: GateConfig, collected: Collected) -> list[ScopedBound]:
    """The bounds whose scope a case file must define: every floor and quality bound, precedence settled."""
    floors = settle_floors(config.floors, config.floor_settings, collected.suite_thresholds, collected.suite_sources)
    if not any(config.quality_layers) and not collected.suite_quality:
        return list(floors)
    from pytest_ttsbench.gating.quality import settle_quality
    from pytest_ttsbench.quality.bounds import case_file_layer

    return [*floors, *settle_quality([*config.quality_layers, case_file_layer(collected.suite_quality)])]


def gate_bounds(config: GateConfig, collected: Collected, outcome: GateOutcome) -> list[Bound]:
    """Every bound the run is asked, each once: the list :func:`evaluate_gate` judges."""
    bounds: list[Bound] = [*scoped_bounds(config, collected), *config.latency_budgets]
    if config.baseline is not None:
        bounds += config.latency_compare_fail
    bounds += [Coverage(config.engines, collected.selected, collected.unavailable, config.allow_unavailable)]
    bounds += [ErrorRateLimit(config.engines, config.max_error_rate)]
    if config.fail_on_regression and outcome.comparison is not None:
        bounds.append(config.regression_rule)
    if outcome.snapshot_mode == "strict":
        bounds.append(StrictSnapshots())
    if failure_is_a_draw(outcome.repeats, config.repeat_policy) and not config.gate_decides_exit:
        bounds.append(ItemsUnderPolicy(config.repeat_policy))
    bounds += [MissingShard(shard) for shard in collected.missing_shards]
    return bounds


@dataclass(frozen=True)
class StrictSnapshots:
    """A gate bound: each engine's transcripts match their snapshot (``--tts-snapshot strict``)."""

    kind: ClassVar[str] = "snapshots"

    def judge(self, run: RunFacts) -> list[Judged]:
        judged = []
        for check in run.snapshots:
            why = (
                f"{check.engine}: {len(check.changed)} transcript(s) differ from their snapshot and {len(check.new)} "
                f"have none in {check.path} (--snapshot-update records them)"
            )
            status, reasons = (BREACHED, (why,)) if check.failing else (HELD, ())
            judged.append(Judged(self.kind, check.path.name, "--tts-snapshot strict", status, check.engine,
                                 check.summary(), reasons, check))  # fmt: skip
        return judged


@dataclass(frozen=True)
class ItemsUnderPolicy:
    """A gate bound: every item judged over several generations is correct under the repeat policy.

    Failed generations read XFAIL (see collect.py), so items the policy judges not correct fail here
    (or, when the gate decides the exit, are reported)."""

    policy: str
    kind: ClassVar[str] = "items"

    def judge(self, run: RunFacts) -> list[Judged]:
        failing = run.items_not_correct
        why = f"{len(failing)} item(s) not correct under the {self.policy!r} repeat policy: " + ", ".join(failing)
        status, reasons = (BREACHED, (why,)) if failing else (HELD, ())
        name = f"correct under {self.policy!r}"
        return [Judged(self.kind, name, "--tts-repeat-policy", status, None, f"{len(failing)} not correct", reasons)]


@dataclass(frozen=True)
class MissingShard:
    """A gate bound: a shard of a merged run that never ran is not measured (``--allow-partial``)."""

    shard: str
    kind: ClassVar[str] = "shard"

    def judge(self, run: RunFacts) -> list[Judged]:
        detail = "this shard never ran: none of its targets was measured"
        return [Judged(self.kind, self.shard, "ttsbench merge --allow-partial", NOT_MEASURED, None, detail)]


def _items_under_policy(
    items: Sequence[ItemResult],
    gap_rows: Sequence[ItemResult],
    config: GateConfig,
    collected: Collected,
    outcome: GateOutcome,
) -> list[str]:
    """Items the repeat policy judges not correct (known gaps aside); with the gate deciding the exit
    they are reported as failed items. Failed generations of items the policy judges correct are excused."""
    if not failure_is_a_draw(outcome.repeats, config.repeat_policy):
        return []
    gap_keys = {(row.engine, row.key) for row in gap_rows}
    failing = [
        _label(row)
        for row in items
        if row.auto_evaluable and row.verdict != "correct" and (row.engine, row.key) not in gap_keys
    ]
    if config.gate_decides_exit:  # item failures are reported; the bounds set the status
        outcome.failed_items = sorted({*outcome.failed_items, *failing})
    verdict_of = {(row.engine, row.key): row.verdict for row in items}
    failures = collected.verdict_failures
    if collected.other_failures == 0 and failures and all(verdict_of.get(k) == "correct" for k in failures):
        outcome.excused = sorted(f"{key} [{engine}]" for engine, key in failures)
        outcome.failed_items = []
    return failing


def scopes_of(results: Sequence[ItemResult], collected: Collected) -> dict[str, SuiteScope]:
    """What the loaded case files define; a run recorded before scopes were kept: what its rows show."""
    if collected.suite_scopes:
        return dict(collected.suite_scopes)
    by_suite: dict[str, list[tuple[str, str, Mapping[str, Any]]]] = {}
    for row in results:
        by_suite.setdefault(row.suite, []).append((row.category, row.language, row.facets))
    for suite in collected.suite_thresholds:
        by_suite.setdefault(suite, [])
    return {suite: SuiteScope.of(entries) for suite, entries in by_suite.items()}


def _quality_figures(results: Sequence[ItemResult], config: GateConfig, outcome: GateOutcome) -> None:
    """Quality summaries and spreads across generations, apart from the bounds: every generation's clip counts."""
    for row in results:
        outcome.quality_models.update(row.quality_models)
    if not outcome.quality_models:
        return
    from pytest_ttsbench.quality.repeats import generation_spreads
    from pytest_ttsbench.quality.summary import summarize_quality

    breakdown = sorted({name for row in results for name in row.facets})
    for by in (["engine", "suite", "category"], *(["engine", "suite", f"facet:{f}"] for f in breakdown)):
        for key, figures in summarize_quality(results, by).items():
            group = dict(zip(by, key, strict=True))
            outcome.quality_summary.append({**group, "measures": {k: v.to_dict() for k, v in figures.items()}})
    if config.repeats > 1:
        outcome.quality_spreads = generation_spreads(results)


def _known_gaps(
    results: Sequence[ItemResult],
    items: Sequence[ItemResult],
    config: GateConfig,
    collected: Collected,
    outcome: GateOutcome,
) -> list[ItemResult]:
    """Sort gap targets into still failing and fixed; note ids matching nothing; plan rewrites."""
    gap_rows = rows_on_known_gaps(items, config.known_gaps)
    for row in gap_rows:
        (outcome.fixed_gaps if row.verdict == "correct" else outcome.xfailed).append(_label(row))
    outcome.fixed_gaps.sort()
    outcome.xfailed.sort()
    for engine, gaps in config.known_gaps.items():
        seen = [gap_id for name, gap_id in collected.ids if name == engine]
        seen += [gap_id for row in results if row.engine == engine for gap_id in (row.id, row.key)]
        missing = unmatched_ids(gaps, seen)
        if missing:
            outcome.unmatched_gaps[engine] = missing
    if config.update_known_gaps:
        _plan_gap_updates(items, config, outcome)
    return gap_rows


def _plan_gap_updates(items: Sequence[ItemResult], config: GateConfig, outcome: GateOutcome) -> None:
    """``--tts-update-known-gaps``: each engine's known-gaps file as this run's verdicts leave it."""
    for engine, gaps in config.known_gaps.items():
        verdicts = {(r.id, r.key): r.verdict for r in items if r.engine == engine and r.auto_evaluable}
        outcome.gap_updates.append(GapUpdate(gaps.path, engine, tuple(updated_gaps(gaps, verdicts))))
        outcome.updated_gap_files.append(str(gaps.path))


def _compare_baseline(
    results: Sequence[ItemResult],
    config: GateConfig,
    gap_rows: Sequence[ItemResult],
    outcome: GateOutcome,
    header: RunHeader | None,
) -> None:
    assert config.baseline is not None
    comparison = compare(config.baseline, results)
    attach_provenance(comparison, config.baseline_header, header)
    outcome.comparison = comparison
    outcome.baseline_path = str(config.baseline_path) if config.baseline_path else None
    found = blame(comparison, gap_rows, config.allow_asr_change)
    outcome.known_gap_ids = set(found.known_gap_ids)
    outcome.blocking_regressions = list(found.blocking)
    outcome.unattributed_regressions = list(found.unattributed)
    outcome.regression_rule = config.regression_rule


#: an item correct now, neither fixed nor a known gap (a draw, for a voice that is not reproducible)
_CORRECT = "correct"


def _verdict_standing(
    items: Sequence[ItemResult],
    config: GateConfig,
    gap_rows: Sequence[ItemResult],
    comparison: Comparison | None,
) -> dict[str, dict[str, str]]:
    """engine → item id → how its verdict stands against what came before, for the snapshots:
    ``known gap`` (a known gap still failing), ``fixed`` (every target correct under the repeat
    policy, one of them a known gap or judged not correct by the baseline under the same policy),
    else ``correct`` when every target is correct now."""
    gaps = {(row.engine, row.key) for row in gap_rows}
    single = comparison.single_engine if comparison is not None else True
    baseline_items = aggregate(config.baseline, config.repeat_policy)[0] if config.baseline is not None else []
    before = {comparison_id(row, single): row.verdict for row in baseline_items if row.auto_evaluable}
    targets: dict[tuple[str, str], list[ItemResult]] = {}
    for row in items:
        if row.auto_evaluable:
            targets.setdefault((row.engine, row.id), []).append(row)
    standing: dict[str, dict[str, str]] = {}
    for (engine, item_id), rows in targets.items():
        before_item = {r.key: before.get(comparison_id(r, single), "correct") for r in rows}
        state = _item_standing(rows, gaps, before_item)
        if state is not None:
            standing.setdefault(engine, {})[item_id] = state
    return standing


def _item_standing(rows: Sequence[ItemResult], gaps: set[tuple[str, str]], before: Mapping[str, str]) -> str | None:
    """One item's standing from its targets' verdicts now, the known gaps and the baseline's verdicts."""
    if any((r.engine, r.key) in gaps and r.verdict != "correct" for r in rows):
        return SNAPSHOT_KNOWN_GAP
    if not all(r.verdict == "correct" for r in rows):
        return None
    fixed = any((r.engine, r.key) in gaps or before[r.key] != "correct" for r in rows)
    return SNAPSHOT_FIXED if fixed else _CORRECT


def _check_engine_snapshots(
    results: Sequence[ItemResult], config: GateConfig, engine: str, outcome: GateOutcome, standing: Mapping[str, str]
) -> None:
    received = received_snapshots(results, engine)
    if not received or engine not in config.snapshots:
        return
    path, stored = config.snapshots[engine]
    # A voice shown not to be reproducible (its identical requests gave different audio, or it was
    # heard in several wordings): a new wording of a correct item is a draw. Else it is a change.
    varies = engine in outcome.nondeterministic or wordings_vary(received, stored)
    draw = {_CORRECT: SNAPSHOT_DRAW} if varies else {}
    judged = {name: draw.get(state, state) for name, state in standing.items() if draw.get(state, state) != _CORRECT}
    check = compare_snapshots(stored, path, engine, received, judged)
    if config.update_snapshots:
        outcome.snapshot_updates[path] = {name: snapshot.data for name, snapshot in received.items()}
        check.updated = True
    outcome.snapshots.append(check)


def write_gate_updates(outcome: GateOutcome) -> None:
    """Rewrite the files the gate planned to (``--tts-update-known-gaps``, ``--snapshot-update``)."""
    for update in outcome.gap_updates:
        write_known_gaps(update.path, update.engine, update.gaps)
    for path, received in outcome.snapshot_updates.items():
        update_snapshots(path, received)


def final_status(outcome: GateOutcome, status: int) -> int:
    """The session's exit status once the gate has spoken: pytest's model, each item a test.

    Only a clean (0) or failed (1) run is touched: a gate failure turns 0 into 1, and a run whose
    only failures are generations of items the repeat policy judges correct turns 1 into 0. With
    ``gate_decides_exit`` a run whose only failures are items' verdicts turns 1 into 0 too: the
    items are reported, the judged bounds alone decide. Any other failure (a case file that failed
    to collect, a test of the project's own), interrupted runs, usage and internal errors keep
    their own status.
    """
    if status not in (0, 1):
        return status
    # Only items' verdicts are ever left to the gate; any other failure fails the run.
    only_items = outcome.other_failures == 0
    left_to_gate = only_items and bool(outcome.excused or (outcome.gate_decides_exit and outcome.failed_items))
    failed = status == 1 and not left_to_gate
    return 1 if failed or outcome.reasons else 0
