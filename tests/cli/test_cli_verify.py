"""Run manifests: written by `ttsbench rescore --out` and by a pytest run; `ttsbench verify` names what changed."""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

import pytest

from pytest_ttsbench.cli import main

CASES = """\
suite: demo
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "In 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, text: "In 1999.", expect: {values: ["1999"]}}
"""
TRANSCRIPTS = [{"id": "demo/a", "text": "In 2026."}, {"id": "demo/b", "text": "In 1989."}]


def _rescored_run(tmp_path: Path, out: str = "run/results.jsonl") -> Path:
    (tmp_path / "demo.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TRANSCRIPTS), encoding="utf-8")
    results = tmp_path / out
    args = ["rescore", str(tmp_path / "demo.yaml"), "--transcripts", str(tmp_path / "t.jsonl"), "--out", str(results)]
    assert main(args) == 0
    return results


def _verify(capsys: pytest.CaptureFixture[str], *runs: Path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", *(str(r) for r in runs)])
    return code, capsys.readouterr().out


def test_untouched_run_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _rescored_run(tmp_path)
    manifest = json.loads((results.parent / "manifest.sha256.json").read_text(encoding="utf-8"))
    files = manifest["files"]
    assert files["results.jsonl"]["role"] == "output"
    assert files["results.jsonl"]["sha256"] == hashlib.sha256(results.read_bytes()).hexdigest()
    assert files[str((tmp_path / "demo.yaml").resolve())]["role"] == "input"
    assert files[str((tmp_path / "t.jsonl").resolve())]["role"] == "input"
    for run in (results.parent, results):  # a run folder or its results file
        code, out = _verify(capsys, run)
        assert code == 0
        assert "OK (4 file(s) match)" in out  # results, their run header, the case file, the transcripts


def test_modified_results_fail_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _rescored_run(tmp_path)
    results.write_text(results.read_text(encoding="utf-8").replace('"wrong"', '"correct"'), encoding="utf-8")
    code, out = _verify(capsys, results.parent)
    assert code == 1
    assert "MISMATCH" in out and "  modified: results.jsonl" in out


def test_changed_input_missing_and_added_files_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _rescored_run(tmp_path)
    (tmp_path / "t.jsonl").write_text('{"id": "demo/b", "text": "In 1999."}\n', encoding="utf-8")
    (results.parent / "notes.txt").write_text("added later", encoding="utf-8")
    code, out = _verify(capsys, results.parent)
    assert code == 1
    assert f"  modified: {(tmp_path / 't.jsonl').resolve()}" in out
    assert "  added: notes.txt" in out
    (tmp_path / "demo.yaml").unlink()
    code, out = _verify(capsys, results.parent)
    assert code == 1
    assert f"  missing: {(tmp_path / 'demo.yaml').resolve()}" in out


def test_named_results_files_share_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _rescored_run(tmp_path, "out/first.jsonl")
    second = _rescored_run(tmp_path, "out/second.jsonl")
    assert (first.parent / "first.manifest.sha256.json").is_file()
    assert (first.parent / "second.manifest.sha256.json").is_file()
    code, out = _verify(capsys, first.parent)  # both manifests checked; neither claims the other's files
    assert code == 0 and out.count("OK") == 2
    second.write_text("", encoding="utf-8")
    code, out = _verify(capsys, first, second)
    assert code == 1
    assert "first.manifest.sha256.json: OK" in out
    assert "  modified: second.jsonl" in out


def test_run_without_manifest_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path)]) == 2
    assert "no manifest.sha256.json" in capsys.readouterr().err


PYTEST_CASES = """\
suite: demo-numerals
language: en
scorer: numbers
items:
  - {id: year-2026, category: years, text: "The plant opened in 2026.", expect: {values: ["2026"]}}
  - {id: pct-45, category: percentages, text: "Turnout reached 45%.", expect: {values: ["45"]}}
"""


def _pytest_project(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "demo.yaml").write_text(PYTEST_CASES, encoding="utf-8")
    rows = [
        {"id": "demo-numerals/year-2026", "text": "The plant opened in 2026."},
        {"id": "demo-numerals/pct-45", "text": "Turnout reached 54 percent."},
    ]
    (pytester.path / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (pytester.path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            """\
            runs_dir: runs
            engines:
              replay: {type: transcripts, path: replay.jsonl}
            """
        ),
        encoding="utf-8",
    )


def test_pytest_run_writes_a_manifest_that_verifies(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _pytest_project(pytester)
    pytester.runpytest("--tts-engine=replay").assert_outcomes(passed=1, failed=1)
    (run,) = (pytester.path / "runs").iterdir()
    manifest = json.loads((run / "manifest.sha256.json").read_text(encoding="utf-8"))
    root = pytester.path.resolve()
    inputs = {"cases/demo.yaml", "replay.jsonl", "ttsbench.yaml"}  # relative to the project, never absolute
    roles = {key: entry["role"] for key, entry in manifest["files"].items()}
    assert {key for key, role in roles.items() if role == "input"} == inputs
    assert all(manifest["files"][key]["root"] == "project" for key in inputs)
    assert roles["results.jsonl"] == "output"
    # anything else the run left in its folder (a gate report, say) is an output, named relative to it
    assert all(not Path(key).is_absolute() for key, role in roles.items() if role == "output")
    code, out = _verify(capsys, run)
    assert code == 0, out
    (root / "cases" / "demo.yaml").write_text(PYTEST_CASES.replace("45", "46"), encoding="utf-8")
    code, out = _verify(capsys, run)
    assert code == 1
    assert "  modified: cases/demo.yaml" in out


def test_xdist_controller_writes_the_manifest(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    _pytest_project(pytester)
    pytester.runpytest_subprocess("-n", "2", "--tts-engine=replay", "--tts-results=out/r.jsonl")
    manifest = json.loads((pytester.path / "out" / "r.manifest.sha256.json").read_text(encoding="utf-8"))
    # the controller collects nothing itself: the case file comes from the results' node ids
    assert manifest["files"]["cases/demo.yaml"]["root"] == "project"
    assert manifest["files"]["r.jsonl"]["role"] == "output"
    code, out = _verify(capsys, pytester.path / "out" / "r.jsonl")
    assert code == 0, out
