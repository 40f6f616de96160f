"""pytest hooks for pytest-ttsbench. Hooks stay thin: each delegates to a plain module."""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path

import pytest

from pytest_ttsbench.cases.loader import CASE_SUFFIXES
from pytest_ttsbench.collect import RESULT_PROPERTY, CaseFile
from pytest_ttsbench.config import ConfigError, Settings, load_settings
from pytest_ttsbench.gating.baseline import DEFAULT_ALPHA, DEFAULT_MAX_RATE, RegressionRule
from pytest_ttsbench.gating.gate import evaluate_gate, final_status, gate_path, write_gate
from pytest_ttsbench.gating.known_gaps import KnownGaps, KnownGapsError, gaps_path, load_known_gaps
from pytest_ttsbench.gating.repeats import POLICIES
from pytest_ttsbench.gating.snapshots import MODES as SNAPSHOT_MODES
from pytest_ttsbench.gating.thresholds import ThresholdError, config_layer, parse_cli_thresholds
from pytest_ttsbench.manifest import RUN_RESULTS_NAME
from pytest_ttsbench.reporting.gate_item import GATE_NODEID, gate_is_armed, gate_reports
from pytest_ttsbench.reporting.html import register_html_report
from pytest_ttsbench.reporting.progress import add_progress_option, register_progress
from pytest_ttsbench.reporting.terminal import write_gate_summary, write_summary
from pytest_ttsbench.results import ItemResult, read_results
from pytest_ttsbench.session import BENCH_KEY, AsrOverrides, BenchSession, default_run_dir, parse_engine_option

RUN_DIR_KEY = "ttsbench_run_dir"
# What a worker tells the controller about its collection (the controller collects nothing).
COLLECTED_KEY = "ttsbench_collected"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ttsbench", "text-to-speech benchmark (pytest-ttsbench)")
    add_progress_option(group)
    group.addoption(
        "--tts-engine",
        action="append",
        metavar="NAME[,NAME...]",
        help="engine profile(s) to synthesize with; without it no case is synthesized",
    )
    group.addoption(
        "--tts-results",
        metavar="PATH",
        help="JSON-lines results file, one line per item as it finishes "
        "(default: a new folder under the configured runs_dir)",
    )
    group.addoption("--tts-audio-dir", metavar="DIR", help="where clips are kept (default: beside the results)")
    group.addoption(
        "--tts-asr-model",
        metavar="NAME|PATH",
        help="Whisper model: a name (auto, tiny.en, base, …) or a local CTranslate2 folder",
    )
    group.addoption("--tts-asr-device", metavar="DEVICE", help="faster-whisper device (cpu, cuda, auto)")
    group.addoption("--tts-asr-compute-type", metavar="TYPE", help="faster-whisper compute type (int8, float16…)")
    group.addoption("--tts-asr-beam-size", type=int, metavar="N", help="beam size for decoding")
    group.addoption(
        "--tts-contract",
        choices=("raw", "mono", "bilingual"),
        default="raw",
        help="which text variant of an item is sent (default: raw)",
    )
    group.addoption(
        "--tts-quorum",
        type=int,
        metavar="N",
        help="routes that must agree for a verdict with several ASR routes (default: majority)",
    )
    group.addoption(
        "--tts-breakdown",
        action="append",
        default=[],
        metavar="FACET",
        help="also summarize by this facet (e.g. form); repeatable",
    )
    gate = parser.getgroup("ttsbench-gate", "text-to-speech release gate (pytest-ttsbench)")
    gate.addoption(
        "--tts-threshold",
        action="append",
        default=[],
        metavar="[SUITE/]CATEGORY=FLOOR",
        help="minimum strict accuracy for a category (or 'default'), e.g. years=0.9; repeatable; "
        "overrides the configuration and the case files",
    )
    gate.addoption(
        "--tts-strict-xfail",
        action="store_true",
        help="a known gap that now passes (XPASS) fails the run",
    )
    gate.addoption(
        "--tts-update-known-gaps",
        action="store_true",
        help="rewrite known_gaps/<engine>.yaml from this run: add new failures, drop fixed ones",
    )
    gate.addoption("--tts-baseline", metavar="RESULTS", help="compare with an earlier run's results file")
    gate.addoption(
        "--tts-fail-on-regression",
        action="store_true",
        help="fail the run when an item correct in the baseline is not correct now (known gaps excepted)",
    )
    gate.addoption(
        "--tts-regression-alpha",
        type=float,
        default=DEFAULT_ALPHA,
        metavar="P",
        help=f"regressions fail the gate when McNemar's exact p is below P, overall or in a category "
        f"(default: {DEFAULT_ALPHA})",
    )
    gate.addoption(
        "--tts-max-regressions",
        type=int,
        default=None,
        metavar="N",
        help="regressions fail the gate when there are more than N (default: no count limit)",
    )
    gate.addoption(
        "--tts-max-regression-rate",
        type=float,
        default=DEFAULT_MAX_RATE,
        metavar="R",
        help=f"regressions fail the gate when more than R of the paired targets regressed; 1 switches it off "
        f"(default: {DEFAULT_MAX_RATE})",
    )
    gate.addoption(
        "--tts-repeats",
        type=int,
        default=None,
        metavar="N",
        help="independent generations per item (default: the profile's 'repeats', else 1)",
    )
    gate.addoption(
        "--tts-repeat-policy",
        choices=POLICIES,
        default="all",
        help="item verdict over its generations: all correct, a majority, or any (default: all)",
    )
    gate.addoption(
        "--tts-snapshot",
        choices=SNAPSHOT_MODES,
        default="report",
        help="compare transcripts with __tts_snapshots__/<engine>.ambr: report changes (default), fail on "
        "them (strict), or skip the comparison (off); --snapshot-update records them",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tts: a text-to-speech benchmark item (pytest-ttsbench)")
    try:
        settings = load_settings(Path(config.rootpath))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from exc
    engines = parse_engine_option(config.getoption("tts_engine"))
    unknown = [name for name in engines if name not in settings.engines]
    if unknown:
        raise pytest.UsageError(
            f"unknown engine profile(s) {', '.join(unknown)}; known: {', '.join(sorted(settings.engines))}"
            f" (define profiles in {settings.source or 'ttsbench.yaml'})"
        )
    workerinput = getattr(config, "workerinput", None)
    results_path, audio_dir = _output_paths(config, settings, engines, workerinput)
    config.stash[BENCH_KEY] = BenchSession(
        settings=settings,
        engine_names=engines,
        asr=AsrOverrides(
            model=config.getoption("tts_asr_model"),
            device=config.getoption("tts_asr_device"),
            compute_type=config.getoption("tts_asr_compute_type"),
            beam_size=config.getoption("tts_asr_beam_size"),
        ),
        results_path=results_path,
        audio_dir=audio_dir,
        contract=config.getoption("tts_contract"),
        quorum=config.getoption("tts_quorum"),
        breakdown=list(config.getoption("tts_breakdown")),
        is_worker=workerinput is not None,
    )
    _configure_gate(config, config.stash[BENCH_KEY])
    config.pluginmanager.register(_Recorder(config.stash[BENCH_KEY]), "ttsbench-recorder")
    register_html_report(config)
    register_progress(config)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(), "ttsbench-xdist")


