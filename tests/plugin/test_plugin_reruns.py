"""Rerunning into an existing results file: refused unless --tts-append (a new run) or --tts-resume (finish the run)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from plugin_projects import NUMERALS, TRANSCRIPTS, read_jsonl, write_project

from pytest_ttsbench.cli import main as ttsbench

PLAIN = NUMERALS.replace("thresholds: {default: 0.5}\n", "")
RESULTS = "--tts-results=out/results.jsonl"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_project(pytester, cases={"demo-numerals.yaml": PLAIN})
    return pytester


def _rows(pytester: pytest.Pytester) -> list[dict]:
    return read_jsonl(pytester.path / "out" / "results.jsonl")


def test_a_rerun_into_an_existing_file_is_refused_and_the_file_kept(project: pytest.Pytester) -> None:
    project.runpytest("--tts-engine=replay", RESULTS)
    before = (project.path / "out" / "results.jsonl").read_bytes()
    result = project.runpytest("--tts-engine=replay", RESULTS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*already holds results of an earlier run; pass --tts-append*--tts-resume*"])
    assert (project.path / "out" / "results.jsonl").read_bytes() == before


def test_append_adds_a_run_that_every_reader_counts_once(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    project.runpytest("--tts-engine=replay", RESULTS)
    result = project.runpytest("--tts-engine=replay", RESULTS, "--tts-append")
    result.assert_outcomes(passed=2, failed=1)
    rows = _rows(project)
    runs = Counter(row["run_id"] for row in rows)
    assert len(runs) == 2 and set(runs.values()) == {3}
    capsys.readouterr()
    assert ttsbench(["leaderboard", str(project.path / "out" / "results.jsonl"), "--format", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["entries"]
    assert entry["correct"] + entry["wrong"] + entry["unknown"] == 3


def test_append_and_resume_exclude_each_other(project: pytest.Pytester) -> None:
    result = project.runpytest("--tts-engine=replay", RESULTS, "--tts-append", "--tts-resume")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_append_refuses_a_corrupt_file(project: pytest.Pytester) -> None:
    (project.path / "out").mkdir()
    (project.path / "out" / "results.jsonl").write_text("{not json\n", encoding="utf-8")
    result = project.runpytest("--tts-engine=replay", RESULTS, "--tts-append")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*results.jsonl: line 1: not valid JSON*"])


def test_resume_finishes_the_run_without_measuring_again(project: pytest.Pytester) -> None:
    first = project.runpytest("--tts-engine=replay", RESULTS, "-k", "year or pct")
    first.assert_outcomes(passed=1, failed=1, deselected=1)
    (run_id,) = {row["run_id"] for row in _rows(project)}
    # Whatever the replay now says for the two measured items is not asked again.
    write_project(
        project, cases={"demo-numerals.yaml": PLAIN}, transcripts={**TRANSCRIPTS, "demo-numerals/year-2026": "nothing"}
    )
    second = project.runpytest("--tts-engine=replay", RESULTS, "--tts-resume")
    second.assert_outcomes(passed=2, failed=1)  # the stored verdicts still decide their tests
    rows = _rows(project)
    assert [row["id"] for row in rows] == [
        "demo-numerals/year-2026",
        "demo-numerals/pct-45",
        "demo-numerals/time-0630",
    ]
    assert {row["run_id"] for row in rows} == {run_id}
    gate = json.loads((project.path / "out" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["coverage"][0]["measured"] == 3  # the gate covers the whole resumed run


def test_resume_measures_again_under_a_changed_engine_configuration(project: pytest.Pytester) -> None:
    project.runpytest("--tts-engine=replay", RESULTS, "-k", "year")
    config = project.path / "ttsbench.yaml"
    config.write_text(config.read_text().replace("}", ", voice: other}"), encoding="utf-8")
    project.runpytest("--tts-engine=replay", RESULTS, "--tts-resume")
    ids = [row["id"] for row in _rows(project)]
    assert ids.count("demo-numerals/year-2026") == 2  # measured again, and readers keep the later row
    assert len({row["engine_config"] for row in _rows(project)}) == 2


def test_resume_measures_error_rows_again_and_drops_a_cut_last_line(project: pytest.Pytester) -> None:
    project.runpytest("--tts-engine=replay", RESULTS, "-k", "year or pct")
    path = project.path / "out" / "results.jsonl"
    first, second = path.read_text(encoding="utf-8").splitlines()
    errored = json.loads(first) | {"verdict": "error", "error": "synthesis failed: timed out"}
    path.write_text(json.dumps(errored) + "\n" + second[:50], encoding="utf-8")  # killed while writing row 2
    result = project.runpytest("--tts-engine=replay", RESULTS, "--tts-resume")
    result.assert_outcomes(passed=2, failed=1)
    rows = _rows(project)  # every line reads cleanly again
    assert [row["verdict"] for row in rows if row["id"] == "demo-numerals/year-2026"] == ["error", "correct"]
    assert len(rows) == 4


def test_append_under_xdist_gives_each_session_one_run_id(project: pytest.Pytester) -> None:
    project.runpytest("--tts-engine=replay", RESULTS, "-n", "2")
    project.runpytest("--tts-engine=replay", RESULTS, "-n", "2", "--tts-append")
    runs = Counter(row["run_id"] for row in _rows(project))
    assert sorted(runs.values()) == [3, 3]
