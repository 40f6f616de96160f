"""pytest collection nodes for case files: one :class:`CaseTest` per item (per target) per engine."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file
from pytest_ttsbench.cases.model import CaseItem, Suite, Target
from pytest_ttsbench.cases.packs import Pack, pack_node_path, pack_of_file
from pytest_ttsbench.cases.pins import pin_problem
from pytest_ttsbench.gating.bounds import SuiteScope, case_file_source
from pytest_ttsbench.run_model.repeats import failure_is_a_draw
from pytest_ttsbench.run_model.results import RESULT_PROPERTY, RESUMED_PROPERTY, SYNTH_ONLY, UNAVAILABLE_PROPERTY
from pytest_ttsbench.scorers.registry import get_scorer
from pytest_ttsbench.session.benchmark import BENCH_KEY
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.outside_text import shown
from pytest_ttsbench.support.text import shown_path
from pytest_ttsbench.verdict import explain_evidence, quoted_spans

if TYPE_CHECKING:
    from pytest_ttsbench.run_model.results import ItemResult
    from pytest_ttsbench.session.benchmark import BenchSession


class CaseFileCollectError(Exception):
    """A case file that failed validation; shown as a collection error listing every problem."""


class CaseFile(pytest.File):
    """A YAML case file (or a supported external JSONL benchmark) collected as tests."""

    #: named by the user (``--tts-pack``): its items run in every language, as a case file named on the command line
    named = False

    def collect(self) -> Iterator[pytest.Item]:
        bench: BenchSession = self.config.stash[BENCH_KEY]
        pinned = pin_problem(self.path, bench.config.settings.external)
        if pinned is not None:
            raise CaseFileCollectError(pinned)
        try:
            suite = load_case_file(self.path, bench.config.cache, bench.config.settings.limits.max_text_chars)
        except CaseFileError as exc:
            raise CaseFileCollectError(str(exc)) from exc
        clash = bench.recorder.claim_suite(suite)
        if clash is not None:
            raise CaseFileCollectError(
                f"{self.path}: field 'suite': suite name {suite.name!r} is already used by {clash}"
            )
        bench.recorder.collected.suite_thresholds[suite.name] = dict(suite.thresholds)
        # Every name the file defines, selected or not: a bound naming none of them is a typo (gating/bounds.py).
        bench.recorder.collected.suite_scopes[suite.name] = SuiteScope.of(
            (target.category, item.language, item.facets) for item in suite.items for target in item.targets
        )
        bench.recorder.collected.suite_sources[suite.name] = case_file_source(self.path, bench.config.settings.base_dir)
        if suite.quality:
            bench.recorder.collected.suite_quality[suite.name] = dict(suite.quality)
        engines = bench.config.engine_names  # never empty: without an engine no case file is collected
        for item in suite.items:
            for target in item.targets:
                for engine in engines:
                    repeats = bench.config.repeats_for(engine)
                    for repeat in range(repeats):
                        yield CaseTest.from_parent(
                            self,
                            name=case_test_name(suite, item, target, engine, len(engines) > 1, repeat, repeats),
                            suite=suite,
                            case=item,
                            target=target,
                            engine=engine,
                            repeat=repeat,
                        )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, CaseFileCollectError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


@contextlib.contextmanager
def collected_out_of_cyclic_gc(benchmark_run: bool) -> Iterator[None]:
    """Collection with Python's cyclic garbage collector paused, and what it built frozen after it.

    A benchmark's items (10,000 nodes with their markers, cases and targets) live until the session
    ends. Left to the collector, every full collection while they are built, and pytest's five at
    the end of the session, walk all of them again: a fifth of collecting 10,000 items, and most of
    what a warm rerun spends after its last test. Frozen (``gc.freeze``), they are skipped;
    reference counting still frees whatever is dropped. ``gc.unfreeze`` runs at the very end of
    the session (the plugin registers it), so an in-process pytest run gives everything back.
    """
    if not benchmark_run:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def frozen_for_exit(benchmark_run: bool) -> None:
    """At the end of a benchmark run, before pytest's last cleanups: garbage collected once, then
    every object still alive frozen.

    pytest collects garbage five times as it shuts down (so that an object's failing ``__del__`` is
    reported); each walked everything a run imported and built since collection (numpy, the
    quality stack, the rows), most of what a warm rerun spent after its gate. Collected once here,
    while pytest's unraisable-exception hook still listens, nothing those five would find is left
    unreported; the objects frozen are live ones. ``gc.unfreeze`` still runs last.
    """
    if benchmark_run:
        gc.collect()
        gc.freeze()


def pack_case_files(session: pytest.Session, packs: Iterable[Pack]) -> list[CaseFile]:
    """The case files of the run's shipped packs, collected from the session with node ids as in a clone.

    A file the paths already collect (a clone naming ``pytest_ttsbench/packs/...``) is not added twice.
    """
    named = bool(session.config.getoption("tts_pack"))
    files: list[CaseFile] = []
    for pack in packs:
        for path in pack.files:
            if session.isinitpath(path):
                continue
            node = CaseFile.from_parent(session, path=path, nodeid=pack_node_path(path))
            node.named = named
            files.append(node)
    return files


def external_case_files(session: pytest.Session, paths: Iterable[Path]) -> list[CaseFile]:
    """The configured external benchmark files, named in node ids by their path from the rootdir."""
    return [
        CaseFile.from_parent(session, path=path, nodeid=Path(os.path.relpath(path, session.config.rootpath)).as_posix())
        for path in paths
        if not session.isinitpath(path)
    ]


def case_test_name(
    suite: Suite, item: CaseItem, target: Target, engine: str | None, many_engines: bool, repeat: int, repeats: int
) -> str:
    """``en-numerals[years/year-2026]``; readings add the span, several engines add ``-<engine>``."""
    parts = f"{target.category}/{item.id}"
    if target.span is not None:
        parts += f"/{target.span}"
    if engine is not None and many_engines:
        parts += f"-{engine}"
    if repeats > 1:
        parts += f"-r{repeat}"
    return f"{suite.name}[{parts}]"


class VerdictFailure(AssertionError):
    """A target whose verdict is not ``correct``; carries the evidence for the failure message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CaseTest(pytest.Item):
    """One target of one benchmark item, on one engine."""

    def __init__(
        self,
        *,
        suite: Suite,
        case: CaseItem,
        target: Target,
        engine: str,
        repeat: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case
        self.target = target
        self.engine = engine
        self.repeat = repeat
        for keyword in (case.language, case.language.split("-")[0], target.category, suite.name, case.id, engine):
            if keyword:
                self.extra_keyword_matches.add(keyword)
        names = _item_marker_names(case.suite, target.category, case.language, engine, tuple(case.facets.items()))
        marks = _registered_marks(self.config, names)
        # What add_marker does per marker, once for all of them (10,000 items, five markers each).
        self.keywords.update(marks)
        self.own_markers.extend(decorator.mark for _, decorator in marks)
        bench: BenchSession = self.config.stash[BENCH_KEY]
        bench.recorder.collected.ids.update({(engine, case.full_id), (engine, self.known_gap_id)})
        gaps = bench.config.known_gaps.get(engine)
        gap = gaps.match(case.full_id, self.known_gap_id) if gaps is not None else None
        if gap is not None:
            # A known failure reads XFAIL, a fixed one XPASS (a failure with --tts-strict-xfail).
            self.add_marker(pytest.mark.xfail(reason=gap.describe(), strict=bench.config.strict_xfail))

    @property
    def known_gap_id(self) -> str:
        """``<suite>/<item id>``, plus ``/<span>`` for a readings target."""
        base = self.case.full_id
        return f"{base}/{self.target.span}" if self.target.span is not None else base

    def runtest(self) -> None:
        bench: BenchSession = self.config.stash[BENCH_KEY]
        result = bench.config.resumed.get((self.engine, self.known_gap_id, self.repeat))
        if result is not None:  # --tts-resume: measured by the run this session continues
            self.user_properties.append((RESUMED_PROPERTY, result.to_json()))
        else:
            reason = bench.evaluator.unavailable_reason(self.engine)
            if reason is not None:
                # The gate counts engines that measured nothing (gating/coverage.py); the controller learns why.
                self.user_properties.append((UNAVAILABLE_PROPERTY, dump_json([self.engine, reason])))
                raise _skip_here(reason)
            result = bench.evaluator.evaluate(self.case, self.target, self.engine, self.repeat)
            result.node_id, result.case_line = self.nodeid, self.case.line
            pack = pack_of_file(self.case.source)
            if pack is not None:
                result.pack, result.pack_version = pack.name, pack.version
            result.engine_config = bench.config.engine_config(self.engine)
            self.user_properties.append((RESULT_PROPERTY, result.to_json()))
        if not self.target.auto_evaluable:
            raise _skip_here("target is not auto-evaluable (auto_evaluable: false): recorded, excluded from accuracy")
        if result.evidence.get(SYNTH_ONLY):
            raise _skip_here(f"synthesize-only: clip kept at {result.audio_path}, not transcribed")
        if result.verdict != "correct":
            message = failure_message(
                result,
                get_scorer(self.case.scorer).expected_text(self.target.expect),
                self.config.invocation_params.dir,
            )
            config = bench.config
            if failure_is_a_draw(config.repeats_for(self.engine), config.gate.repeat_policy):
                pytest.xfail(
                    f"generation {self.repeat} of a stochastic item (policy {config.gate.repeat_policy}):\n{message}"
                )
            raise VerdictFailure(message)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, VerdictFailure):
            return excinfo.value.message
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        line = self.case.line - 1 if self.case.line is not None else 0  # pytest counts lines from 0
        return self.path, line, f"{self.known_gap_id} [{self.engine}]"


