"""A gate that measured nothing, or a session that did not finish, never passes.

The demo project's replay transcripts pass every numerals item once pct-45 is heard right; the
tests here only add what makes a run unmeasured or unfinished.
"""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from plugin_projects import NUMERALS, read_jsonl, write_project
from plugin_projects import PASSING_TRANSCRIPTS as PASSING

PLAIN = NUMERALS.replace("thresholds: {default: 0.5}\n", "")
WITH_CLOUD = textwrap.dedent(
    """\
    engines:
      replay: {type: transcripts, path: runs/replay.jsonl}
      cloud: {type: openai, base_url: "http://127.0.0.1:9/v1", model: m, voice: alloy, api_key_env: TTSBENCH_UNSET_KEY}
    """
)


def _gate(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "out" / "results.gate.json").read_text(encoding="utf-8"))


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("TTSBENCH_UNSET_KEY", raising=False)
    write_project(pytester, cases={"demo-numerals.yaml": PLAIN}, transcripts=PASSING, config=WITH_CLOUD)
    return pytester


@pytest.mark.parametrize("engines", ["cloud", "replay,cloud"])
def test_a_missing_key_stops_the_run_before_any_test(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, engines: str
) -> None:
    """A selected engine without its key is a usage error found at collection: exit status 4, not a
    regression's 1, naming the variable; nothing runs and no gate summary follows."""
    monkeypatch.setenv("OTHER_KEY", "s3cr3t-value")  # a value read elsewhere is never quoted either
    result = project.runpytest(f"--tts-engine={engines}", "--tts-results=out/results.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*engine profile 'cloud': environment variable TTSBENCH_UNSET_KEY is not set*"])
    result.assert_outcomes()
    assert "gate" not in result.stdout.str() and "s3cr3t" not in result.stdout.str() + result.stderr.str()
    assert not (project.path / "out" / "results.gate.json").exists()


def test_allow_unavailable_keeps_the_old_skip(project: pytest.Pytester) -> None:
    result = project.runpytest(
        "--tts-engine=replay,cloud", "--tts-results=out/results.jsonl", "--tts-allow-unavailable", "-p", "no:xdist"
    )
    result.assert_outcomes(passed=3, skipped=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["coverage: replay: 3 of 3 selected*; cloud: 0 of 3 selected*", "gate passed"])


def test_coverage_counts_the_selected_targets(project: pytest.Pytester) -> None:
    result = project.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "-k", "year", "-p", "no:xdist")
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["coverage: replay: 1 of 1 selected target(s) produced a verdict", "gate passed"])
    assert _gate(project)["coverage"][0]["selected"] == 1


@pytest.mark.parametrize(("engines", "blank"), [("cloud", None), ("replay,cloud", None), ("replay,cloud", "  ")])
def test_under_xdist_a_missing_key_is_the_same_usage_error(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, engines: str, blank: str | None
) -> None:
    """The controller checks the credentials as the first worker's collection ends (#38): exit status
    4 with the message a run without -n gives, naming the variable; no test runs and no gate is written."""
    if blank is not None:
        monkeypatch.setenv("TTSBENCH_UNSET_KEY", blank)
    monkeypatch.setenv("OTHER_KEY", "s3cr3t-value")
    result = project.runpytest_subprocess(f"--tts-engine={engines}", "--tts-results=out/results.jsonl", "-n", "2")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output
    result.stderr.fnmatch_lines(["*engine profile 'cloud': environment variable TTSBENCH_UNSET_KEY is not set*"])
    assert not re.search(r"\d+ (passed|failed)", result.stdout.str()), output
    assert "gate" not in result.stdout.str() and "s3cr3t" not in output
    assert not (project.path / "out" / "results.gate.json").exists()


def test_coverage_under_xdist(project: pytest.Pytester) -> None:
    """With --tts-allow-unavailable the engine without its key skips its items under xdist too, and
    the coverage says it measured nothing."""
    result = project.runpytest(
        "--tts-engine=replay,cloud", "--tts-results=out/results.jsonl", "--tts-allow-unavailable", "-n", "2"
    )
    assert result.ret == pytest.ExitCode.OK
    coverage = {row["engine"]: (row["selected"], row["measured"]) for row in _gate(project)["coverage"]}
    assert coverage == {"replay": (3, 3), "cloud": (3, 0)}


INTERRUPT_AFTER_FIRST = """\
import os, signal

# Python's own Ctrl-C handler, as in a terminal: a runner started in the background (nohup, '&')
# hands its children SIGINT ignored, and Python then never turns SIGINT into KeyboardInterrupt.
signal.signal(signal.SIGINT, signal.default_int_handler)

def pytest_runtest_teardown(item):
    # A real SIGINT, as Ctrl-C sends it, once the first item is done.
    os.kill(os.getpid(), signal.SIGINT)
"""


def test_an_interrupted_run_is_never_a_pass(project: pytest.Pytester) -> None:
    (project.path / "conftest.py").write_text(INTERRUPT_AFTER_FIRST, encoding="utf-8")
    result = project.runpytest_subprocess("--tts-engine=replay", "--tts-results=out/results.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["gate FAILED: *the session did not finish (pytest exit status 2)*"])
    assert "gate passed" not in result.stdout.str()
    gate = _gate(project)
    assert gate["passed"] is False and gate["exitstatus"] == 2
    assert len(read_jsonl(project.path / "out" / "results.jsonl")) == 1  # what was done is kept


def test_a_run_stopped_early_is_never_a_pass(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"demo-numerals.yaml": PLAIN})  # pct-45 is heard wrong
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "-x", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gate = _gate(pytester)
    assert gate["passed"] is False
    assert any("stopped before running every selected target" in reason for reason in gate["reasons"])
