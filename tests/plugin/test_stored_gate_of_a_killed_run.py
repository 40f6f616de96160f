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
import time
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
    # the killed shard never wrote its manifest: merged only when asked, and the merged run then has none
    assert ttsbench(["merge", str(project.path / "s1"), str(project.path / "s2"), "-o", str(merged)]) == 1
    shards = [str(project.path / "s1"), str(project.path / "s2")]
    assert ttsbench(["merge", *shards, "-o", str(merged), "--allow-unverified"]) == 0
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
    # an edited header no longer matches the run's manifest: read at all only when asked
    assert ttsbench(["gate", str(project.path / "out"), "--rootdir", str(project.path)]) == 2
    assert "results.run.json" in capsys.readouterr().err
    code = ttsbench(["gate", str(project.path / "out"), "--rootdir", str(project.path), "--allow-unverified"])
    err = capsys.readouterr().err
    assert code == 2
    assert "results.run.json" in err and "field selected" in err


# Every pytest process (each xdist worker) pauses after its first item until let go: a run caught
# with at most one row per worker written, whatever the scheduler sent where.
PAUSE_EVERY_PROCESS = """\
import os, time
from pathlib import Path

_paused = []

def pytest_runtest_teardown(item):
    marker = os.environ.get("TTSBENCH_TEST_PAUSED")
    if marker and not _paused:
        _paused.append(True)
        Path(marker).touch()
        while not Path(marker + ".go").exists():
            time.sleep(0.05)
"""

YEARS = "suite: demo-years\nlanguage: en\nscorer: numbers\nitems:\n" + "".join(
    f"  - {{id: y{year}, category: years, text: 'It opened in {year}.', expect: {{values: ['{year}']}}}}\n"
    for year in range(2020, 2030)
)


def test_a_killed_xdist_run_says_what_it_selected_and_regates_incomplete(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under xdist the workers reported their selection only when they finished: a run SIGKILLed after
    its first rows had ``"selected": null`` and re-gated green. The controller now takes it as the first
    worker's collection ends, before any item runs."""
    pytest.importorskip("xdist")
    transcripts = {f"demo-years/y{year}": f"It opened in {year}." for year in range(2020, 2030)}
    write_project(pytester, cases={"demo-years.yaml": YEARS}, transcripts=transcripts)
    (pytester.path / "conftest.py").write_text(PAUSE_EVERY_PROCESS, encoding="utf-8")
    run, go = start_paused_run(pytester.path, "--tts-engine=replay", "-n", "2", "--tts-results=out/results.jsonl")
    results = pytester.path / "out" / "results.jsonl"
    deadline = time.monotonic() + 60
    while not (results.exists() and results.read_text(encoding="utf-8").strip()) and time.monotonic() < deadline:
        time.sleep(0.05)  # the controller writes the first worker's row as its report arrives
    header = pytester.path / "out" / "results.run.json"
    selected = json.loads(header.read_text(encoding="utf-8"))["selected"]  # there before any worker finished
    run.kill()
    run.communicate(timeout=60)
    go.touch()  # the workers, orphaned, go on to find their controller gone and end
    assert selected == {"replay": 10}
    rows = len(results.read_text(encoding="utf-8").splitlines())
    assert 1 <= rows < 10
    code, out = _gate(capsys, pytester.path, results)
    assert code == 1, out
    assert f"replay: {rows} of 10 selected target(s) produced a verdict: the run is incomplete" in out
    assert json.loads((pytester.path / "out" / "results.gate.json").read_text(encoding="utf-8"))["passed"] is False