def shard_key(item: pytest.Item) -> str:
    """What ``--tts-shard`` hashes: a benchmark item's ``<suite>/<item id>``, any other test's node id."""
    return item.case.full_id if isinstance(item, CaseTest) else item.nodeid


#: an item's markers: (name, the decorator), in marker_names' order
ItemMarks = tuple[tuple[str, pytest.MarkDecorator], ...]
#: marker names → their decorators, in this run (each name declared once, on first use)
_MARKS_KEY = pytest.StashKey[dict[tuple[str, ...], ItemMarks]]()


def _registered_marks(config: pytest.Config, names: tuple[str, ...]) -> ItemMarks:
    """The decorators of an item's data-derived markers, each declared once so ``--strict-markers`` accepts it.

    Items share a few sets of markers: each set is built once per run, not per item.
    """
    known = config.stash.setdefault(_MARKS_KEY, {})
    marks = known.get(names)
    if marks is None:
        declared = {name for key in known for name in key}
        for name in dict.fromkeys(names):
            if name not in declared:
                config.addinivalue_line("markers", f"{name}: pytest-ttsbench (from case data)")
        marks = known[names] = tuple((name, getattr(pytest.mark, name)) for name in names)
    return marks


@functools.lru_cache(maxsize=4096)
def _item_marker_names(
    suite: str, category: str, language: str, engine: str | None, facets: tuple[tuple[str, str], ...]
) -> tuple[str, ...]:
    return tuple(marker_names(suite, category, language, engine, dict(facets)))


