"""A `transcripts` profile through pytest gives exactly the verdicts `ttsbench rescore` gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_projects import read_jsonl

from pytest_ttsbench.pipeline.rescore import load_suites, rescore

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cn-news-tts-bench-v0.1"


@pytest.mark.skipif(not SHARED.is_dir(), reason="CN-NewsTTS Bench data not found at ../shared/data")
def test_pytest_replay_matches_rescore(pytester: pytest.Pytester) -> None:
    cases = SHARED / "test_public.jsonl"
    transcripts = SHARED / "aliyun_tts.asr.jsonl"
    pytester.path.joinpath("ttsbench.yaml").write_text(
        f"engines:\n  aliyun: {{type: transcripts, path: '{transcripts}'}}\n", encoding="utf-8"
    )
    result = pytester.runpytest(
        str(cases), f"--rootdir={pytester.path}", "--tts-engine=aliyun", "--tts-results=r.jsonl", "-q"
    )
    rows = read_jsonl(pytester.path / "r.jsonl")
    assert len(rows) == 1008
    from_pytest = {(r["id"].split("/", 1)[1], r["target"]): r["verdict"] for r in rows}
    expected = {
        (r.id.split("/", 1)[1], r.target): r.verdict for r in rescore(load_suites([cases]), transcripts).results
    }
    assert from_pytest == expected
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == 16  # the optional targets: recorded, excluded
    assert outcomes["passed"] == 468
    assert outcomes["failed"] == 250 + 274  # wrong and unknown targets fail