def _configure_gate(config: pytest.Config, bench: BenchSession) -> None:
    """Read the gate's inputs up front, so a bad floor, gaps file or baseline stops the run at once."""
    repeats = config.getoption("tts_repeats")
    if repeats is not None and repeats < 1:
        raise pytest.UsageError(f"--tts-repeats must be at least 1, got {repeats}")
    bench.repeats = repeats
    try:
        for engine in bench.engine_names:
            bench.repeats_for(engine)  # a bad profile 'repeats' stops the run here, not mid-collection
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from exc
    alpha = config.getoption("tts_regression_alpha")
    rate = config.getoption("tts_max_regression_rate")
    count = config.getoption("tts_max_regressions")
    if not 0 < alpha <= 1 or not 0 <= rate <= 1 or (count is not None and count < 0):
        raise pytest.UsageError(
            f"regression gate: --tts-regression-alpha must be in (0, 1] (got {alpha}), --tts-max-regression-rate "
            f"in [0, 1] (got {rate}), --tts-max-regressions at least 0 (got {count})"
        )
    bench.regression_rule = RegressionRule(alpha=alpha, max_count=count, max_rate=None if rate >= 1 else rate)
    bench.repeat_policy = config.getoption("tts_repeat_policy")
    settings = bench.settings
    try:
        bench.floor_layers = [
            parse_cli_thresholds(config.getoption("tts_threshold")),
            config_layer(settings.thresholds, str(settings.source or "configuration")),
        ]
    except ThresholdError as exc:
        raise pytest.UsageError(str(exc)) from exc
    bench.strict_xfail = config.getoption("tts_strict_xfail")
    bench.update_known_gaps = config.getoption("tts_update_known_gaps")
    known: dict[str, KnownGaps] = {}
    for engine in bench.engine_names:
        try:
            known[engine] = load_known_gaps(gaps_path(settings.base_dir, settings.known_gaps_dir, engine), engine)
        except KnownGapsError as exc:
            raise pytest.UsageError(str(exc)) from exc
    bench.known_gaps = known
    bench.fail_on_regression = config.getoption("tts_fail_on_regression")
    bench.snapshot_mode = config.getoption("tts_snapshot")
    # syrupy's own flag, so one `--snapshot-update` refreshes every kind of snapshot in a project.
    bench.update_snapshots = bool(config.getoption("update_snapshots", default=False))
    baseline = config.getoption("tts_baseline")
    if baseline and not bench.is_worker:
        given = Path(baseline).resolve()
        path = given / RUN_RESULTS_NAME if given.is_dir() else given  # a run or baseline folder, or its results
        if not path.is_file():
            raise pytest.UsageError(f"--tts-baseline: no results file at {path}")
        bench.baseline_path = path
        bench.baseline = read_results(path)
    elif bench.fail_on_regression and not baseline:
        raise pytest.UsageError("--tts-fail-on-regression needs --tts-baseline RESULTS")


