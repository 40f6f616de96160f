"""The README's main job, cut down to four categories: what a newcomer sees on the first screen.

The shipped packs and configuration run on real eSpeak NG and Whisper in a subprocess, as a
person would start them. Four English categories keep it cheap (20 clips); the Arabic and Chinese
items the selection also matches are left out by the espeak profile's languages.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from processes import run

REPO = Path(__file__).resolve().parents[2]
SCREEN = 60  # lines after the session line that a person sees without scrolling


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> tuple[pytest.RunResult, Path]:
    project = tmp_path_factory.mktemp("main-job")
    shutil.copy(REPO / "ttsbench.yaml", project / "ttsbench.yaml")  # it names the shipped packs
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--tts-engine=espeak",
        "-k",
        "numerals and (dates or currency or phone_numbers or times)",
    ]
    started = time.monotonic()
    done = run(command, cwd=project, timeout=900, expect=None)
    result = pytest.RunResult(
        done.returncode, done.stdout.splitlines(), done.stderr.splitlines(), time.monotonic() - started
    )
    return result, project


def test_summary_and_gate_come_first_and_fit_on_one_screen(main_job: tuple[pytest.RunResult, Path]) -> None:
    result, _ = main_job
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "test session starts" in line)
    screen = lines[start : start + SCREEN]
    text = "\n".join(screen)
    assert any("ttsbench summary" in line for line in screen), text
    outcome = [line for line in screen if line.startswith("gate FAILED") or line.startswith("gate passed")]
    assert len(outcome) == 1, text
    failures = next(i for i, line in enumerate(lines) if re.match(r"=+ FAILURES =+", line))
    apart = next(i for i, line in enumerate(lines) if "ttsbench timing and quality" in line)
    assert lines.index(outcome[0]) < apart < failures  # the decision first, then figures, then details
    # one line for the items left out, nothing about snapshots beyond how to start
    assert [line for line in screen if "skipped: profile languages are en" in line] == [
        next(line for line in screen if line.startswith("espeak: ") and "items in ar, zh skipped" in line)
    ]
    assert sum("snapshot" in line for line in lines) == 1


def test_exit_status_is_the_gates_with_a_green_and_a_red_category(main_job: tuple[pytest.RunResult, Path]) -> None:
    result, project = main_job
    (gate_file,) = (project / ".ttsbench" / "runs").glob("*/results.gate.json")
    gate = json.loads(gate_file.read_text(encoding="utf-8"))
    assert result.ret == gate["exitstatus"] == (0 if gate["passed"] else 1)
    verdicts = {check["breached"] for check in gate["thresholds"]}
    assert verdicts == {True, False}, gate["thresholds"]  # at least one category passes and one fails
    rows = [line for line in result.outlines if re.match(r"(ok|FAIL)\s+espeak\s+en-numerals\s", line)]
    assert {row.split()[0] for row in rows} == {"ok", "FAIL"}
    assert len(rows) == len(gate["thresholds"])  # the gate printed once


def test_failure_blocks_are_short_with_relative_paths(main_job: tuple[pytest.RunResult, Path]) -> None:
    result, _ = main_job
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if re.match(r"=+ FAILURES =+", line))
    end = next(i for i, line in enumerate(lines) if re.match(r"=+ short test summary info =+", line))
    blocks: list[list[str]] = []
    for line in lines[start + 1 : end]:
        if re.match(r"_+ gate _+$", line):  # ttsbench::gate: the gate's reasons, not an item
            break
        if re.match(r"_+ .* _+$", line):
            blocks.append([])
        elif blocks:
            blocks[-1].append(line)
    assert blocks
    for block in blocks:
        assert len(block) <= 6, block
        audio = [line for line in block if line.startswith("  audio:")]
        assert audio and audio[0].split()[1].startswith(".ttsbench/runs/"), block
    header = next(line for line in lines if line.startswith("ttsbench: engines espeak"))
    assert "results -> .ttsbench/runs/" in header
