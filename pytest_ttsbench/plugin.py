"""pytest hooks for pytest-ttsbench. Hooks stay thin: each delegates to a plain module."""

from __future__ import annotations

import gc
import os
import sys
from collections import Counter
from collections.abc import Generator
from pathlib import Path

import pytest

from pytest_ttsbench.cache import DEFAULT_MODE as DEFAULT_CACHE_MODE
from pytest_ttsbench.cache import MODES as CACHE_MODES
from pytest_ttsbench.cases.loader import CASE_SUFFIXES
from pytest_ttsbench.clip_reuse import REUSE_CHOICES
from pytest_ttsbench.collect import (
    CaseFile,
    CaseTest,
    collected_out_of_cyclic_gc,
    external_case_files,
    pack_case_files,
    prefetch_ahead,
    upcoming_items,
)
from pytest_ttsbench.config import Settings
from pytest_ttsbench.gating.bounds import SuiteScope, declared_floors, scope_errors
from pytest_ttsbench.gating.coverage import unfinished_reason
from pytest_ttsbench.gating.gate import Collected, evaluate_gate, final_status, write_gate, write_gate_updates
from pytest_ttsbench.gating.options import add_gate_options
from pytest_ttsbench.gating.repeats import POLICIES
from pytest_ttsbench.json_documents import load_json
from pytest_ttsbench.naming import shown_path
from pytest_ttsbench.option_paths import check_rootdir_not_moved
from pytest_ttsbench.protocols import DEFAULT_PROTOCOL, PROTOCOL_HELP, PROTOCOLS
from pytest_ttsbench.quality.measures import DNSMOS_WINDOWINGS, measure_names
from pytest_ttsbench.redaction import install_log_redaction
from pytest_ttsbench.reporting.gate_item import GATE_NODEID, gate_is_armed, gate_reports
from pytest_ttsbench.reporting.html import register_html_report
from pytest_ttsbench.reporting.progress import add_progress_option, register_progress
from pytest_ttsbench.reporting.terminal import SessionSummary, write_run_sections
from pytest_ttsbench.results import RESULT_PROPERTY, RESUMED_PROPERTY, UNAVAILABLE_PROPERTY, ItemResult
from pytest_ttsbench.runs import gate_path
from pytest_ttsbench.selection import (
    leave_out_unfit_languages,
    merge_worker_report,
    selection_of,
    worker_report,
)
from pytest_ttsbench.session import (
    BENCH_KEY,
    EXTERNAL_KEY,
    PACKS_KEY,
    RUN_DIR_KEY,
    RUN_ID_KEY,
    BenchSession,
    Recorder,
    build_config,
)
from pytest_ttsbench.sharding import parse_shard, select

