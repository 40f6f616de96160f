"""`ttsbench rescore --guard SLICE --out RESULTS`: refuse to overwrite results when a guarded slice moved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ttsbench.cli import main

CASES = """\
suite: demo
language: en
scorer: numbers
items:
  - {id: a, category: years, facets: {form: western}, text: "In 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, facets: {form: spelled}, text: "In 1999.", expect: {values: ["1999"]}}
  - {id: c, category: percentages, facets: {form: western}, text: "Up 45%.", expect: {values: ["45"]}}
  - {id: d, category: percentages, facets: {form: spelled}, text: "Down 7%.", expect: {values: ["7"]}}
"""
BASELINE = {"a": "In 2026.", "b": "In 1999.", "c": "Up 45 percent.", "d": "Down 7 percent."}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "demo.yaml").write_text(CASES, encoding="utf-8")
    assert _rescore(tmp_path, BASELINE) == 0
    return tmp_path


def _rescore(folder: Path, heard: dict[str, str], *guards: str) -> int:
    transcripts = folder / "t.jsonl"
    transcripts.write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in heard.items()), encoding="utf-8")
    args = ["rescore", str(folder / "demo.yaml"), "--transcripts", str(transcripts), "--out", str(folder / "r.jsonl")]
    return main([*args, *(f"--guard={g}" for g in guards)])


def _verdicts(folder: Path) -> dict[str, str]:
    lines = (folder / "r.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["id"]: row["verdict"] for row in map(json.loads, lines)}


def test_guarded_slice_that_moved_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (project / "r.jsonl").read_bytes()
    capsys.readouterr()
    code = _rescore(project, {**BASELINE, "b": "In 1989.", "c": "Up 54 percent."}, "category=years")
    assert code == 1
    err = capsys.readouterr().err
    assert "refusing to overwrite" in err and "1 verdict(s) moved in guarded slice(s) category=years" in err
    assert "demo/b on transcripts: correct -> wrong [category=years]" in err
    assert "demo/c" not in err  # an unguarded move is not what refused the write
    assert (project / "r.jsonl").read_bytes() == before


def test_facet_slice_is_guarded_too(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert _rescore(project, {**BASELINE, "d": "Down 70 percent."}, "form=spelled") == 1
    assert "demo/d on transcripts: correct -> wrong [form=spelled]" in capsys.readouterr().err
    # the same move under a guard on the other form is allowed
    assert _rescore(project, {**BASELINE, "d": "Down 70 percent."}, "form=western") == 0
    assert _verdicts(project)["demo/d"] == "wrong"


def test_moves_only_outside_guarded_slices_are_written(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = _rescore(project, {**BASELINE, "c": "Up 54 percent.", "d": "Down 70 percent."}, "category=years")
    assert code == 0
    assert "2 verdict(s) moved outside the guarded slices" in capsys.readouterr().err
    assert _verdicts(project) == {"demo/a": "correct", "demo/b": "correct", "demo/c": "wrong", "demo/d": "wrong"}


def test_several_guards_each_protect_their_slice(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = _rescore(project, {**BASELINE, "a": "", "c": "Up 54 percent."}, "category=years", "facet:form=western")
    assert code == 1
    err = capsys.readouterr().err
    assert "2 verdict(s) moved" in err
    assert "demo/a on transcripts: correct -> wrong [category=years, form=western]" in err
    assert "demo/c on transcripts: correct -> wrong [form=western]" in err


def test_unchanged_verdicts_and_first_write_pass(tmp_path: Path) -> None:
    (tmp_path / "demo.yaml").write_text(CASES, encoding="utf-8")
    assert _rescore(tmp_path, BASELINE, "category=years") == 0  # nothing stored yet: nothing to compare
    assert _rescore(tmp_path, BASELINE, "category=years") == 0
    assert set(_verdicts(tmp_path).values()) == {"correct"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--guard", "category=years"], "--guard needs --out"),
        (["--guard", "years", "--out", "r.jsonl"], "expected NAME=VALUE"),
        (["--guard", "category=", "--out", "r.jsonl"], "expected NAME=VALUE"),
    ],
)
def test_guard_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    (tmp_path / "demo.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "t.jsonl").write_text("", encoding="utf-8")
    code = main(["rescore", str(tmp_path / "demo.yaml"), "--transcripts", str(tmp_path / "t.jsonl"), *args])
    assert code == 2
    assert message in capsys.readouterr().err
