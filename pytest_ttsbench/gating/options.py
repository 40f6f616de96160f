"""The release gate's options, declared once, validated once, for pytest and ``ttsbench gate`` alike.

:data:`GATE_OPTIONS` declares each option as an :class:`~pytest_ttsbench.support.option_specs.OptionSpec`
(its flag, how it parses, its default, its help); the plugin adds them to pytest's option group
and ``ttsbench gate`` to its argument parser with :func:`add_gate_options`, as pytest-benchmark
shares its ``add_*_options`` between its plugin and its CLI. Both read the values back into one
:class:`GateOptions` (:func:`read_gate_options`, by the same ``dest`` names) and build the gate's
:class:`~pytest_ttsbench.gating.gate.GateConfig` with the one :func:`build_gate_config` (the
plugin at session start, ``ttsbench gate`` from the run header), so a combination one front end
refuses the other refuses too, with the same message (a :class:`GateOptionError`: pytest's usage
error, ``ttsbench``'s exit 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.gating.baseline import DEFAULT_ALPHA, DEFAULT_MAX_RATE, RegressionRule
from pytest_ttsbench.gating.bounds import ALLOW_UNMEASURED_OPTION
from pytest_ttsbench.gating.known_gaps import KnownGaps, gaps_path, load_known_gaps
from pytest_ttsbench.gating.latency import config_budgets, merge_budgets, parse_budgets, parse_compare_fail
from pytest_ttsbench.gating.snapshots import MODES as SNAPSHOT_MODES
from pytest_ttsbench.gating.snapshots import read_snapshots, snapshot_path
from pytest_ttsbench.gating.thresholds import FLOOR_ON, config_layer, parse_cli_thresholds
from pytest_ttsbench.support.checked_numbers import ALPHA, AT_LEAST_ONE, COUNT, SHARE, number_option
from pytest_ttsbench.support.option_specs import OptionSpec, add_options

if TYPE_CHECKING:
    from pytest_ttsbench.config import Settings
    from pytest_ttsbench.gating.gate import GateConfig
    from pytest_ttsbench.gating.latency import LatencyBudget, SlowdownRule
    from pytest_ttsbench.gating.thresholds import FloorLayer
    from pytest_ttsbench.quality.gates import QualityBound
    from pytest_ttsbench.run_model.provenance import RunHeader
    from pytest_ttsbench.run_model.results import ItemResult


#: reading a baseline (or, in ``ttsbench gate``, the run) that does not match its manifest
ALLOW_UNVERIFIED_OPTION = "--tts-allow-unverified"


class GateOptionError(ValueError):
    """A gate option, or a combination of them, that cannot be used; the message names the option."""


def _quality_option(kind: str, example: str) -> OptionSpec:
    return OptionSpec(
        f"--tts-quality-{kind}",
        f"a {kind} on a quality measure's mean per engine/suite/category, e.g. {example}; SCOPE names an engine, "
        "suite or category; repeatable",
        action="append",
        metavar="[SCOPE/]MEASURE=VALUE",
    )


#: shared with ``ttsbench compare``, whose regression rule judges missing targets as the gate does
ALLOW_UNMEASURED_SPEC = OptionSpec(
    ALLOW_UNMEASURED_OPTION,
    "let bounds go 'not measured' (a floor on a category -k left out, a baseline target this run did not run, a "
    "latency figure never taken, a shard a partial merge lacks) instead of failing the gate; a bound that "
    "matches nothing is still refused",
    action="store_true",
)

GATE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-threshold",
        "minimum strict accuracy for a category (or 'default'), e.g. years=0.9, or for a slice FIELD=VALUE=FLOOR "
        "(a facet, language or suite), e.g. form=arabic_indic=0.8; repeatable; overrides the configuration and "
        "the case files; a name no loaded case file defines is refused",
        action="append",
        metavar="[SUITE/]CATEGORY=FLOOR",
    ),
    OptionSpec(
        "--tts-min-n",
        "a floor's bucket needs at least N targets to be gated, else it is 'too few' (default: 5)",
        type=number_option("--tts-min-n", AT_LEAST_ONE),
        metavar="N",
    ),
    OptionSpec(
        "--tts-floor-on",
        "compare floors with the point estimate or its Wilson 95%% lower bound (default: point)",
        choices=FLOOR_ON,
    ),
    ALLOW_UNMEASURED_SPEC,
    OptionSpec(
        "--tts-max-error-rate",
        "the share of an engine's targets that may end in 'error' before the gate fails (default: 0, none)",
        type=number_option("--tts-max-error-rate", SHARE),
        default=0.0,
        metavar="R",
    ),
    OptionSpec("--tts-strict-xfail", "a known gap that now passes (XPASS) fails the run", action="store_true"),
    OptionSpec(
        "--tts-update-known-gaps",
        "rewrite known_gaps/<engine>.yaml from this run: add new failures, drop fixed ones",
        action="store_true",
    ),
    OptionSpec(
        "--tts-allow-unavailable",
        "an engine that cannot run here (key variable unset, package missing) skips its targets instead of "
        "failing the gate; for local runs",
        action="store_true",
    ),
    OptionSpec("--tts-baseline", "compare with an earlier run's results file or folder", metavar="RESULTS"),
    OptionSpec(
        ALLOW_UNVERIFIED_OPTION,
        "read a --tts-baseline (and, in ttsbench gate, the run gated) whose files no longer match its checksum "
        "manifest, or that has none; recorded in the gate file and said on the terminal (default: refused)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-fail-on-regression",
        "fail the run when the regressions against the baseline (known gaps excepted) are significant or too "
        "many (see the next three options)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-regression-alpha",
        f"regressions fail the gate when McNemar's exact p is below P, overall or in a category "
        f"(default: {DEFAULT_ALPHA})",
        type=number_option("--tts-regression-alpha", ALPHA),
        default=DEFAULT_ALPHA,
        metavar="P",
    ),
    OptionSpec(
        "--tts-max-regressions",
        "regressions fail the gate when there are more than N (default: no count limit)",
        type=number_option("--tts-max-regressions", COUNT),
        metavar="N",
    ),
    OptionSpec(
        "--tts-max-regression-rate",
        f"regressions fail the gate when more than R of the paired targets regressed; 1 switches it off "
        f"(default: {DEFAULT_MAX_RATE})",
        type=number_option("--tts-max-regression-rate", SHARE),
        default=DEFAULT_MAX_RATE,
        metavar="R",
    ),
    OptionSpec(
        "--tts-allow-asr-change",
        "count verdict changes against the baseline as regressions even when the baseline used another ASR "
        "model or decoding mode (by default they are reported, not blamed on the voice)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-allow-quality-model-change",
        "judge --tts-quality-tolerance even where the baseline's figures were measured by another model, version "
        "or settings (by default such a check is not comparable and fails the gate)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-latency-budget",
        "fail when an engine's synthesis latency exceeds a budget, e.g. openai=p95:800ms; figures: p50, p95, "
        "first_audio_p50, first_audio_p95; repeatable; overrides latency_budgets in the configuration",
        action="append",
        metavar="ENGINE=FIGURE:DURATION",
    ),
    OptionSpec(
        "--tts-latency-compare-fail",
        "with --tts-baseline: fail when a latency figure is more than PERCENT above the baseline's, e.g. p95:20%%",
        action="append",
        metavar="FIGURE:PERCENT",
    ),
    OptionSpec(
        "--tts-snapshot",
        "compare transcripts with __tts_snapshots__/<engine>.ambr: report changes (default), fail on them "
        "(strict), or skip the comparison (off); --snapshot-update records them",
        choices=SNAPSHOT_MODES,
        default="report",
    ),
    _quality_option("floor", "dnsmos_ovrl=3.0"),
    _quality_option("ceiling", "clipping_ratio=0.001"),
    OptionSpec(
        "--tts-quality-tolerance",
        "fail when a quality measure's mean moves the wrong way by more than DELTA against --tts-baseline",
        action="append",
        metavar="[SCOPE/]MEASURE=DELTA",
    ),
)


def add_gate_options(add: Callable[..., Any]) -> None:
    """Declare every gate option with ``add``: a pytest option group's ``addoption``, or argparse's ``add_argument``."""
    add_options(add, GATE_OPTIONS)


@dataclass(frozen=True)
class GateOptions:
    """The gate options' values, read from either front end."""

    tts_threshold: Sequence[str] = ()
    tts_min_n: int | None = None
    tts_floor_on: str | None = None
    tts_allow_unmeasured_bounds: bool = False
    tts_max_error_rate: float = 0.0
    tts_strict_xfail: bool = False
    tts_update_known_gaps: bool = False
    tts_allow_unavailable: bool = False
    tts_baseline: str | None = None
    tts_allow_unverified: bool = False
    tts_fail_on_regression: bool = False
    tts_regression_alpha: float = DEFAULT_ALPHA
    tts_max_regressions: int | None = None
    tts_max_regression_rate: float = DEFAULT_MAX_RATE
    tts_allow_asr_change: bool = False
    tts_allow_quality_model_change: bool = False
    tts_latency_budget: Sequence[str] = ()
    tts_latency_compare_fail: Sequence[str] = ()
    tts_snapshot: str = "report"
    tts_quality_floor: Sequence[str] = ()
    tts_quality_ceiling: Sequence[str] = ()
    tts_quality_tolerance: Sequence[str] = ()
    #: syrupy's ``--snapshot-update`` (pytest only)
    update_snapshots: bool = False


