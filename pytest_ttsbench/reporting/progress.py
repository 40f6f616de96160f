"""Progress lines for long benchmark runs: tests done, clips synthesized and transcribed, ETA.

A full benchmark on a slow engine runs for hours, and CI logs show nothing between pytest's dots.
With ``--tts-progress N`` (or by default every 25 tests when the output is not a terminal) the
controller writes one line per N finished tests through pytest's terminal reporter, which starts a
fresh line first, so pytest's own output stays intact. Under pytest-xdist only the controller
writes: it receives every worker's reports, and learns the test count from the workers' collection.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_ttsbench.reporting.gate_item import GATE_NODEID
from pytest_ttsbench.run_model.results import ItemResult, result_from_report
from pytest_ttsbench.support.plugin_options import DEFAULT_EVERY as DEFAULT_EVERY


@dataclass
class Counts:
    """What has been done so far; stages are counted from the results of finished tests."""

    done: int = 0
    synthesized: int = 0
    transcribed: int = 0
    scored: int = 0
    correct: int = 0

    def add(self, result: ItemResult) -> None:
        # A replay engine yields transcripts without audio: that still counts as synthesized.
        if result.audio_sha256 or result.transcripts:
            self.synthesized += 1
        if result.transcripts:
            self.transcribed += 1
        if result.verdict in ("correct", "wrong"):
            self.scored += 1
        if result.verdict == "correct":
            self.correct += 1


def _duration(value: float) -> str:
    value = max(0, round(value))
    hours, rest = divmod(value, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def progress_line(counts: Counts, total: int | None, elapsed: float) -> str:
    """``ttsbench progress: 50/200 tests (25%) | synthesized 50, ... | 1m40s elapsed, ETA 5m00s``."""
    if total:
        head = f"{counts.done}/{total} tests ({100 * counts.done / total:.0f}%)"
        remaining = max(0, total - counts.done)
        eta = f"ETA {_duration(elapsed / counts.done * remaining)}" if counts.done else "ETA unknown"
    else:
        head, eta = f"{counts.done} tests", "ETA unknown"
    stages = (
        f"synthesized {counts.synthesized}, transcribed {counts.transcribed}, "
        f"scored {counts.scored} ({counts.correct} correct)"
    )
    return f"ttsbench progress: {head} | {stages} | {_duration(elapsed)} elapsed, {eta}"


class Progress:
    """Counts finished tests on the controller and writes a line every ``every`` of them."""

    def __init__(self, every: int, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.write = write
        self.clock = clock
        self.counts = Counts()
        self.total: int | None = None
        self.started = clock()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:
            self.total = len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        # Every worker collects the same tests; the controller collects none itself.
        self.total = max(self.total or 0, len(ids))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if getattr(report, "nodeid", None) == GATE_NODEID:  # the gate's verdict, after the last test: not progress
            return
        if report.when == "call":
            result = result_from_report(report)
            if result is not None:
                self.counts.add(result)
        if report.when != "teardown":
            return
        self.counts.done += 1
        step = self.counts.done % self.every == 0 or self.counts.done == self.total
        # A run shorter than one step needs no progress line.
        if step and self.counts.done >= self.every:
            self.write(progress_line(self.counts, self.total, self.clock() - self.started))


def progress_every(option: int | None, is_tty: bool) -> int:
    """Tests per line: the option when given (0 turns it off), else the default off a terminal only."""
    if option is not None:
        return max(0, option)
    return 0 if is_tty else DEFAULT_EVERY


def register_progress(config: pytest.Config, engines: Sequence[str]) -> None:
    """Add the progress reporter on the controller of a benchmark run, when it is wanted."""
    if hasattr(config, "workerinput") or not engines:
        return  # workers report to the controller; a run that synthesizes nothing needs no progress
    every = progress_every(config.getoption("tts_progress", None), sys.stdout.isatty())
    if every <= 0:
        return

    def write(line: str) -> None:
        # Looked up when writing: the terminal reporter registers after this plugin configures.
        reporter = config.pluginmanager.getplugin("terminalreporter")
        if reporter is None:
            return
        # Start a fresh line after pytest's dots (write_line alone does not under xdist).
        writer = getattr(reporter, "_tw", None)
        if writer is not None and writer.width_of_current_line:
            writer.line()
        reporter.write_line(line)

    config.pluginmanager.register(Progress(every, write), "ttsbench-progress")