def _marker_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def _skip_here(reason: str) -> BaseException:
    """A skip reported at the case file rather than at this module."""
    return pytest.skip.Exception(reason, _use_item_location=True)


def marker_names(suite: str, category: str, language: str, engine: str | None, facets: Mapping[str, str]) -> list[str]:
    """Markers for ``-m``: ``tts``, the suite, the category, ``lang_<tag>``, ``engine_<name>``, facets."""
    names = ["tts", suite, category, f"lang_{language.split('-')[0].lower()}"]
    if engine:
        names.append(f"engine_{engine}")
    names.extend(f"{key}_{value}" for key, value in facets.items())
    return [_marker_safe(name) for name in names]


def failure_message(result: ItemResult, expected: str, base: Path | None = None) -> str:
    """What a person needs to act on a failed target, in a few lines: the verdict and why on the first
    (pytest's short summary repeats it), then text, expected, heard, the spans the scorer could not
    read (to settle by listening) and the clip (relative to ``base``).

    The test's name above the block already says which item and target failed.
    """
    evidence = dict(result.evidence)
    evidence.pop("routes", None)
    if result.verdict == "error":
        why = str(result.error)
    else:
        why = explain_evidence(evidence) or dump_json(evidence, ensure_ascii=False)
    flags = f" [asr flags: {', '.join(result.asr_flags)}]" if result.asr_flags else ""
    # Every part below came from outside (a provider's message, the item's text, what ASR heard):
    # each is one escaped line, so none can write to the terminal or start a CI workflow command.
    lines = [
        f"{result.verdict} on {shown(result.engine)}: {shown(why)}{shown(flags)}",
        f"  text:     {shown(result.text)}",
        f"  expected: {shown(expected)}",
    ]
    if result.transcripts and len(result.transcripts) > 1:
        for route, text in result.transcripts.items():
            lines.append(f"  heard ({shown(route)}, {result.route_verdicts.get(route, '?')}): {shown(text)}")
    else:
        lines.append(f"  heard:    {shown(result.transcript) if result.transcript is not None else '(nothing)'}")
    if evidence.get("unread"):
        lines.append(f"  unread:   {shown(quoted_spans(evidence['unread']))}")
    if result.audio_path:
        lines.append(f"  audio:    {shown(shown_path(result.audio_path, base))}")
    return "\n".join(lines)


