"""`ttsbench gate` over a run that was killed midway fails it as incomplete, as the run's own session would have.

A killed run (SIGKILL: a CI job cancelled hard, the machine's OOM killer) keeps the rows it
finished and its run header, but writes no gate file. Re-gating its folder judged coverage
against the rows alone, so one good row of three passed as a whole run. The header now records
what the run selected; a shard cut short the same way fails the merged run's gate.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, PASSING_TRANSCRIPTS, PAUSE_AFTER_FIRST_ITEM, start_paused_run, write_project
from processes import run

from pytest_ttsbench.cli import main as ttsbench


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS}, transcripts=PASSING_TRANSCRIPTS)
    (pytester.path / "conftest.py").write_text(PAUSE_AFTER_FIRST_ITEM, encoding="utf-8")
    return pytester


def _run(root: Path, *args: str, kill_after_first: bool = False) -> None:
    """One pytest run in its own process; with ``kill_after_first``, SIGKILLed once its first row is written."""
    argv = ["--tts-engine=replay", "-p", "no:xdist", *args]
    if kill_after_first:
        paused, _ = start_paused_run(root, *argv)
        paused.kill()
        paused.communicate(timeout=60)
        return
    pytest_command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv]
    run(pytest_command, cwd=root, env={**os.environ, "PYTEST_ADDOPTS": ""}, timeout=120)


def _gate(capsys: pytest.CaptureFixture[str], root: Path, run: Path) -> tuple[int, str]:
    capsys.readouterr()
    code = ttsbench(["gate", str(run), "--rootdir", str(root)])
    return code, capsys.readouterr().out


def test_a_killed_run_regated_is_incomplete(project: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    _run(project.path, "--tts-results=out/results.jsonl", kill_after_first=True)
    results = project.path / "out" / "results.jsonl"
    assert len(results.read_text(encoding="utf-8").splitlines()) == 1  # what it finished is kept
    assert not (project.path / "out" / "results.gate.json").exists()  # and it never gated itself
    assert json.loads((project.path / "out" / "results.run.json").read_text(encoding="utf-8"))["selected"] == {
        "replay": 3
    }
    code, out = _gate(capsys, project.path, results)
    assert code == 1, out
    assert "replay: 1 of 3 selected target(s) produced a verdict: the run is incomplete" in out
    gate = json.loads((project.path / "out" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["passed"] is False


def test_a_finished_run_regated_still_passes(project: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    _run(project.path, "--tts-results=out/results.jsonl")
    code, out = _gate(capsys, project.path, project.path / "out" / "results.jsonl")
    assert code == 0, out
    assert "replay: 3 of 3 selected target(s) produced a verdict" in out


def test_a_shard_killed_midway_fails_the_merged_gate(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(project.path, "--tts-shard=1/2", "--tts-results=s1/results.jsonl", kill_after_first=True)
    _run(project.path, "--tts-shard=2/2", "--tts-results=s2/results.jsonl")
    selected = [
        json.loads((project.path / shard / "results.run.json").read_text(encoding="utf-8"))["selected"]
        for shard in ("s1", "s2")
    ]
    assert selected == [{"replay": 2}, {"replay": 1}]  # the split of these three ids: the killed shard had two
    capsys.readouterr()
    merged = project.path / "merged" / "results.jsonl"
    assert ttsbench(["merge", str(project.path / "s1"), str(project.path / "s2"), "-o", str(merged)]) == 0
    header = json.loads((project.path / "merged" / "results.run.json").read_text(encoding="utf-8"))
    assert header["selected"] == {"replay": 3}
    code, out = _gate(capsys, project.path, merged)
    assert code == 1, out
    assert "replay: 2 of 3 selected target(s) produced a verdict: the run is incomplete" in out


@pytest.mark.parametrize("selected", ['"all"', '{"replay": -1}', '{"replay": true}', "[3]"])
def test_a_header_whose_selection_is_not_counts_is_refused(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str], selected: str
) -> None:
    _run(project.path, "--tts-results=out/results.jsonl")
    header = project.path / "out" / "results.run.json"
    document = json.loads(header.read_text(encoding="utf-8"))
    header.write_text(json.dumps({**document, "selected": json.loads(selected)}), encoding="utf-8")
    capsys.readouterr()
    code = ttsbench(["gate", str(project.path / "out"), "--rootdir", str(project.path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "results.run.json" in err and "field selected" in err