def read_gate_options(get: Callable[[str], Any], update_snapshots: bool = False) -> GateOptions:
    """Every gate option's value by its ``dest`` (``config.getoption`` or ``getattr(namespace, ...)``)."""
    values = {option.dest: get(option.dest) for option in GATE_OPTIONS}
    for dest, value in list(values.items()):
        if isinstance(value, list):
            values[dest] = tuple(value)
    return GateOptions(**values, update_snapshots=update_snapshots)


def baseline_results_path(option: str) -> Path:
    """``--tts-baseline``: a run or saved-baseline folder, or its results file."""
    given = Path(option).resolve()
    return given / "results.jsonl" if given.is_dir() else given


@dataclass(frozen=True)
class MeasureSetsChoice:
    """Where the gated run's quality measure sets came from, to say so when a bound needs a set it lacks."""

    #: e.g. ``--tts-quality``, or ``its run header``
    chosen_by: str
    #: what to do, with ``{sets}`` for the sets to take
    advice: str


@dataclass(frozen=True)
class _Bounds:
    """The gate's bounds and known gaps, parsed from the options and the configuration."""

    floor_layers: tuple[FloorLayer, ...]
    latency_budgets: tuple[LatencyBudget, ...]
    latency_compare_fail: tuple[SlowdownRule, ...]
    quality_layers: tuple[tuple[QualityBound, ...], ...]
    known_gaps: dict[str, KnownGaps]


