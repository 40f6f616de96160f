"""Progress lines with an ETA on long runs, written by the controller only."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from report_helpers import write_project
from result_rows import make_result

from pytest_ttsbench.reporting.progress import Counts, Progress, progress_every, progress_line
from pytest_ttsbench.run_model.results import RESULT_PROPERTY


def test_line_shows_counts_and_eta() -> None:
    counts = Counts(done=25, synthesized=25, transcribed=24, scored=23, correct=20)
    line = progress_line(counts, total=100, elapsed=50.0)
    # 25 tests in 50 s: 75 more take 150 s
    assert line == (
        "ttsbench progress: 25/100 tests (25%) | synthesized 25, transcribed 24, scored 23 (20 correct) "
        "| 50s elapsed, ETA 2m30s"
    )
    assert progress_line(Counts(done=3), total=None, elapsed=4000).endswith("1h06m elapsed, ETA unknown")


@pytest.mark.parametrize(
    ("option", "tty", "every"),
    [(None, True, 0), (None, False, 25), (5, True, 5), (0, False, 0), (-3, False, 0)],
)
def test_when_lines_are_written(option: int | None, tty: bool, every: int) -> None:
    assert progress_every(option, tty) == every


def report(when: str, verdict: str | None = None, audio: bool = True) -> SimpleNamespace:
    props = []
    if verdict is not None:
        result = make_result(
            id="s/i",
            verdict=verdict,
            transcript="x" if verdict != "error" else None,
            audio_sha256="ab" if audio else None,
            transcripts={"r": "x"} if verdict != "error" else {},
        )
        props.append((RESULT_PROPERTY, result.to_json()))
    return SimpleNamespace(when=when, user_properties=props)


def test_lines_every_n_tests_and_at_the_end() -> None:
    lines: list[str] = []
    clock = iter(float(t) for t in range(100))
    progress = Progress(every=2, write=lines.append, clock=lambda: next(clock))
    progress.total = 5
    for verdict in ("correct", "wrong", "error", "unknown", "correct"):
        for when in ("setup", "call", "teardown"):
            progress.pytest_runtest_logreport(report(when, verdict if when == "call" else None, verdict != "error"))  # type: ignore[arg-type]
    assert [line.split(" | ")[0] for line in lines] == [
        "ttsbench progress: 2/5 tests (40%)",
        "ttsbench progress: 4/5 tests (80%)",
        "ttsbench progress: 5/5 tests (100%)",
    ]
    # the error had no clip and no transcript; unknown was synthesized and transcribed but not scored
    assert "synthesized 4, transcribed 4, scored 3 (2 correct)" in lines[-1]


def test_short_runs_write_nothing() -> None:
    lines: list[str] = []
    progress = Progress(every=10, write=lines.append)
    progress.total = 3
    for _ in range(3):
        progress.pytest_runtest_logreport(report("teardown"))  # type: ignore[arg-type]
    assert lines == []


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_progress_in_a_real_run(pytester: pytest.Pytester, workers: list[str]) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-progress=2", *workers)
    result.assert_outcomes(passed=2, failed=2, skipped=1)
    lines = [line for line in result.outlines if line.startswith("ttsbench progress:")]
    assert [re.match(r"ttsbench progress: (\S+) tests", line).group(1) for line in lines] == ["2/5", "4/5", "5/5"]
    # replay: transcripts without audio count as synthesized and transcribed; every target is scored,
    # the not auto-evaluable one too (it is recorded, only left out of accuracy)
    assert "synthesized 5, transcribed 5, scored 5 (3 correct)" in lines[-1]
    # pytest's own summary lines are still there, on lines of their own
    assert any(re.fullmatch(r"=+ 2 failed, 2 passed, 1 skipped.* in .* =+", line) for line in result.outlines)


def test_no_progress_by_default_for_short_runs_or_without_engines(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl")  # not a TTY: every 25
    assert not [line for line in result.outlines if "ttsbench progress" in line]
    result = pytester.runpytest("--tts-progress=1")  # no engine: nothing is synthesized
    assert not [line for line in result.outlines if "ttsbench progress" in line]
