"""pytest hooks for pytest-ttsbench. Hooks stay thin: each delegates to a plain module.

This module is imported by every pytest process where the package is installed, also by a plain
``pytest`` that never synthesizes and by every xdist worker. So it imports only what the idle
path needs; the gate, the reports and the pipeline are imported inside the hooks that use them
(see ``benchmarks/throughput.py``, which measures the idle cost).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_ttsbench.cases.loader import CASE_SUFFIXES
from pytest_ttsbench.config import ConfigError, Settings, load_settings
from pytest_ttsbench.gating.repeats import POLICIES
from pytest_ttsbench.gating.snapshots import MODES as SNAPSHOT_MODES
from pytest_ttsbench.session import BENCH_KEY, AsrOverrides, BenchSession, default_run_dir, parse_engine_option

if TYPE_CHECKING:
    from pytest_ttsbench.collect import CaseFile

RUN_DIR_KEY = "ttsbench_run_dir"
# What a worker tells the controller about its collection (the controller collects nothing).
COLLECTED_KEY = "ttsbench_collected"


def pytest_addoption(parser: pytest.Parser) -> None:
    from pytest_ttsbench.reporting.progress import add_progress_option

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
    group.addoption(
        "--tts-synth-only",
        action="store_true",
        help="synthesize and check clips only, no ASR and no verdicts; score them later with an "
        "audio-dir profile whose path is this run's folder",
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
        "--tts-repeats",
        type=int,
        default=1,
        metavar="N",
        help="independent generations per item (default: 1)",
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
        synth_only=config.getoption("tts_synth_only"),
        is_worker=workerinput is not None,
    )
    _configure_gate(config, config.stash[BENCH_KEY])
    config.pluginmanager.register(_Recorder(config.stash[BENCH_KEY]), "ttsbench-recorder")
    if config.pluginmanager.hasplugin("html") and config.getoption("htmlpath", None):
        from pytest_ttsbench.reporting.html import register_html_report

        register_html_report(config)
    if engines:
        from pytest_ttsbench.reporting.progress import register_progress

        register_progress(config)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(), "ttsbench-xdist")


def _configure_gate(config: pytest.Config, bench: BenchSession) -> None:
    """Read the gate's inputs up front, so a bad floor, gaps file or baseline stops the run at once."""
    repeats = config.getoption("tts_repeats")
    if repeats < 1:
        raise pytest.UsageError(f"--tts-repeats must be at least 1, got {repeats}")
    bench.repeats = repeats
    bench.repeat_policy = config.getoption("tts_repeat_policy")
    settings = bench.settings
    # Each gate module is imported only when its input is there: an idle pytest imports none.
    cli_floors = config.getoption("tts_threshold")
    if cli_floors or settings.thresholds:
        from pytest_ttsbench.gating.thresholds import ThresholdError, config_layer, parse_cli_thresholds

        try:
            bench.floor_layers = [
                parse_cli_thresholds(cli_floors),
                config_layer(settings.thresholds, str(settings.source or "configuration")),
            ]
        except ThresholdError as exc:
            raise pytest.UsageError(str(exc)) from exc
    bench.strict_xfail = config.getoption("tts_strict_xfail")
    bench.update_known_gaps = config.getoption("tts_update_known_gaps")
    if bench.engine_names:
        from pytest_ttsbench.gating.known_gaps import KnownGapsError, gaps_path, load_known_gaps

        for engine in bench.engine_names:
            try:
                path = gaps_path(settings.base_dir, settings.known_gaps_dir, engine)
                bench.known_gaps[engine] = load_known_gaps(path, engine)
            except KnownGapsError as exc:
                raise pytest.UsageError(str(exc)) from exc
    bench.fail_on_regression = config.getoption("tts_fail_on_regression")
    bench.snapshot_mode = config.getoption("tts_snapshot")
    # syrupy's own flag, so one `--snapshot-update` refreshes every kind of snapshot in a project.
    bench.update_snapshots = bool(config.getoption("update_snapshots", default=False))
    baseline = config.getoption("tts_baseline")
    if baseline and not bench.is_worker:
        from pytest_ttsbench.results import read_results

        path = Path(baseline).resolve()
        if not path.is_file():
            raise pytest.UsageError(f"--tts-baseline: no results file at {path}")
        bench.baseline_path = path
        bench.baseline = read_results(path)
        used = sorted({row.contract for row in bench.baseline})
        if used and used != [bench.contract]:
            raise pytest.UsageError(
                f"--tts-baseline: {path} sent text contract(s) {', '.join(used)}, this run sends "
                f"{bench.contract!r}: compare runs of one contract (--tts-contract)"
            )
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
        if self.bench.is_worker:
            return
        from pytest_ttsbench.collect import RESULT_PROPERTY
        from pytest_ttsbench.results import ItemResult

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
    if file_path.suffix not in CASE_SUFFIXES and file_path.suffix != ".jsonl":
        return None
    from pytest_ttsbench.collect import CaseFile

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


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The gate, once, where every result is (the controller under xdist); it may fail the run."""
    bench: BenchSession = session.config.stash[BENCH_KEY]
    if bench.is_worker or not bench.results or bench.synth_only:
        return  # a synthesize-only run has clips, not verdicts: there is nothing to gate
    from pytest_ttsbench.gating.gate import evaluate_gate, final_status, gate_path, write_gate

    outcome = evaluate_gate(bench)
    outcome.exitstatus = final_status(outcome, int(session.exitstatus))
    session.exitstatus = outcome.exitstatus
    bench.gate = outcome
    if bench.results_path is not None:
        write_gate(gate_path(bench.results_path), outcome)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    bench: BenchSession = config.stash[BENCH_KEY]
    if bench.is_worker or not bench.results:
        return
    from pytest_ttsbench.reporting.terminal import write_gate_summary, write_summary, write_synth_only_summary

    if bench.synth_only:
        write_synth_only_summary(terminalreporter, bench.results, bench.results_path)
        return
    items = bench.gate.items if bench.gate is not None else bench.results
    write_summary(terminalreporter, items, bench.breakdown, bench.results_path)
    if bench.gate is not None:
        write_gate_summary(terminalreporter, bench.gate)


def pytest_unconfigure(config: pytest.Config) -> None:
    bench = config.stash.get(BENCH_KEY, None)
    if bench is not None:
        bench.close()
