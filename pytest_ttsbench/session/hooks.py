"""The pytest hooks of a benchmark run, registered by the plugin (plugin.py) only when the run is one.

plugin.py is what pytest imports in every run of every project the package is installed in; it
declares the options and, when a run selects an engine (or names a benchmark, or the project
configures the plugin), registers this module, whose imports (the session, collection, gate and
reports) are then paid for by the runs that use them. Registered from the plugin's
``pytest_configure``, this module's own ``pytest_configure`` is called at once (pytest's configure
hook is historic), after every other plugin's (pytest-html's report writer included). Hooks stay
thin: each delegates to the session or a plain module.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

from pytest_ttsbench.quality.measures import measure_names
from pytest_ttsbench.reporting.gate_item import gate_is_armed, gate_reports, gate_test_status
from pytest_ttsbench.reporting.html import ASSETS_EXISTED_KEY, register_html_report, report_title
from pytest_ttsbench.reporting.progress import register_progress
from pytest_ttsbench.reporting.terminal import write_run_sections
from pytest_ttsbench.session.benchmark import (
    BENCH_KEY,
    CACHE_DAMAGED_KEY,
    COLLECTED_KEY,
    BenchSession,
    Recorder,
    build_config,
)
from pytest_ttsbench.session.collect import (
    CaseFile,
    CaseTest,
    collected_out_of_cyclic_gc,
    external_case_files,
    frozen_for_exit,
    pack_case_files,
    prefetch_ahead,
    upcoming_items,
)
from pytest_ttsbench.session.option_paths import check_rootdir_not_moved
from pytest_ttsbench.session.own_folders import OWN_FOLDERS_KEY, run_folders
from pytest_ttsbench.session.selection import (
    keep_selected,
    merge_worker_selection,
    selected_by_engine,
    selection_of,
    worker_report,
)
from pytest_ttsbench.support.outside_text import guard_terminal
from pytest_ttsbench.support.redaction import install_log_redaction


def _bench(config: pytest.Config) -> BenchSession:
    return config.stash[BENCH_KEY]


@pytest.hookimpl(trylast=True)  # after pytest-html's, whose report writer the HTML report adjusts
def pytest_configure(config: pytest.Config) -> None:
    # Under everything the run prints: outside text (a provider's message, a transcript) reaches the
    # terminal and a CI log escaped, and only our own workflow commands start a line with "::".
    guard_terminal(config.pluginmanager.get_plugin("terminalreporter"))
    install_log_redaction()  # before any adapter logs: httpx/httpcore DEBUG records quote headers
    if getattr(config, "workerinput", None) is None:
        check_rootdir_not_moved(config)
    bench_config = build_config(config)
    bench = BenchSession(bench_config, Recorder(bench_config.results_path))
    config.stash[BENCH_KEY] = bench
    config.stash[OWN_FOLDERS_KEY] = run_folders(config, bench_config)
    config.pluginmanager.register(_ReportListener(bench), "ttsbench-recorder")
    measures = measure_names(bench_config.quality_sets) if bench_config.engine_names else ()
    title = report_title(bench_config.engine_names, bench_config.results_path)
    register_html_report(config, bench.summary, config.stash.get(ASSETS_EXISTED_KEY, True), measures, title)
    register_progress(config, bench_config.engine_names)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(), "ttsbench-xdist")


class _ReportListener:
    """Records each finished result; on the controller it receives every worker's reports too."""

    def __init__(self, bench: BenchSession) -> None:
        self.bench = bench

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.bench.note_report(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.bench.note_collect_failure()


class _XdistHooks:
    """Hooks that exist only when pytest-xdist is installed."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:  # type: ignore[no-untyped-def]
        node.workerinput.update(_bench(node.config).worker_input())

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:  # type: ignore[no-untyped-def]
        """A worker's selection as its collection ends, before any item runs (its report comes only at its end).

        The controller checks the selected engines' credentials then, once, as a run without ``-n``
        does at the end of its collection: a missing key stops the session with the same usage error
        (exit status 4) before xdist schedules a test, instead of every worker's items failing the gate.
        """
        bench = _bench(node.config)
        if bench.recorder.collected.selected is not None:
            return  # a later worker: every worker collects the same, and the first one said it
        bench.note_worker_selection(selected_by_engine(ids, bench.config.engine_names))
        bench.check_credentials()
        bench.close_engines()  # the controller runs no item: an engine built for the check must not stay loaded

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:  # type: ignore[no-untyped-def]
        """Merge what a worker collected; the controller's closing line counts what it left out."""
        workeroutput = getattr(node, "workeroutput", {})
        collected = workeroutput.get(COLLECTED_KEY)
        if not collected:
            return
        merge_worker_selection(node.config, collected.get("selection"))
        _bench(node.config).merge_collection_report(collected, workeroutput.get(CACHE_DAMAGED_KEY, {}))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    with collected_out_of_cyclic_gc(bool(session.config.stash[BENCH_KEY].config.engine_names)):
        return (yield)


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.pluginmanager.has_plugin("dsession"):
        return  # the xdist controller collects nothing: its workers report what they selected
    bench = _bench(session.config)
    bench.count_selected(item.engine for item in session.items if isinstance(item, CaseTest) and item.engine)
    bench.check_credentials()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[COLLECTED_KEY] = bench.collection_report(worker_report(selection_of(session.config)))


@pytest.hookimpl(trylast=True)  # after -k and -m, so the line counts only items the user selected
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """A bound whose scope no case file defines stops the run; else keep the shard's and fit items (selection.py)."""
    bench = _bench(config)
    errors = bench.bound_scope_errors()
    if not errors:
        keep_selected(session, items, bench.config)
    elif getattr(config, "workerinput", None) is None:
        raise pytest.UsageError("\n".join(errors))
    else:
        # A pytest-xdist worker cannot stop the session with a usage error: it runs nothing and tells
        # the controller, which fails the session with the same message (BenchSession.gate).
        bench.scope_errors = errors
        items[:] = []


def pytest_deselected(items: list[pytest.Item]) -> None:
    """A worker remembers everything deselected (by -k, -m or language) to tell the controller."""
    if not items or getattr(items[0].config, "workerinput", None) is None:
        return
    if not _bench(items[0].config).config.engine_names:
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
        bench_config = _bench(collector.config).config
        report.result.extend(pack_case_files(collector, bench_config.packs))
        report.result.extend(external_case_files(collector, bench_config.external))
    return report


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The plugin's own folders (the cache, kept clips) hold no tests: pytest need not walk them."""
    own = config.stash.get(OWN_FOLDERS_KEY, None)
    return True if own is not None and own.skips(collection_path) else None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if _bench(parent.config).collects(file_path, explicit=parent.session.isinitpath(file_path)):
        return CaseFile.from_parent(parent, path=file_path)
    return None


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Before each test, start synthesizing the clips of the tests that follow (prefetch.py)."""
    bench = _bench(item.config)
    if bench.config.engine_names and bench.config.prefetch and not bench.config.lists_only:
        prefetch_ahead(bench, upcoming_items(item.session, item))


def pytest_sessionstart(session: pytest.Session) -> None:
    _bench(session.config).attach(session)


def pytest_report_header(config: pytest.Config) -> list[str]:
    return _bench(config).header_lines(config.invocation_params.dir)


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    """The gate, once, where every result is (the controller under xdist); it may fail the run.

    Decided before any other session-finish hook, so the ``ttsbench::gate`` test it reports
    reaches JUnit XML and pytest-html before they write their files; the exit status is set after
    them all, since some (syrupy's) fold the status they were called with back into the session's.
    """
    bench = _bench(session.config)
    if bench.config.is_worker:
        bench.finish_worker(getattr(session.config, "workeroutput", {}))
        return (yield)
    outcome = bench.gate(int(session.exitstatus), bool(session.shouldstop or session.shouldfail))
    if outcome is None or outcome.exitstatus is None:  # the gate always sets the status it decides
        return (yield)
    if gate_is_armed(outcome):
        session.config.stash[_ANNOUNCING_GATE] = True
        try:
            for report in gate_reports(outcome):
                session.config.hook.pytest_runtest_logreport(report=report)
        finally:
            session.config.stash[_ANNOUNCING_GATE] = False
    try:
        return (yield)
    finally:
        session.exitstatus = outcome.exitstatus


#: True while ttsbench::gate's reports are handed to pytest (see gate_item.gate_test_status)
_ANNOUNCING_GATE = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    return gate_test_status(report, announcing=config.stash.get(_ANNOUNCING_GATE, False))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> Generator[None, None, None]:  # type: ignore[no-untyped-def]
    """The summary and the gate first, right after the tests ran; pytest's failure details,
    warnings and short summary follow (this wrapper runs before pytest's own)."""
    bench = _bench(config)
    if not bench.config.is_worker:
        write_run_sections(
            terminalreporter,
            bench.summary(),
            [skip.line() for skip in selection_of(config).language_skips],
            synth_only=bench.config.synth_only,
            results_path=bench.config.results_path,
            base=config.invocation_params.dir,
        )
        bench.write_ci_outputs(terminalreporter.write_line, Path(config.rootpath), os.environ)
    return (yield)


def pytest_unconfigure(config: pytest.Config) -> None:
    bench = config.stash.get(BENCH_KEY, None)
    if bench is not None:
        bench.close()
        frozen_for_exit(bool(bench.config.engine_names))