# What a worker tells the controller about its collection (the controller collects nothing).
COLLECTED_KEY = "ttsbench_collected"
CACHE_DAMAGED_KEY = "ttsbench_cache_damaged"  # a worker's damaged cache entries, per kind
#: bounds whose scope no loaded case file defines, found by a pytest-xdist worker (see _bound_scope_errors)
SCOPE_ERRORS_KEY = pytest.StashKey[list[str]]()


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
    group.addoption(
        "--tts-append",
        action="store_true",
        help="add this run to a --tts-results file that already holds rows (as a new run id)",
    )
    group.addoption(
        "--tts-resume",
        action="store_true",
        help="finish the run a --tts-results file holds: targets it measured (not as error) with the same engine "
        "configuration are not run again",
    )
    group.addoption(
        "--tts-pack",
        action="append",
        metavar="NAME",
        help="run this shipped benchmark pack (repeatable; `ttsbench packs list` names them), beside the "
        "configured case folders; overrides the configuration's `packs`",
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
        "--tts-asr-batch-size",
        metavar="N|auto",
        help="Whisper windows decoded together: 1 = sequential, N > 1 = faster-whisper's batched pipeline, "
        "auto (default) = per device (sequential on CPU, 16 on CUDA)",
    )
    group.addoption(
        "--tts-contract",
        choices=("raw", "mono", "bilingual"),
        default="raw",
        help="which text variant of an item is sent (default: raw)",
    )
    group.addoption(
        "--tts-protocol",
        choices=PROTOCOLS,
        default=DEFAULT_PROTOCOL,
        help=f"which scoring protocol gives the verdicts: {PROTOCOL_HELP}; the other is recorded beside it",
    )
    group.addoption(
        "--tts-quorum",
        type=int,
        metavar="N",
        help="routes that must agree for a verdict with several ASR routes (default: majority)",
    )
    group.addoption(
        "--tts-cache",
        choices=CACHE_MODES,
        default=DEFAULT_CACHE_MODE,
        help="reuse clips and transcripts from earlier runs: off, read, write or readwrite (default)",
    )
    group.addoption(
        "--tts-cache-reuse",
        choices=REUSE_CHOICES,
        default=None,
        help="whose clips are read from the cache: local (default: reproducible local engines such as "
        "espeak and piper) or all (remote engines' too; never in a run with --tts-baseline)",
    )
    group.addoption(
        "--tts-cache-dir",
        metavar="DIR",
        help="the clip and transcript cache (default: cache_dir in the configuration, else "
        "$TTSBENCH_CACHE_DIR/clips, else .ttsbench/cache)",
    )
    group.addoption(
        "--tts-breakdown",
        action="append",
        default=[],
        metavar="FACET",
        help="also summarize by this facet (e.g. form); repeatable",
    )
    group.addoption(
        "--tts-all-languages",
        action="store_true",
        help="also run items in languages an engine profile is not fit for (its 'languages'); "
        "by default they are left out with one line per engine",
    )
    group.addoption(
        "--tts-synth-only",
        action="store_true",
        help="synthesize and check clips only, no ASR and no verdicts; score them later with an "
        "audio-dir profile whose path is this run's folder",
    )
    group.addoption(
        "--tts-shard",
        metavar="I/N",
        help="run only shard I of N (items picked by a hash of their id, stable as items come and go); "
        "join the shards' results with `ttsbench merge` and gate them with `ttsbench gate`",
    )
    gate = parser.getgroup("ttsbench-gate", "text-to-speech release gate (pytest-ttsbench)")
    # The release gate's own options are ttsbench gate's too: declared once (gating/options.py).
    add_gate_options(gate.addoption)
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
        "--tts-quality",
        action="append",
        metavar="SET[,SET...]",
        help="quality measures per clip: signal (default, near-free), dnsmos (extra [quality]), "
        "similarity (extra [similarity]), or none",
    )
    gate.addoption(
        "--tts-dnsmos-windowing",
        choices=DNSMOS_WINDOWINGS,
        help="how DNSMOS cuts a clip: each second scored once (clip, default), or Microsoft's reference "
        "script's 1 s hops over a clip doubled to 9.01 s (reference: comparable with published figures, ~6x the CPU)",
    )


# Whether the report's directory already held pytest-html's assets/ before this run wrote there.
HTML_ASSETS_EXISTED_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Look beside an ``--html`` report before pytest-html writes its assets (see reporting/html.py)."""
    # Registered before any plugin's configure, so it runs after every other cleanup, pytest's
    # final garbage collections included (see collect.collected_out_of_cyclic_gc).
    config.add_cleanup(gc.unfreeze)
    report = config.getoption("htmlpath", None)
    if report:
        assets = (Path.cwd() / Path(os.path.expandvars(str(report))).expanduser()).parent / "assets"
        config.stash[HTML_ASSETS_EXISTED_KEY] = assets.exists()


@pytest.hookimpl(trylast=True)  # after pytest-html's, whose report writer the HTML report adjusts
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tts: a text-to-speech benchmark item (pytest-ttsbench)")
    install_log_redaction()  # before any adapter logs: httpx/httpcore DEBUG records quote headers
    if getattr(config, "workerinput", None) is None:
        check_rootdir_not_moved(config)
    bench_config = build_config(config)
    bench = BenchSession(bench_config, Recorder(bench_config.results_path))
    config.stash[BENCH_KEY] = bench
    config.pluginmanager.register(_ReportListener(bench), "ttsbench-recorder")
    register_html_report(
        config,
        lambda: _session_summary(bench),
        config.stash.get(HTML_ASSETS_EXISTED_KEY, True),
        measure_names(bench_config.quality_sets) if bench_config.engine_names else (),
    )
    register_progress(config, bench.config.engine_names)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(), "ttsbench-xdist")


def _session_summary(bench: BenchSession) -> SessionSummary | None:
    """The finished session as the reports show it: items after the repeat policy, and the gate."""
    recorder = bench.recorder
    if bench.config.is_worker or (not recorder.results and recorder.gate is None):
        return None
    items = recorder.gate.items if recorder.gate is not None else recorder.results
    return SessionSummary(items, bench.config.breakdown, recorder.gate, recorder.results)


class _ReportListener:
    """Records each finished result; on the controller it receives every worker's reports too."""

    def __init__(self, bench: BenchSession) -> None:
        self.is_worker = bench.config.is_worker
        self.bench = bench
        self.recorder = bench.recorder

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker or report.nodeid == GATE_NODEID:
            return
        recorded = None
        if report.when == "call":
            for name, value in report.user_properties:
                if name in (RESULT_PROPERTY, RESUMED_PROPERTY):
                    recorded = ItemResult.from_dict(load_json(str(value)))
                    # A resumed row is in the results file already: it counts, it is not written again.
                    self.bench.record(recorded, write=name == RESULT_PROPERTY)
                elif name == UNAVAILABLE_PROPERTY:
                    engine, reason = load_json(str(value))
                    self.recorder.collected.unavailable[engine] = reason
        if report.failed:
            # The repeat policy may excuse a failed generation; nothing else is ever excused.
            if recorded is not None and recorded.verdict != "correct":
                self.recorder.collected.verdict_failures.add((recorded.engine, recorded.key))
            else:
                self.recorder.collected.other_failures += 1

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not self.is_worker and report.failed:
            self.recorder.collected.other_failures += 1


