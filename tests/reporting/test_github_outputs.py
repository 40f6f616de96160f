"""GitHub Actions' conventions (issue 38, point 3): the job summary and ``::error`` annotations come
from the run's own judged items and gate, and outside text is escaped as workflow commands require."""

from __future__ import annotations

import re
import urllib.parse

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plugin_projects import NUMERALS, write_project

from pytest_ttsbench.gating.bounds import fails
from pytest_ttsbench.reporting.github import error_command

CASE_FILE = "cases/demo-numerals.yaml"
CASES = NUMERALS.replace("thresholds: {default: 0.5}", "thresholds: {default: 0.5, min_n: 1}")


def _unescape(text: str) -> str:
    return urllib.parse.unquote(text)


# Text without other control characters (those are shown as escapes by the terminal seam, tested in
# tests/support/test_outside_text.py): CR, LF, "%", ":" and "," are what could end or forge a command.
COMMAND_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs")) | st.sampled_from("\r\n%:,")).filter(
    lambda text: "##[" not in text  # the runner's log-group marker, broken by the seam
)


@given(COMMAND_TEXT, COMMAND_TEXT.filter(bool), st.integers(1, 10_000), COMMAND_TEXT.filter(bool))
def test_one_command_per_error_whatever_the_text(message: str, file: str, line: int, title: str) -> None:
    command = error_command(message, file, line, title)
    assert "\n" not in command and "\r" not in command
    match = re.fullmatch(r"::error file=([^,:]*),line=(\d+),title=([^,:]*)::(.*)", command, re.DOTALL)
    assert match is not None, command
    assert (_unescape(match[1]), int(match[2]), _unescape(match[3]), _unescape(match[4])) == (
        file,
        line,
        title,
        message,
    )


# pct-45 is heard "54 percent": the one item not correct; its category's floor (0.5) is breached.
HOSTILE = {
    "demo-numerals/year-2026": "The plant opened in 2026.",
    "demo-numerals/pct-45": "Turnout: 54%, reached\n::error::forged, this year.",
    "demo-numerals/time-0630": "The train leaves at 6:30.",
}


def _github_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *env: str) -> tuple[pytest.RunResult, str]:
    write_project(pytester, cases={"demo-numerals.yaml": CASES}, transcripts=HOSTILE)
    summary = pytester.path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    values = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "team/voice",
        "GITHUB_RUN_ID": "42",
    }
    for name in env:
        monkeypatch.setenv(name, values[name])
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl", "-p", "no:xdist")
    return result, summary.read_text(encoding="utf-8")


def test_annotations_point_at_the_failing_item_and_the_breached_floor(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, summary = _github_run(pytester, monkeypatch, "GITHUB_ACTIONS")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    errors = [line for line in result.outlines if line.startswith("::error")]
    pct_line = 1 + CASES.splitlines().index("  - id: pct-45")
    assert errors[0].startswith(f"::error file={CASE_FILE},line={pct_line},title=ttsbench%3A wrong on replay::")
    assert "demo-numerals/pct-45 [replay] wrong" in errors[0]
    assert "%0A::error::forged" in errors[0], "the transcript's newline is escaped: it cannot start a command"
    assert not any(line.lstrip().startswith("::error::forged") for line in result.outlines), "nor in the failure"
    floor_line = 1 + CASES.splitlines().index("thresholds: {default: 0.5, min_n: 1}")
    [floor] = [line for line in errors if "floor" in line]
    assert floor.startswith(f"::error file={CASE_FILE},line={floor_line},title=ttsbench%3A floor breached::")
    assert "percentages" in floor
    assert len(errors) == 2, errors
    assert summary == "earlier step\n", "no summary without GITHUB_STEP_SUMMARY"


def test_the_job_summary_says_the_verdict_the_bounds_and_the_items(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, summary = _github_run(
        pytester, monkeypatch, "GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not any(line.lstrip().startswith("::") for line in result.outlines), "no annotations without GITHUB_ACTIONS"
    assert summary.startswith("earlier step\n## ttsbench: gate FAILED\n"), "appended, never replacing"
    verdict = next(line for line in result.outlines if line.startswith("gate FAILED"))
    assert verdict in summary, "the terminal's own verdict line"
    assert re.search(r"\| breached \| floor demo-numerals/percentages=0\.5 \[replay\] \| " + CASE_FILE, summary)
    assert "### Not correct (1 of 3 items)" in summary
    [row] = [line for line in summary.splitlines() if line.startswith("| demo-numerals/pct-45 ")]
    assert "Turnout: 54%, reached ::error::forged, this year." in row, "one line per row"
    assert "https://github.example/team/voice/actions/runs/42" in summary


def test_nothing_for_github_outside_github(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result, summary = _github_run(pytester, monkeypatch)
    assert not any(line.lstrip().startswith("::") for line in result.outlines)
    assert summary == "earlier step\n"


def test_a_long_list_is_cut_and_points_at_the_rest() -> None:
    from result_rows import make_result

    from pytest_ttsbench.gating.gate import GateOutcome
    from pytest_ttsbench.reporting.github import SUMMARY_ROWS, not_correct, step_summary
    from pytest_ttsbench.reporting.terminal import SessionSummary

    rows = [make_result(id=f"s/i-{n}", verdict="wrong", transcript=f"<b>{n}</b> | x") for n in range(SUMMARY_ROWS + 5)]
    outcome = GateOutcome(items=rows, judged=[fails("a reason")], xfailed=["s/i-0 [e]"])
    finished = SessionSummary(rows, gate=outcome)
    assert [item.known_gap for item in not_correct(finished)][:2] == [True, False]
    text = step_summary(finished, "[the run](https://x)")
    table = [line for line in text.splitlines() if line.startswith("| s/i-")]
    assert len(table) == SUMMARY_ROWS
    assert "(known gap)" in table[0] and "&lt;b>0&lt;/b> \\| x" in table[0]
    assert text.rstrip().endswith("5 more and the details: [the run](https://x)")