@dataclass(frozen=True)
class _Baseline:
    """The run a ``--tts-baseline`` names: its latest row per target, its file and its header."""

    rows: tuple[ItemResult, ...] | None = None
    path: Path | None = None
    header: RunHeader | None = None
    #: what the baseline's manifest says, when it was read with --tts-allow-unverified
    unverified: tuple[str, ...] = ()


def build_gate_config(
    settings: Settings,
    engines: Sequence[str],
    options: GateOptions,
    *,
    repeats: int,
    repeat_policy: str,
    contract: str | None,
    protocol: str | None = None,
    read_files: bool = True,
    quality_sets: tuple[str, ...] | None = None,
    sets_chosen: MeasureSetsChoice | None = None,
) -> GateConfig:
    """The gate's configuration from its options and the files they name: the one builder, for pytest
    and ``ttsbench gate`` alike, and the one place options are checked.

    ``contract``: the text contract the gated run sent (the baseline must have sent the same), None when
    unknown. ``read_files`` False (a pytest-xdist worker) skips the baseline and snapshots, which only the
    controller gates. ``protocol``: the run's (``--tts-protocol``, ``ttsbench gate --protocol``), under
    which the baseline's rows are judged too, whatever protocol the baseline run was scored under.
    ``quality_sets``: the measure sets the run takes (None: not known); with ``sets_chosen`` a bound that
    surely applies to the run but needs a set it does not take is refused now, not left for the gate.
    Raises :class:`GateOptionError` naming the option or file at fault.
    """
    from pytest_ttsbench.gating.gate import GateConfig
    from pytest_ttsbench.quality.gates import allow_model_change

    rule = _regression_rule(options)
    bounds = _parse_bounds(settings, engines, options)
    _require_baseline(options, bounds)
    if quality_sets is not None and sets_chosen is not None:
        _refuse_unmeasured(settings, engines, bounds, quality_sets, sets_chosen)
    baseline = _read_baseline(options, contract, protocol) if read_files else _Baseline()
    snapshots = _read_snapshot_files(settings, engines) if read_files and options.tts_snapshot != "off" else {}
    return GateConfig(
        engines=tuple(engines),
        engine_profiles=tuple(settings.engines),
        repeats=repeats,
        repeat_policy=repeat_policy,
        floor_layers=bounds.floor_layers,
        known_gaps=bounds.known_gaps,
        update_known_gaps=options.tts_update_known_gaps,
        baseline=baseline.rows,
        baseline_path=baseline.path,
        fail_on_regression=options.tts_fail_on_regression,
        regression_rule=rule,
        baseline_header=baseline.header,
        allow_asr_change=options.tts_allow_asr_change,
        latency_budgets=bounds.latency_budgets,
        latency_compare_fail=bounds.latency_compare_fail,
        snapshot_mode=options.tts_snapshot,
        update_snapshots=options.update_snapshots,
        snapshots=snapshots,
        quality_layers=bounds.quality_layers,
        allow_quality_model_change=allow_model_change(options.tts_allow_quality_model_change, settings.quality),
        allow_unavailable=options.tts_allow_unavailable,
        allow_unmeasured_bounds=options.tts_allow_unmeasured_bounds,
        max_error_rate=options.tts_max_error_rate,
        quality_sets=quality_sets,
        unverified=baseline.unverified,
    )


