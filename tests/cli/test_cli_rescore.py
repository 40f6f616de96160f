"""`ttsbench rescore`: verdicts and summary from stored transcripts, no synthesis, no ASR."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from processes import run

from pytest_ttsbench.cli import main

CASES = """\
suite: demo
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "In 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, text: "In 1999.", expect: {values: ["1999"]}}
  - {id: c, category: percentages, text: "Up 45%.", expect: {values: ["45"]}}
"""


def _write(tmp_path: Path, rows: list[dict], cases: str = CASES) -> tuple[Path, Path]:
    case_file = tmp_path / "demo.yaml"
    case_file.write_text(cases, encoding="utf-8")
    transcripts = tmp_path / "t.jsonl"
    transcripts.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return case_file, transcripts


def _run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["rescore", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_summary_and_missing_transcripts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(tmp_path, [{"id": "demo/a", "text": "In 2026."}, {"id": "b", "text": "In 1989."}])
    payload = _run_json(capsys, str(case_file), "--transcripts", str(transcripts))
    verdicts = {item["id"]: item["verdict"] for item in payload["items"]}
    assert verdicts == {"demo/a": "correct", "demo/b": "wrong", "demo/c": "unknown"}
    assert payload["missing_transcripts"] == ["demo/c"]
    overall = payload["summary"]["overall"]
    assert (overall["n"], overall["correct"], overall["wrong"], overall["unknown"]) == (3, 1, 1, 1)
    assert overall["strict_accuracy"] == pytest.approx(1 / 3)
    assert overall["coverage"] == pytest.approx(2 / 3)
    assert overall["resolved_accuracy"] == pytest.approx(0.5)
    low, high = overall["ci95"]
    assert 0 < low < 1 / 3 < high < 1
    years = payload["summary"]["by_category"]["years"]
    assert (years["n"], years["correct"], years["wrong"]) == (2, 1, 1)


def test_text_output_lists_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(tmp_path, [{"id": "demo/a", "text": "In 2026."}])
    assert main(["rescore", str(case_file), "--transcripts", str(transcripts)]) == 0
    out = capsys.readouterr().out
    assert "2 target(s) with no transcript (counted unknown):" in out
    assert "  demo/b" in out and "  demo/c" in out


def test_ambiguous_bare_id_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(tmp_path, [{"id": "a", "text": "In 2026."}])
    (tmp_path / "other.yaml").write_text(CASES.replace("suite: demo", "suite: other"), encoding="utf-8")
    code = main(["rescore", str(case_file), str(tmp_path / "other.yaml"), "--transcripts", str(transcripts)])
    assert code == 2
    assert "bare id(s) a match items of several suites" in capsys.readouterr().err


def test_bad_case_file_is_reported_with_its_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(tmp_path, [], cases=CASES.replace('values: ["45"]', "values: 45"))
    assert main(["rescore", str(case_file), "--transcripts", str(transcripts)]) == 2
    assert "item 'c': field 'expect.values': 45 is not of type 'array'" in capsys.readouterr().err


def test_results_file_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(tmp_path, [{"id": "demo/a", "text": "In 2026."}])
    out = tmp_path / "res.jsonl"
    assert main(["rescore", str(case_file), "--transcripts", str(transcripts), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["verdict"] for r in rows] == ["correct", "unknown", "unknown"]


SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cn-news-tts-bench-v0.1"


@pytest.mark.skipif(not SHARED.is_dir(), reason="CN-NewsTTS Bench data not found at ../shared/data")
def test_console_script_scores_the_published_aliyun_transcripts() -> None:
    completed = run(
        [
            sys.executable,
            "-m",
            "pytest_ttsbench.cli",
            "rescore",
            str(SHARED / "test_public.jsonl"),
            "--transcripts",
            str(SHARED / "aliyun_tts.asr.jsonl"),
            "--json",
        ],
    )
    overall = json.loads(completed.stdout)["summary"]["overall"]
    # The published correct count and strict accuracy; more wrong and fewer unknown than published
    # (61 / 463), as aliyun reads scores as ranges (至), which our readings rules forbid; the
    # calibration test in tests/gating reproduces every published figure rule by rule.
    assert (overall["correct"], overall["wrong"], overall["unknown"], overall["excluded"]) == (468, 250, 274, 16)
    assert round(overall["strict_accuracy"], 6) == 0.471774
    assert round(overall["resolved_accuracy"], 6) == 0.651811
    assert round(overall["coverage"], 6) == 0.72379


def test_repeated_ids_are_reported_and_the_last_row_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(
        tmp_path,
        [{"id": "demo/a", "text": "In 1999."}, {"id": "demo/a", "text": "In 2026."}, {"id": "demo/b", "text": "1999"}],
    )
    payload = _run_json(capsys, str(case_file), "--transcripts", str(transcripts))
    assert payload["overwritten_transcripts"] == ["demo/a"]
    assert {i["id"]: i["verdict"] for i in payload["items"]}["demo/a"] == "correct"
    assert main(["rescore", str(case_file), "--transcripts", str(transcripts)]) == 0
    assert "1 id(s) had more than one transcript row; the last one was used: demo/a" in capsys.readouterr().out


def test_routes_of_one_id_may_come_from_separate_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file, transcripts = _write(
        tmp_path,
        [{"id": "demo/a", "asr": {"r1": "In 2026."}}, {"id": "demo/a", "asr": {"r2": "In 2026."}}],
    )
    payload = _run_json(capsys, str(case_file), "--transcripts", str(transcripts))
    assert payload["overwritten_transcripts"] == []
    item = next(i for i in payload["items"] if i["id"] == "demo/a")
    assert item["transcripts"] == {"r1": "In 2026.", "r2": "In 2026."}
    assert item["verdict"] == "correct"
