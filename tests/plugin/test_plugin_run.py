"""Running items: verdict messages, the results file, the summary, and the xdist path."""

from __future__ import annotations

import re

import pytest
from plugin_projects import read_jsonl, write_project

RESULT_FIELDS = {
    "engine",
    "suite",
    "id",
    "target",
    "category",
    "language",
    "facets",
    "verdict",
    "transcript",
    "expected",
    "evidence",
    "audio_path",
    "audio_sha256",
    "audio_seconds",
    "synth_seconds",
    "asr_seconds",
    "started_at",
}


def test_verdicts_and_failure_message(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "-rs")
    # year and time correct; 45% heard as 54 → wrong; 歼-20 heard with 负 → wrong; 运-20 not auto-evaluable
    result.assert_outcomes(passed=2, failed=2, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*_ demo-numerals/pct-45 [[]replay[]] _*",
            "wrong on replay: missing: 45; parsed: 54",
            "  text:     Turnout reached 45% this year.",
            "  expected: values 45",
            "  heard:    Turnout reached 54 percent this year.",
        ]
    )
    assert "evidence:" not in result.stdout.str()  # said once, on the block's first line
    result.stdout.fnmatch_lines(
        [
            "*_ demo-news/m-001/歼-20 [[]replay[]] _*",
            "wrong on replay: forbidden reading heard: 歼负二十*",
            "  text:     航展首日，歼-20与运-20同场亮相。",
            "  expected: 歼-20 read as one of *'歼二十', '歼二零'*, never *'歼负二十', '歼杠二十'*",
            "  heard:    航展首日，歼负二十与运二十同场亮相。",
        ]
    )
    result.stdout.fnmatch_lines(["*not auto-evaluable*"])


def test_results_file_has_one_line_per_target_with_fixed_fields(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    pytester.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl")
    rows = read_jsonl(pytester.path / "out" / "results.jsonl")
    assert len(rows) == 5
    for row in rows:
        assert set(row) >= RESULT_FIELDS, RESULT_FIELDS - set(row)
    by_key = {(r["id"], r["target"]): r for r in rows}
    assert by_key[("demo-numerals/year-2026", None)]["verdict"] == "correct"
    wrong = by_key[("demo-numerals/pct-45", None)]
    assert wrong["verdict"] == "wrong"
    assert wrong["evidence"]["missing"] == ["45"]
    assert wrong["expected"] == {"values": ["45"]}
    assert wrong["facets"] == {"form": "western"}
    assert wrong["transcript"] == "Turnout reached 54 percent this year."
    assert by_key[("demo-news/m-001", "歼-20")]["evidence"]["negative"] == ["歼负二十"]
    excluded = by_key[("demo-news/m-001", "运-20")]
    assert excluded["auto_evaluable"] is False and excluded["verdict"] == "correct"


def _summary_rows(stdout: str) -> dict[tuple[str, str, str], list[str]]:
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 9 and parts[0] == "replay":
            rows[(parts[0], parts[1], parts[2])] = parts[3:]
    return rows


def test_summary_table_figures(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "--tts-breakdown=form")
    text = result.stdout.str()
    assert "ttsbench summary" in text
    rows = _summary_rows(text)
    # n, correct, wrong, unknown, error, strict accuracy, interval
    assert rows[("replay", "demo-numerals", "percentages")][:6] == ["1", "0", "1", "0", "0", "0.0%"]
    assert rows[("replay", "demo-numerals", "(all)")][:6] == ["3", "2", "1", "0", "0", "66.7%"]
    # the not-auto-evaluable 运-20 target is excluded from n
    assert rows[("replay", "demo-news", "military_model")][:5] == ["1", "0", "1", "0", "0"]
    assert "1 target(s) not auto-evaluable" in text
    assert re.search(r"by facet 'form':", text)
    assert rows[("replay", "demo-numerals", "spelled")][:2] == ["1", "1"]


def test_default_results_go_to_a_fresh_run_folder(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    pytester.runpytest("--tts-engine=replay", "-k", "numerals")
    runs = list((pytester.path / ".ttsbench" / "runs").iterdir())
    assert len(runs) == 1
    assert len(read_jsonl(runs[0] / "results.jsonl")) == 3


def test_xdist_aggregates_on_the_controller(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    single = pytester.runpytest_subprocess("--tts-engine=replay", "--tts-results=one.jsonl")
    double = pytester.runpytest_subprocess("-n", "2", "--tts-engine=replay", "--tts-results=two.jsonl")
    double.assert_outcomes(passed=2, failed=2, skipped=1)
    assert _summary_rows(single.stdout.str()) == _summary_rows(double.stdout.str())
    one = sorted((r["id"], r["target"] or "", r["verdict"]) for r in read_jsonl(pytester.path / "one.jsonl"))
    two = sorted((r["id"], r["target"] or "", r["verdict"]) for r in read_jsonl(pytester.path / "two.jsonl"))
    assert one == two and len(two) == 5


def test_missing_transcript_is_unknown_not_correct(pytester: pytest.Pytester) -> None:
    write_project(pytester, transcripts={"demo-numerals/year-2026": "The plant opened in 2026."})
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=r.jsonl", "-k", "numerals")
    result.assert_outcomes(passed=1, failed=2)
    verdicts = {r["id"]: r["verdict"] for r in read_jsonl(pytester.path / "r.jsonl")}
    assert verdicts == {
        "demo-numerals/year-2026": "correct",
        "demo-numerals/pct-45": "unknown",
        "demo-numerals/time-0630": "unknown",
    }


def test_unread_number_words_are_unknown_in_the_row_and_named_in_the_failure_block(pytester: pytest.Pytester) -> None:
    cases = {
        "demo-cold.yaml": """\
suite: demo-cold
language: en
scorer: numbers
items:
  - id: cold
    category: temperatures
    text: "It fell to -40 overnight."
    expect: {values: ["-40"]}
"""
    }
    write_project(pytester, cases=cases, transcripts={"demo-cold/cold": "It fell to forty below overnight."})
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl")
    result.stdout.fnmatch_lines(
        [
            "unknown on replay: missing: -40; parsed: 40; unread: 'forty below'*",
            "  heard:    It fell to forty below overnight.",
            "  unread:   'forty below'",
        ]
    )
    (row,) = read_jsonl(pytester.path / "out" / "results.jsonl")
    assert row["verdict"] == "unknown"
    assert row["evidence"]["unread"] == ["forty below"]