def _output_paths(
    config: pytest.Config, settings: Settings, engines: list[str], workerinput: dict | None
) -> tuple[Path | None, Path | None]:
    """Where results and clips go; workers get the controller's choice so a run has one folder."""
    if not engines:
        return None, None
    if workerinput is not None and RUN_DIR_KEY in workerinput:
        results, audio = workerinput[RUN_DIR_KEY]
        return Path(results), Path(audio)
    option = config.getoption("tts_results")
    audio_option = config.getoption("tts_audio_dir")
    if option:
        results = Path(option).resolve()
        audio = Path(audio_option).resolve() if audio_option else results.parent / f"{results.stem}-audio"
    else:
        run_dir = default_run_dir(settings.base_dir, settings.runs_dir, engines)
        results = run_dir / "results.jsonl"
        audio = Path(audio_option).resolve() if audio_option else run_dir / "audio"
    return results, audio


class _Recorder:
    """Records each finished result; on the controller it receives every worker's reports too."""

    def __init__(self, bench: BenchSession) -> None:
        self.bench = bench

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.bench.is_worker or report.nodeid == GATE_NODEID:
            return
        recorded = None
        if report.when == "call":
            for name, value in report.user_properties:
                if name == RESULT_PROPERTY:
                    recorded = ItemResult.from_dict(json.loads(value))
                    self.bench.record(recorded)
        if report.failed:
            # The repeat policy may excuse a failed generation; nothing else is ever excused.
            if recorded is not None and recorded.verdict != "correct":
                self.bench.verdict_failures.add((recorded.engine, recorded.key))
            else:
                self.bench.other_failures += 1

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not self.bench.is_worker and report.failed:
            self.bench.other_failures += 1


class _XdistHooks:
    """Hooks that exist only when pytest-xdist is installed."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:  # type: ignore[no-untyped-def]
        bench: BenchSession = node.config.stash[BENCH_KEY]
        if bench.results_path is not None:
            node.workerinput[RUN_DIR_KEY] = (str(bench.results_path), str(bench.audio_dir))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:  # type: ignore[no-untyped-def]
        """Merge what a worker collected: suite floors and the ids known gaps are matched against."""
        bench: BenchSession = node.config.stash[BENCH_KEY]
        collected = getattr(node, "workeroutput", {}).get(COLLECTED_KEY)
        if not collected:
            return
        for suite, floors in collected["suite_thresholds"].items():
            bench.suite_thresholds.setdefault(suite, dict(floors))
        bench.collected_ids.update((engine, gap_id) for engine, gap_id in collected["ids"])


def pytest_collection_finish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        bench: BenchSession = session.config.stash[BENCH_KEY]
        workeroutput[COLLECTED_KEY] = {
            "suite_thresholds": bench.suite_thresholds,
            "ids": sorted([engine, gap_id] for engine, gap_id in bench.collected_ids),
        }


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    bench: BenchSession = parent.config.stash[BENCH_KEY]
    explicit = parent.session.isinitpath(file_path)
    if file_path.suffix in CASE_SUFFIXES:
        if explicit or _under_case_dirs(file_path, bench):
            return CaseFile.from_parent(parent, path=file_path)
    elif file_path.suffix == ".jsonl" and explicit:
        return CaseFile.from_parent(parent, path=file_path)
    return None


def _under_case_dirs(path: Path, bench: BenchSession) -> bool:
    base = bench.settings.base_dir
    return any(path.is_relative_to((base / folder).resolve()) for folder in bench.settings.cases)


def pytest_report_header(config: pytest.Config) -> list[str]:
    bench: BenchSession = config.stash[BENCH_KEY]
    if not bench.engine_names:
        return []
    return [f"ttsbench: engines {', '.join(bench.engine_names)}; results -> {bench.results_path}"]


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    """The gate, once, where every result is (the controller under xdist); it may fail the run.

    Decided before any other session-finish hook, so the ``ttsbench::gate`` test it reports
    reaches JUnit XML and pytest-html before they write their files; the exit status is set after
    them all, since some (syrupy's) fold the status they were called with back into the session's.
    """
    bench: BenchSession = session.config.stash[BENCH_KEY]
    if bench.is_worker or not bench.results:
        return (yield)
    outcome = evaluate_gate(bench)
    outcome.exitstatus = final_status(outcome, int(session.exitstatus))
    bench.gate = outcome
    if gate_is_armed(outcome):
        for report in gate_reports(outcome):
            session.config.hook.pytest_runtest_logreport(report=report)
    if bench.results_path is not None:
        write_gate(gate_path(bench.results_path), outcome)
    try:
        return (yield)
    finally:
        session.exitstatus = outcome.exitstatus


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    bench: BenchSession = config.stash[BENCH_KEY]
    if bench.is_worker or not bench.results:
        return
    items = bench.gate.items if bench.gate is not None else bench.results
    write_summary(terminalreporter, items, bench.breakdown, bench.results_path)
    if bench.gate is not None:
        write_gate_summary(terminalreporter, bench.gate)


def pytest_unconfigure(config: pytest.Config) -> None:
    bench = config.stash.get(BENCH_KEY, None)
    if bench is not None:
        bench.close()