def _regression_rule(options: GateOptions) -> RegressionRule:
    """The regression rule's limits, each checked in its range as its option was parsed (number_option)."""
    alpha, rate, count = options.tts_regression_alpha, options.tts_max_regression_rate, options.tts_max_regressions
    return RegressionRule(alpha=alpha, max_count=count, max_rate=None if rate >= 1 else rate)


def _parse_bounds(settings: Settings, engines: Sequence[str], options: GateOptions) -> _Bounds:
    """Floors, latency budgets and slowdowns, quality bounds (options over the configuration) and known gaps."""
    from pytest_ttsbench.quality.gates import override_layers

    where = str(settings.source or "configuration")
    try:
        floor_layers = (
            parse_cli_thresholds(list(options.tts_threshold), options.tts_min_n, options.tts_floor_on),
            config_layer(settings.thresholds, where),
        )
        latency_budgets = merge_budgets(
            parse_budgets(list(options.tts_latency_budget)), config_budgets(settings.latency_budgets, where)
        )
        latency_compare_fail = parse_compare_fail(list(options.tts_latency_compare_fail))
        quality_layers = override_layers(
            settings.quality,
            where,
            list(options.tts_quality_floor),
            list(options.tts_quality_ceiling),
            list(options.tts_quality_tolerance),
        )
        known = {
            engine: load_known_gaps(gaps_path(settings.base_dir, settings.known_gaps_dir, engine), engine)
            for engine in engines
        }
    except ValueError as exc:  # ThresholdError, LatencyError, QualityOptionError, KnownGapsError
        raise GateOptionError(str(exc)) from exc
    return _Bounds(
        floor_layers,
        tuple(latency_budgets),
        tuple(latency_compare_fail),
        tuple(tuple(layer) for layer in quality_layers),
        known,
    )


