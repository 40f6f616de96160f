"""Listing is not measuring: ``--collect-only``, ``--setup-plan`` and ``--setup-only`` list the
benchmark's items and exit 0. Nothing is synthesized, no run folder or results file is made, and
no gate is evaluated, so no gate file claims a verdict about a run that never ran."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from plugin_projects import NUMERALS

LISTING_FLAGS = ["--co", "--collect-only", "--setup-plan", "--setup-only"]

# A command engine that notes every synthesis in calls.txt, so a test can tell whether one happened.
SPEAK = """\
import sys, wave
open("calls.txt", "a").write(sys.argv[1] + "\\n")
with wave.open(sys.argv[1], "wb") as out:
    out.setnchannels(1); out.setsampwidth(2); out.setframerate(16000)
    out.writeframes(bytes(16000))
"""


def _project(pytester: pytest.Pytester) -> Path:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "demo-numerals.yaml").write_text(NUMERALS, encoding="utf-8")
    (pytester.path / "speak.py").write_text(SPEAK, encoding="utf-8")
    echo = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
    engine = {"type": "command", "command": [sys.executable, "speak.py", "{out}"]}
    config = {"asr": {"routes": [echo]}, "engines": {"speaker": engine}, "runs_dir": "runs"}
    (pytester.path / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return pytester.path


@pytest.mark.parametrize("flag", LISTING_FLAGS)
def test_listing_exits_0_lists_the_items_and_runs_and_writes_nothing(pytester: pytest.Pytester, flag: str) -> None:
    project = _project(pytester)
    result = pytester.runpytest(flag, "-p", "no:xdist", "--tts-engine=speaker", "--tts-threshold=default=0.9")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*listing only: nothing is synthesized, written or gated*"])
    result.stdout.fnmatch_lines(["*demo-numerals[[]years/year-2026[]]*"])
    output = result.stdout.str()
    assert "measured nothing" not in output and "gate FAILED" not in output
    assert "ttsbench gate" not in output, "a listing is not gated"
    assert not (project / "calls.txt").exists(), "a listing must not synthesize (nor prefetch) anything"
    assert not (project / "runs").exists(), "a listing must make no run folder, results or gate file"


def test_the_same_project_run_for_real_synthesizes_and_is_gated(pytester: pytest.Pytester) -> None:
    """The contrast that shows the listing test's checks can fail: a real run makes all of it."""
    project = _project(pytester)
    result = pytester.runpytest("-p", "no:xdist", "--tts-engine=speaker")
    assert "ttsbench gate" in result.stdout.str()
    assert (project / "calls.txt").exists()
    (run,) = (project / "runs").iterdir()
    assert (run / "results.jsonl").is_file() and (run / "results.gate.json").is_file()
