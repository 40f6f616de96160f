"""Artifacts are verified wherever they are read (#35): a run whose verdicts were flipped, whose rows were
dropped or whose header was edited after it was recorded no longer matches its manifest, and every reader
refuses it, naming the file: ``ttsbench merge`` (a shard), ``ttsbench gate`` (the run, or its
``--tts-baseline``), the plugin's ``--tts-baseline``, ``ttsbench compare`` (either side) and ``ttsbench
leaderboard``. ``--allow-unverified`` reads it anyway, and the gate file and the terminal say so.
``ttsbench merge`` writes the merged run's own manifest, so a merged run edited later is refused too.

Real runs of the plugin (the replay engine) make the artifacts; hypothesis draws the edit, the kind of
run edited and the reader."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plugin_projects import NUMERALS, TRANSCRIPTS, write_project

from pytest_ttsbench.cli import main as ttsbench_main

PLAIN_NUMERALS = NUMERALS.replace("thresholds: {default: 0.5}\n", "")


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = ttsbench_main(list(argv))
    return status, out.getvalue() + err.getvalue()


def _flip_a_verdict(run: Path) -> str:
    results = run / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line)["verdict"] == "wrong")
    lines[index] = json.dumps({**json.loads(lines[index]), "verdict": "correct"}, ensure_ascii=False)
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return "results.jsonl"


def _drop_a_row(run: Path) -> str:
    results = run / "results.jsonl"
    lines = [line for line in results.read_text(encoding="utf-8").splitlines() if json.loads(line)["verdict"]]
    results.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    return "results.jsonl"


def _edit_the_header(run: Path) -> str:
    header = run / "results.run.json"
    document = json.loads(header.read_text(encoding="utf-8"))
    document["repeat_policy"] = "any" if document.get("repeat_policy") != "any" else "all"
    header.write_text(json.dumps(document), encoding="utf-8")
    return "results.run.json"


EDITS: dict[str, Callable[[Path], str]] = {
    "flip a verdict": _flip_a_verdict,
    "drop a row": _drop_a_row,
    "edit the header": _edit_the_header,
}


@pytest.fixture
def recorded(pytester: pytest.Pytester) -> Path:
    """Two shards and their merged run, and a whole run, each as recorded (with its manifest)."""
    write_project(pytester, cases={"demo-numerals.yaml": PLAIN_NUMERALS}, transcripts=TRANSCRIPTS)
    for shard in ("1/2", "2/2"):
        folder = f"runs/s{shard[0]}/results.jsonl"
        pytester.runpytest("--tts-engine=replay", f"--tts-shard={shard}", f"--tts-results={folder}", "-p", "no:xdist")
    pytester.runpytest("--tts-engine=replay", "--tts-results=runs/whole/results.jsonl", "-p", "no:xdist")
    root = pytester.path
    status, said = _cli("merge", str(root / "runs/s1"), str(root / "runs/s2"), "-o", str(root / "runs/merged"))
    assert status == 0, said
    assert (root / "runs/merged/manifest.sha256.json").is_file()  # the merged run has its own manifest
    for run in ("s1", "s2", "whole", "merged"):
        assert _cli("verify", str(root / "runs" / run))[0] == 0
    return root


def _readers(root: Path, edited: Path, other: Path, kind: str) -> dict[str, list[str]]:
    """Each reader that reads ``edited`` (a run of ``kind``), with the argv that makes it read it."""
    rootdir = ["--rootdir", str(root)]
    if kind == "shard":
        return {"merge": ["merge", str(edited), str(root / "runs/s2"), "-o", str(root / "out" / "merged")]}
    return {
        "gate": ["gate", str(edited), *rootdir],
        "gate --tts-baseline": ["gate", str(other), *rootdir, f"--tts-baseline={edited}"],
        "compare (baseline)": ["compare", str(edited), str(other)],
        "compare (candidate)": ["compare", str(other), str(edited)],
        "leaderboard": ["leaderboard", str(edited)],
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edit=st.sampled_from(sorted(EDITS)), kind=st.sampled_from(["shard", "merged", "whole"]), data=st.data())
def test_every_reader_refuses_an_edited_run_and_reads_it_when_allowed(
    recorded: Path, edit: str, kind: str, data: st.DataObject
) -> None:
    work = recorded / "out"
    shutil.rmtree(work, ignore_errors=True)
    edited = work / "edited"
    shutil.copytree(recorded / "runs" / {"shard": "s1", "merged": "merged", "whole": "whole"}[kind], edited)
    changed = EDITS[edit](edited)
    other = recorded / "runs" / ("merged" if kind == "whole" else "whole")
    readers = _readers(recorded, edited, other, kind)
    name = data.draw(st.sampled_from(sorted(readers)))
    status, said = _cli(*readers[name])
    assert status != 0, f"{name} read an edited run: {said}"
    assert "no longer matches its manifest" in said and changed in said, said
    allowed = "--tts-allow-unverified" if name == "gate --tts-baseline" else "--allow-unverified"
    shutil.rmtree(work / "merged", ignore_errors=True)
    status, said = _cli(*readers[name], allowed)
    assert "reads it anyway" not in said, said  # no longer refused for its manifest (maybe for the edit itself)
    if status == 0 or name.startswith("gate"):
        assert "unverified" in said and changed in said, said  # read, and said on the terminal
    if name.startswith("gate"):
        gated = other if name == "gate --tts-baseline" else edited
        gate = json.loads((gated / "results.gate.json").read_text(encoding="utf-8"))
        assert any(changed in note for note in gate["unverified"])  # and recorded in the gate file


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_plugin_refuses_an_edited_baseline(recorded: Path, pytester: pytest.Pytester, edit: str) -> None:
    baseline = recorded / "out" / "base"
    shutil.copytree(recorded / "runs" / "whole", baseline)
    changed = EDITS[edit](baseline)
    args = ["--tts-engine=replay", "--tts-results=out/cand/results.jsonl", f"--tts-baseline={baseline}"]
    refused = pytester.runpytest(*args, "-p", "no:xdist")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines([f"*--tts-baseline*no longer matches its manifest*{changed}*--tts-allow-unverified*"])
    shutil.rmtree(recorded / "out" / "cand", ignore_errors=True)
    read = pytester.runpytest(*args, "--tts-allow-unverified", "-p", "no:xdist")
    read.stdout.fnmatch_lines([f"*--tts-baseline unverified*{changed}*"])
    gate = json.loads((recorded / "out/cand/results.gate.json").read_text(encoding="utf-8"))
    assert any("--tts-baseline" in note and changed in note for note in gate["unverified"])
