"""The release gate's options and the files they name, read once into a ``GateConfig``, for both front ends.

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
from pytest_ttsbench.gating.latency import config_budgets, merge_budgets, parse_budgets, parse_compare_fail
from pytest_ttsbench.gating.thresholds import FloorSettings, config_floors, parse_cli_thresholds
from pytest_ttsbench.run_model.known_gaps import KnownGaps, gaps_path, load_known_gaps
from pytest_ttsbench.run_model.snapshot_files import read_snapshots, snapshot_path
from pytest_ttsbench.support.option_specs import add_options
from pytest_ttsbench.support.plugin_options import ALLOW_UNMEASURED_SPEC as ALLOW_UNMEASURED_SPEC
from pytest_ttsbench.support.plugin_options import ALLOW_UNVERIFIED_OPTION as ALLOW_UNVERIFIED_OPTION
from pytest_ttsbench.support.plugin_options import GATE_OPTIONS as GATE_OPTIONS

if TYPE_CHECKING:
    from pytest_ttsbench.config import Settings
    from pytest_ttsbench.gating.gate import GateConfig
    from pytest_ttsbench.gating.latency import LatencyBudget, SlowdownRule
    from pytest_ttsbench.gating.thresholds import Floor
    from pytest_ttsbench.quality.bounds import QualityBound
    from pytest_ttsbench.run_model.provenance import RunHeader
    from pytest_ttsbench.run_model.results import ItemResult


class GateOptionError(ValueError):
    """A gate option, or a combination of them, that cannot be used; the message names the option."""


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
    tts_gate_decides_exit: bool = False
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

    floors: tuple[Floor, ...]
    floor_settings: tuple[FloorSettings, ...]
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
        floors=bounds.floors,
        floor_settings=bounds.floor_settings,
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
        # --tts-allow-quality-model-change, or the configuration's quality.allow_model_change
        allow_quality_model_change=bool(
            options.tts_allow_quality_model_change or settings.quality.get("allow_model_change")
        ),
        allow_unavailable=options.tts_allow_unavailable,
        allow_unmeasured_bounds=options.tts_allow_unmeasured_bounds,
        max_error_rate=options.tts_max_error_rate,
        quality_sets=quality_sets,
        unverified=baseline.unverified,
        gate_decides_exit=options.tts_gate_decides_exit or settings.gate_decides_exit,
    )


def _regression_rule(options: GateOptions) -> RegressionRule:
    """The regression rule's limits, each checked in its range as its option was parsed (number_option)."""
    alpha, rate, count = options.tts_regression_alpha, options.tts_max_regression_rate, options.tts_max_regressions
    return RegressionRule(alpha=alpha, max_count=count, max_rate=None if rate >= 1 else rate)


def _parse_bounds(settings: Settings, engines: Sequence[str], options: GateOptions) -> _Bounds:
    """Floors, latency budgets and slowdowns, quality bounds (options over the configuration) and known gaps."""
    from pytest_ttsbench.quality.bounds import override_layers

    where = str(settings.source or "configuration")
    try:
        cli_settings = FloorSettings.checked(options.tts_min_n, options.tts_floor_on, ("--tts-min-n", "--tts-floor-on"))
        config_floor_list, config_settings = config_floors(settings.thresholds, where)
        floors = (*parse_cli_thresholds(list(options.tts_threshold)), *config_floor_list)
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
        floors,
        (cli_settings, config_settings),
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


def unmeasured_bounds_error(
    bounds_by_layer: Sequence[Sequence[QualityBound]],
    quality_sets: Sequence[str],
    engines: Sequence[str],
    chosen_by: str,
    advice: str,
) -> str | None:
    """The refusal, before anything runs, of bounds that surely apply to the run but cannot be judged.

    A bound surely applies when its scope is empty or names only engines of this run (a suite or
    category scope may match nothing selected: that is left to the gate, where such a bound is
    ``not measured``). It cannot be judged when its measure's set is not among ``quality_sets``. ``chosen_by``
    says where the sets came from; ``advice`` is said with the sets to add (``{sets}``).
    """
    from pytest_ttsbench.quality.measures import measure as measure_named

    missing: dict[str, list[QualityBound]] = {}
    for layer in bounds_by_layer:
        for bound in layer:
            measure_set = measure_named(bound.measure, "quality gate").measure_set
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