class _XdistHooks:
    """Hooks that exist only when pytest-xdist is installed."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:  # type: ignore[no-untyped-def]
        config = node.config.stash[BENCH_KEY].config
        node.workerinput[PACKS_KEY] = [pack.name for pack in config.packs]
        node.workerinput[EXTERNAL_KEY] = [str(path) for path in config.external]
        if config.results_path is not None:
            node.workerinput[RUN_DIR_KEY] = (str(config.results_path), str(config.audio_dir))
            node.workerinput[RUN_ID_KEY] = config.run_id

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:  # type: ignore[no-untyped-def]
        """Merge what a worker collected: suite floors, the ids known gaps are matched against, and
        what it left out (the controller's closing line counts the deselected items)."""
        seen: Collected = node.config.stash[BENCH_KEY].recorder.collected
        collected = getattr(node, "workeroutput", {}).get(COLLECTED_KEY)
        if not collected:
            return
        deselected = merge_worker_report(selection_of(node.config), collected.get("selection"))
        reporter = node.config.pluginmanager.get_plugin("terminalreporter")
        if deselected and reporter is not None:
            reporter.stats.setdefault("deselected", []).extend(deselected)
        if seen.selected is None:  # every worker collects and selects the same items
            seen.selected = dict(collected.get("selected", {}))
        for suite, floors in collected["suite_thresholds"].items():
            seen.suite_thresholds.setdefault(suite, dict(floors))
        for suite, section in collected.get("suite_quality", {}).items():
            seen.suite_quality.setdefault(suite, dict(section))
        for suite, scope in collected.get("suite_scopes", {}).items():
            seen.suite_scopes.setdefault(suite, SuiteScope.from_dict(scope))
        for suite, source in collected.get("suite_sources", {}).items():
            seen.suite_sources.setdefault(suite, source)
        suite_files = node.config.stash[BENCH_KEY].recorder.suite_files
        for suite, path in collected.get("suite_files", {}).items():
            suite_files.setdefault(suite, Path(path))
        seen.ids.update((engine, gap_id) for engine, gap_id in collected["ids"])
        cache = node.config.stash[BENCH_KEY].config.cache
        for kind, count in getattr(node, "workeroutput", {}).get(CACHE_DAMAGED_KEY, {}).items():
            if cache is not None:
                cache.count_damaged(kind, int(count))
        if collected.get("scope_errors"):
            node.config.stash[SCOPE_ERRORS_KEY] = list(collected["scope_errors"])


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    with collected_out_of_cyclic_gc(bool(session.config.stash[BENCH_KEY].config.engine_names)):
        return (yield)


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.pluginmanager.has_plugin("dsession"):
        return  # the xdist controller collects nothing: its workers report what they selected
    seen = session.config.stash[BENCH_KEY].recorder.collected
    engines = session.config.stash[BENCH_KEY].config.engine_names
    counts = Counter(item.engine for item in session.items if isinstance(item, CaseTest) and item.engine)
    seen.selected = {name: counts.get(name, 0) for name in engines}
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[COLLECTED_KEY] = {
            "suite_thresholds": seen.suite_thresholds,
            "suite_quality": seen.suite_quality,
            "suite_scopes": {suite: scope.to_dict() for suite, scope in seen.suite_scopes.items()},
            "suite_sources": seen.suite_sources,
            "suite_files": {
                suite: str(path) for suite, path in session.config.stash[BENCH_KEY].recorder.suite_files.items()
            },
            "ids": sorted([engine, gap_id] for engine, gap_id in seen.ids),
            "selection": worker_report(selection_of(session.config)),
            "selected": seen.selected,
            "scope_errors": session.config.stash.get(SCOPE_ERRORS_KEY, []),
        }


@pytest.hookimpl(trylast=True)  # after -k and -m, so the line counts only items the user selected
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep this shard's items (``--tts-shard``), then leave out items in languages an engine profile is
    not fit to be judged on (see languages.py).

    A synthesize-only run judges nothing (its clips may be scored later by other means): it keeps them.
    """
    bench_config = config.stash[BENCH_KEY].config
    errors = _bound_scope_errors(config)
    if errors:
        if getattr(config, "workerinput", None) is None:
            raise pytest.UsageError("\n".join(errors))
        # A pytest-xdist worker cannot stop the session with a usage error: it runs nothing and tells
        # the controller, which fails the session with the same message (pytest_sessionfinish).
        config.stash[SCOPE_ERRORS_KEY] = errors
        items[:] = []
        return
    if bench_config.shard is not None:
        from pytest_ttsbench.collect import shard_key

        kept, dropped = select(items, parse_shard(bench_config.shard), shard_key)
        if dropped:
            items[:] = kept
            config.hook.pytest_deselected(items=dropped)
    if not bench_config.engine_names or bench_config.synth_only or config.getoption("tts_all_languages"):
        return
    profiles = {name: bench_config.settings.engines[name] for name in bench_config.engine_names}
    kept, left_out, skips = leave_out_unfit_languages(session, items, profiles)
    selection_of(config).language_skips = skips
    if left_out:
        items[:] = kept
        config.hook.pytest_deselected(items=left_out)


def _bound_scope_errors(config: pytest.Config) -> list[str]:
    """A bound whose scope no loaded case file defines is a typo: refused before anything is synthesized."""
    bench_config = config.stash[BENCH_KEY].config
    if not bench_config.engine_names or bench_config.synth_only:
        return []
    seen = config.stash[BENCH_KEY].recorder.collected
    return scope_errors(
        declared_floors(seen.suite_thresholds, bench_config.gate.floor_layers, seen.suite_sources),
        [bound for layer in bench_config.gate.quality_layers for bound in layer],
        list(bench_config.settings.engines),
        seen.suite_scopes,
    )


def pytest_deselected(items: list[pytest.Item]) -> None:
    """A worker remembers everything deselected (by -k, -m or language) to tell the controller."""
    if not items or getattr(items[0].config, "workerinput", None) is None:
        return
    if not items[0].config.stash[BENCH_KEY].config.engine_names:
        return  # only a benchmark run's closing line is this plugin's business
    selection_of(items[0].config).deselected.extend(item.nodeid for item in items)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """The session's collection gains the run's shipped packs (cases/packs.py) and configured external
    benchmark files (cases/pins.py), beside what the paths hold.

    They hang from the session itself, not from a chain of folders under site-packages, so their
    node ids and ``-k`` keywords read as in a clone.
    """
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        bench_config = collector.config.stash[BENCH_KEY].config
        report.result.extend(pack_case_files(collector, bench_config.packs))
        report.result.extend(external_case_files(collector, bench_config.external))
    return report


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    bench_config = parent.config.stash[BENCH_KEY].config
    settings = bench_config.settings
    explicit = parent.session.isinitpath(file_path)
    if file_path.suffix in CASE_SUFFIXES:
        # A project without a configuration has no case folder until an engine is selected: the
        # plugin reads none of a repository's files in its ordinary test run.
        reads_folders = settings.source is not None or bool(bench_config.engine_names)
        if explicit or (reads_folders and _under_case_dirs(file_path, settings)):
            return CaseFile.from_parent(parent, path=file_path)
    elif file_path.suffix == ".jsonl" and explicit:
        return CaseFile.from_parent(parent, path=file_path)
    return None


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Before each test, start synthesizing the clips of the tests that follow (prefetch.py)."""
    bench: BenchSession = item.config.stash[BENCH_KEY]
    if bench.config.engine_names and bench.config.prefetch and not bench.config.lists_only:
        prefetch_ahead(bench, upcoming_items(item.session, item))


def _under_case_dirs(path: Path, settings: Settings) -> bool:
    return any(path.is_relative_to((settings.base_dir / folder).resolve()) for folder in settings.cases)


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = config.stash[BENCH_KEY].config
    if not settings.engine_names:
        return []
    engines = ", ".join(settings.engine_names)
    if settings.lists_only:
        return [f"ttsbench: engines {engines}; listing only: nothing is synthesized, written or gated"]
    results = shown_path(settings.results_path, config.invocation_params.dir)
    return [f"ttsbench: engines {engines}; results -> {results}"]


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    """The gate, once, where every result is (the controller under xdist); it may fail the run.

    Decided before any other session-finish hook, so the ``ttsbench::gate`` test it reports
    reaches JUnit XML and pytest-html before they write their files; the exit status is set after
    them all, since some (syrupy's) fold the status they were called with back into the session's.
    """
    bench: BenchSession = session.config.stash[BENCH_KEY]
    recorder = bench.recorder
    cache = bench.config.cache
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and cache is not None:
        workeroutput[CACHE_DAMAGED_KEY] = dict(cache.damaged)  # the controller's gate reports them
    if bench.config.is_worker:
        # Before xdist reports this worker finished: the controller may end the process then, and
        # a local model's close() (engines/python_factory.py) must still run.
        bench.close_engines()
        return (yield)
    if not bench.config.engine_names:
        return (yield)
    if cache is not None:
        recorder.collected.cache_damaged = dict(cache.damaged)
    if recorder.results:
        bench.write_header()  # complete now: every case file and language of the run is known
    if bench.config.synth_only or bench.config.lists_only:
        # A synthesize-only run has clips, not verdicts; a listing (--co, --setup-plan) ran nothing:
        # neither has anything to gate, and no gate file claims a verdict for them.
        return (yield)
    outcome = evaluate_gate(recorder.results, bench.config.gate, recorder.collected)
    # Never a pass for a session that did not run to its end, in the terminal or in the gate file.
    unfinished = unfinished_reason(int(session.exitstatus), session.shouldstop or session.shouldfail)
    if unfinished is not None:
        outcome.reasons.insert(0, unfinished)
    if outcome.quality_spreads and "similarity" in bench.config.quality_sets:
        from pytest_ttsbench.quality.similarity import between_generations  # reads the kept clips

        outcome.quality_spreads = between_generations(outcome.quality_spreads, recorder.results)
    write_gate_updates(outcome)
    outcome.exitstatus = final_status(outcome, int(session.exitstatus))
    refused = session.config.stash.get(SCOPE_ERRORS_KEY, [])
    if refused:  # found by the xdist workers, which ran nothing: the usage error the plugin gives without -n
        outcome.exitstatus = int(pytest.ExitCode.USAGE_ERROR)
        sys.stderr.write("ERROR: " + "\n".join(refused) + "\n")
    recorder.gate = outcome
    if gate_is_armed(outcome):
        for report in gate_reports(outcome):
            session.config.hook.pytest_runtest_logreport(report=report)
    if bench.config.results_path is not None:
        write_gate(gate_path(bench.config.results_path), outcome)
    try:
        return (yield)
    finally:
        session.exitstatus = outcome.exitstatus


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> Generator[None, None, None]:  # type: ignore[no-untyped-def]
    """The summary and the gate first, right after the tests ran; pytest's failure details,
    warnings and short summary follow (this wrapper runs before pytest's own)."""
    bench: BenchSession = config.stash[BENCH_KEY]
    if not bench.config.is_worker:
        finished = _session_summary(bench)
        write_run_sections(
            terminalreporter,
            finished,
            [skip.line() for skip in selection_of(config).language_skips],
            synth_only=bench.config.synth_only,
            results_path=bench.config.results_path,
            base=config.invocation_params.dir,
        )
    return (yield)


def pytest_unconfigure(config: pytest.Config) -> None:
    bench = config.stash.get(BENCH_KEY, None)
    if bench is not None:
        bench.close()
