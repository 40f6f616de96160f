"""Benchmark loaders keep the seeds' own fields: CN-NewsTTS offsets, rationale and metadata, the
Thai eval set's ``meta`` strata as facets, and every field they do not read, in each result row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_projects import read_jsonl, write_project

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file
from pytest_ttsbench.cli import main
from pytest_ttsbench.pipeline.rescore import rescore

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cn-news-tts-bench-v0.1"
needs_data = pytest.mark.skipif(not SHARED.is_dir(), reason="CN-NewsTTS Bench data not found at ../shared/data")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@needs_data
def test_cn_news_rows_keep_target_offsets_rationale_and_item_metadata() -> None:
    cases = SHARED / "test_public.jsonl"
    records = {r["id"]: r for r in _jsonl(cases)}
    results = rescore([load_case_file(cases)], SHARED / "aliyun_tts.asr.jsonl").results
    assert len(results) == 1008
    for result in results:
        record = records[result.item_id]
        (target,) = [t for t in record["targets"] if t["span"] == result.target]
        assert (result.expected["start"], result.expected["end"]) == (target["start"], target["end"])
        assert record["text"][target["start"] : target["end"]] == result.target
        assert result.expected["rationale"] == target["rationale"]
        assert result.metadata == {k: record[k] for k in ("split", "source", "metadata")}
    assert results[0].metadata["metadata"]["template_id"] == "military_model_v1"


@needs_data
def test_cn_news_unknown_fields_are_kept_in_the_results(tmp_path: Path) -> None:
    records = _jsonl(SHARED / "test_public.jsonl")[:3]
    records[0]["reviewer"] = "second pass"
    records[0]["targets"][0]["difficulty"] = {"level": 3}
    cases = _write_jsonl(tmp_path / "test_public.jsonl", records)
    transcripts = _write_jsonl(
        tmp_path / "asr.jsonl",
        [r for r in _jsonl(SHARED / "aliyun_tts.asr.jsonl") if r["id"] in {x["id"] for x in records}],
    )
    results = rescore([load_case_file(cases)], transcripts).results
    first = [r for r in results if r.item_id == records[0]["id"]]
    assert all(r.metadata["reviewer"] == "second pass" for r in first)
    by_span = {r.target: r for r in first}
    assert by_span["F-35"].expected["extra"] == {"difficulty": {"level": 3}}
    assert "extra" not in by_span["苏-27"].expected
    assert all("reviewer" not in r.metadata for r in results if r.item_id != records[0]["id"])


def test_bad_offsets_are_refused_naming_the_item_and_field(tmp_path: Path) -> None:
    record = {
        "id": "t1",
        "split": "dev",
        "domain": "sports",
        "text": "比分6-4。",
        "targets": [{"span": "6-4", "category": "sports_score", "positive_readings": ["六比四"], "start": "2"}],
    }
    with pytest.raises(CaseFileError) as caught:
        load_case_file(_write_jsonl(tmp_path / "dev.jsonl", [record]))
    (problem,) = caught.value.problems
    assert (problem.item, problem.field) == ("t1", "expect.targets[0].start")


THAI_EVAL_SET = [
    {
        "id": "kw_0001",
        "category": "rare_words",
        "text": "เขาชอบกินทุเรียน",
        "keyword": "ทุเรียน",
        "expected": "ทุเรียน",
        "alternates": [],
        "meta": {"freq_band": "low", "kw_position": "end", "length_bucket": "short", "name_type": "none"},
        "annotator": "a1",
    },
    {
        "id": "kw_0002",
        "category": "rare_words",
        "text": "มังคุดหวานมาก",
        "keyword": "มังคุด",
        "expected": "มังคุด",
        "alternates": [],
        "meta": {"freq_band": "high", "kw_position": "start", "length_bucket": "short", "name_type": "none"},
    },
    {
        "id": "kw_0003",
        "category": "names",
        "text": "คุณสมชายมาแล้ว",
        "keyword": "สมชาย",
        "expected": "สมชาย",
        "alternates": [],
        "meta": {"freq_band": "low", "kw_position": "middle", "length_bucket": "short", "name_type": "person"},
    },
]


def test_thai_meta_strata_are_facets_and_break_the_summary_down(pytester: pytest.Pytester) -> None:
    bench = _write_jsonl(pytester.path / "eval_set.jsonl", THAI_EVAL_SET)
    write_project(
        pytester,
        cases={},
        transcripts={"kw_0001": "เขาชอบกินทุเรียน", "kw_0002": "มังคุดหวานมาก", "kw_0003": "คุณสมศรีมาแล้ว"},
    )
    result = pytester.runpytest(
        str(bench), "--tts-engine=replay", "--tts-results=r.jsonl", "--tts-breakdown", "freq_band"
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["by facet 'freq_band':", "*replay*th-eval-set*high*1*1*0*", "*replay*th-eval-set*low*2*1*1*"]
    )
    rows = {r["id"]: r for r in read_jsonl(pytester.path / "r.jsonl")}
    first = rows["th-eval-set/kw_0001"]
    assert first["facets"] == {"freq_band": "low", "kw_position": "end", "length_bucket": "short", "name_type": "none"}
    assert first["metadata"] == {"meta": THAI_EVAL_SET[0]["meta"], "annotator": "a1"}
    assert rows["th-eval-set/kw_0003"]["facets"]["name_type"] == "person"
    assert "annotator" not in rows["th-eval-set/kw_0002"]["metadata"]


def test_thai_eval_set_contracts_are_recorded_and_never_mixed_silently(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        dict(r, text_mono=r["text"], text_bilingual=r["text"] + " (" + r["keyword"] + ")") for r in THAI_EVAL_SET
    ]
    bench = _write_jsonl(pytester.path / "eval_set.jsonl", records)
    write_project(
        pytester,
        cases={},
        transcripts={"kw_0001": "เขาชอบกินทุเรียน", "kw_0002": "มังคุดหวานมาก", "kw_0003": "คุณสมชายมาแล้ว"},
    )
    for contract in ("mono", "bilingual"):
        run = pytester.runpytest(
            str(bench), "--tts-engine=replay", f"--tts-contract={contract}", f"--tts-results={contract}/results.jsonl"
        )
        run.assert_outcomes(passed=3)
        rows = read_jsonl(pytester.path / contract / "results.jsonl")
        assert {row["contract"] for row in rows} == {contract}
    assert {r["text"] for r in read_jsonl(pytester.path / "bilingual" / "results.jsonl")} == {
        r["text_bilingual"] for r in records
    }
    mono, bilingual = (str(pytester.path / c) for c in ("mono", "bilingual"))
    capsys.readouterr()
    assert main(["leaderboard", mono, bilingual]) == 2
    assert "different text contracts" in capsys.readouterr().err
    assert main(["compare", f"{mono}/results.jsonl", f"{bilingual}/results.jsonl"]) == 2
    assert main(["leaderboard", mono, bilingual, "--allow-contract-mix"]) == 0