def _require_baseline(options: GateOptions, bounds: _Bounds) -> None:
    """The options that compare with a baseline are refused without one."""
    if options.tts_baseline:
        return
    if bounds.latency_compare_fail:
        raise GateOptionError("--tts-latency-compare-fail needs --tts-baseline RESULTS")
    if options.tts_fail_on_regression:
        raise GateOptionError("--tts-fail-on-regression needs --tts-baseline RESULTS")
    if any(bound.kind == "tolerance" for layer in bounds.quality_layers for bound in layer):
        raise GateOptionError("--tts-quality-tolerance (or quality.tolerance) needs --tts-baseline RESULTS")


def _refuse_unmeasured(
    settings: Settings,
    engines: Sequence[str],
    bounds: _Bounds,
    quality_sets: tuple[str, ...],
    chosen: MeasureSetsChoice,
) -> None:
    """A floor, ceiling or tolerance the run could only pass over nothing is refused before it is gated."""
    from pytest_ttsbench.quality.gates import unmeasured_bounds_error

    # Recorded transcripts have no clip to measure: the bounds are not asked of such engines.
    clip_engines = settings.clip_engines(engines)
    if not clip_engines:
        return
    error = unmeasured_bounds_error(bounds.quality_layers, quality_sets, clip_engines, chosen.chosen_by, chosen.advice)
    if error is not None:
        raise GateOptionError(error)


def _read_baseline(options: GateOptions, contract: str | None, protocol: str | None) -> _Baseline:
    """``--tts-baseline``'s rows (the latest of each target: a file may hold appended runs), under the
    run's protocol, refused when it holds none, sent another text contract, or no longer matches its
    manifest (unless ``--tts-allow-unverified``)."""
    from pytest_ttsbench.protocols import under_protocol
    from pytest_ttsbench.run_model.manifest import verify_recorded_run
    from pytest_ttsbench.run_model.provenance import RunHeaderError, read_header
    from pytest_ttsbench.run_model.results import latest_per_target, read_results

    option = options.tts_baseline
    if not option:
        return _Baseline()
    path = baseline_results_path(option)
    if not path.is_file():
        raise GateOptionError(f"--tts-baseline: no results file at {path}")
    try:
        unverified = verify_recorded_run(
            path, allow_unverified=options.tts_allow_unverified, flag=ALLOW_UNVERIFIED_OPTION
        )
        rows = tuple(latest_per_target(read_results(path)))
        if protocol is not None:
            rows = tuple(under_protocol(row, protocol, f"--tts-baseline {path}") for row in rows)
        header = read_header(path)
    except (OSError, ValueError, RunHeaderError) as exc:
        raise GateOptionError(f"--tts-baseline: {exc}") from exc
    if not rows:
        raise GateOptionError(f"--tts-baseline: {path} holds no results")
    used = sorted({row.contract for row in rows})
    if contract is not None and used and used != [contract]:
        raise GateOptionError(
            f"--tts-baseline: {path} sent text contract(s) {', '.join(used)}, this run sends "
            f"{contract!r}: compare runs of one contract (--tts-contract)"
        )
    return _Baseline(rows, path, header, tuple(f"--tts-baseline {note}" for note in unverified))


def _read_snapshot_files(settings: Settings, engines: Sequence[str]) -> dict[str, tuple[Path, dict[str, str]]]:
    """Each engine's transcript snapshots (``__tts_snapshots__/<engine>.ambr``)."""
    snapshots = {}
    for engine in engines:
        path = snapshot_path(settings.base_dir, engine)
        try:
            snapshots[engine] = (path, read_snapshots(path))
        except ValueError as exc:  # SnapshotFileError: a name given twice in the .ambr file
            raise GateOptionError(str(exc)) from exc
    return snapshots