# --- synthesis ahead of the tests (see prefetch.py) ---------------------------------------------

PREFETCH_LOOKAHEAD = 64  # tests looked at per step; a pool's window, not this, bounds the work queued
_POSITIONS_KEY = pytest.StashKey[dict[str, int]]()


def upcoming_items(session: pytest.Session, current: pytest.Item) -> list[pytest.Item]:
    """The tests this process runs from ``current`` on, in order.

    Under pytest-xdist a worker runs only the tests the controller sends it: those are read from
    the worker's own queue, so each worker synthesizes ahead only for its own tests.
    """
    queue = _xdist_queue(session.config)
    if queue is not None:
        torun, following = queue
        with torun.lock() as pending:
            indexes = [following, *list(pending)[: PREFETCH_LOOKAHEAD - 1]]
        return [current, *(session.items[i] for i in indexes if isinstance(i, int))]
    positions = session.stash.get(_POSITIONS_KEY, None)
    if positions is None or len(positions) != len(session.items):
        positions = {item.nodeid: index for index, item in enumerate(session.items)}
        session.stash[_POSITIONS_KEY] = positions
    start = positions.get(current.nodeid, 0)
    return session.items[start : start + PREFETCH_LOOKAHEAD]


def _xdist_queue(config: pytest.Config) -> tuple[Any, Any] | None:
    """An xdist worker's queue of test indexes and the next index it took, or None outside a worker."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        torun = getattr(plugin, "torun", None)
        if torun is not None and hasattr(torun, "lock"):
            return torun, getattr(plugin, "nextitem_index", None)
    return None


def prefetch_ahead(bench: BenchSession, items: list[pytest.Item]) -> int:
    """Start synthesis for the benchmark tests among ``items`` while their engines' pools have room."""
    started = 0
    for item in items:
        if not isinstance(item, CaseTest) or item.engine is None:
            continue
        if bench.evaluator.unavailable_reason(item.engine) is None:
            started += bench.evaluator.prefetch(item.case, item.engine, item.repeat)
    return started
