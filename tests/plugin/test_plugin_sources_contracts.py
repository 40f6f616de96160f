"""Configuration in pyproject.toml, text contracts, external benchmark files, and failed clips kept."""

from __future__ import annotations

import json
import wave
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, THAI, read_jsonl, write_project


def test_profiles_from_pyproject(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": NUMERALS}, config="")
    (pytester.path / "ttsbench.yaml").unlink()
    pytester.makepyprojecttoml(
        '[tool.ttsbench]\nruns_dir = "out"\n[tool.ttsbench.engines.fromtoml]\ntype = "transcripts"\n'
        'path = "runs/replay.jsonl"\n'
    )
    result = pytester.runpytest("--tts-engine=fromtoml")
    result.assert_outcomes(passed=2, failed=1)
    assert len(list((pytester.path / "out").glob("*/results.jsonl"))) == 1


@pytest.mark.parametrize("contract", ["raw", "mono", "bilingual"])
def test_contract_chooses_the_text_sent_and_is_recorded(pytester: pytest.Pytester, contract: str) -> None:
    # The replay engine answers by id, so what the contract changed shows in the recorded text.
    write_project(pytester, cases={"th.yaml": THAI}, transcripts={"demo-th/cs-1": "ผมติดตั้งแอปไลน์ใหม่"})
    pytester.runpytest("--tts-engine=replay", "--tts-results=r.jsonl", f"--tts-contract={contract}")
    (row,) = read_jsonl(pytester.path / "r.jsonl")
    expected_text = {
        "raw": "ผมติดตั้งแอป LINE ใหม่",
        "mono": "ผมติดตั้งแอปไลน์ใหม่",
        "bilingual": "ผมติดตั้งแอป LINE (ไลน์) ใหม่",
    }[contract]
    assert row["contract"] == contract
    assert row["text"] == expected_text
    assert row["verdict"] == "correct"


def test_thai_eval_set_loads_directly(pytester: pytest.Pytester) -> None:
    records = [
        {
            "id": "cs_0001",
            "category": "code_switch",
            "text": "ผมใช้ LINE ทุกวัน",
            "text_mono": "ผมใช้ไลน์ทุกวัน",
            "text_bilingual": "ผมใช้ LINE (ไลน์) ทุกวัน",
            "keyword": "LINE",
            "expected": "ไลน์",
            "alternates": ["LINE"],
            "meta": {"source": "written for this test"},
        },
        {
            "id": "rw_0002",
            "category": "rare_words",
            "text": "เขาชอบกินทุเรียน",
            "text_mono": "",
            "text_bilingual": "",
            "keyword": "ทุเรียน",
            "expected": "ทุเรียน",
            "alternates": [],
            "meta": {},
        },
    ]
    bench = pytester.path / "eval_set.jsonl"
    bench.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    write_project(
        pytester,
        cases={},
        transcripts={"cs_0001": "ผมใช้ไลน์ทุกวัน", "rw_0002": "เขาชอบกินทุเรียนมาก"},
    )
    collected = pytester.runpytest(str(bench), "--tts-engine=replay", "--collect-only", "-q", "-k", "code_switch")
    collected.stdout.fnmatch_lines(["eval_set.jsonl::th-eval-set[[]code_switch/cs_0001[]]", "1/2 tests collected*"])
    result = pytester.runpytest(str(bench), "--tts-engine=replay", "--tts-results=r.jsonl", "--tts-contract=mono")
    result.assert_outcomes(passed=2)
    texts = {r["id"]: r["text"] for r in read_jsonl(pytester.path / "r.jsonl")}
    assert texts["th-eval-set/cs_0001"] == "ผมใช้ไลน์ทุกวัน"


def _silent_wav(path: Path, seconds: float = 2.0) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(b"\x00\x00" * int(16_000 * seconds))


def test_a_failed_audio_check_is_an_error_and_the_clip_is_kept(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": NUMERALS}, config="engines:\n  clips: {type: audio-dir, path: clips}\n")
    (pytester.path / "clips").mkdir()
    _silent_wav(pytester.path / "clips" / "year-2026.wav")
    pytester.path.joinpath("clips", "pct-45.wav").write_bytes(b"<html><title>Service Unavailable</title></html>")
    result = pytester.runpytest("--tts-engine=clips", "--tts-results=out/r.jsonl", "-k", "year or pct")
    result.assert_outcomes(failed=3)  # the two items, and the gate: an error is not a measurement
    result.stdout.fnmatch_lines(["*--tts-max-error-rate*"])
    rows = {r["id"]: r for r in read_jsonl(pytester.path / "out" / "r.jsonl")}
    silent = rows["demo-numerals/year-2026"]
    assert silent["verdict"] == "error"
    assert "silent clip" in silent["error"]
    assert (pytester.path / "out" / silent["audio_path"]).is_file()  # kept with its reason, relative to the run
    assert silent["transcript"] is None  # no ASR on a clip that failed its checks
    broken = rows["demo-numerals/pct-45"]
    assert broken["verdict"] == "error" and "HTML/XML document" in broken["error"]
    assert (pytester.path / "out" / broken["audio_path"]).read_bytes().startswith(b"<html>")
    result.stdout.fnmatch_lines(["error on clips: audio check failed*"])
    summary = [line.split() for line in result.stdout.lines if line.split()[:3] == ["clips", "demo-numerals", "(all)"]]
    assert summary and summary[0][3:8] == ["2", "0", "0", "0", "2"]  # n, correct, wrong, unknown, error
