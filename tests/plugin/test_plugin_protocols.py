"""``pytest --tts-protocol``: the verdicts pytest gives, records and compares with a baseline."""

from __future__ import annotations

import json

import pytest
from plugin_projects import read_jsonl

CASES = """\
suite: scores
language: zh
scorer: readings
items:
  - id: s1
    category: sports_score
    text: "主队以6-4获胜。"
    expect: {targets: [{span: "6-4", positive: ["六比四"], negative: ["六减四"]}]}
  - id: s2
    category: sports_score
    text: "客队以7-5获胜。"
    expect: {targets: [{span: "7-5", positive: ["七比五"], negative: ["七减五"]}]}
"""


def _project(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("cases").mkdir()
    pytester.path.joinpath("cases", "scores.yaml").write_text(CASES, encoding="utf-8")
    heard = {"s1": "主队以六至四获胜。", "s2": "客队以七比五获胜。"}
    pytester.path.joinpath("heard.jsonl").write_text(
        "".join(json.dumps({"id": k, "text": v}, ensure_ascii=False) + "\n" for k, v in heard.items()),
        encoding="utf-8",
    )
    pytester.path.joinpath("ttsbench.yaml").write_text(
        "engines:\n  voice: {type: transcripts, path: heard.jsonl}\n", encoding="utf-8"
    )


def test_tts_protocol_gives_the_verdicts_and_is_recorded(pytester: pytest.Pytester) -> None:
    _project(pytester)
    common = ["cases", f"--rootdir={pytester.path}", "--tts-engine=voice", "-q"]
    published = pytester.runpytest(*common, "--tts-results=published.jsonl", "--tts-protocol=published")
    assert published.parseoutcomes()["failed"] == 1  # 六至四: unknown to the benchmark's matcher
    rows = read_jsonl(pytester.path / "published.jsonl")
    assert {r["protocol"] for r in rows} == {"published"}
    assert {r["id"]: (r["verdict"], r["protocols"]["strict"]["verdict"]) for r in rows} == {
        "scores/s1": ("unknown", "wrong"),
        "scores/s2": ("correct", "correct"),
    }
    header = json.loads((pytester.path / "published.run.json").read_text(encoding="utf-8"))
    assert header["protocol"] == "published"
    # a strict run against that baseline compares strict with strict: nothing regressed
    strict = pytester.runpytest(*common, "--tts-results=strict.jsonl", "--tts-baseline=published.jsonl")
    assert strict.parseoutcomes()["failed"] == 1  # 六至四: wrong, strictly
    assert {r["protocol"] for r in read_jsonl(pytester.path / "strict.jsonl")} == {"strict"}
    strict.stdout.fnmatch_lines(
        ["*2 paired target(s): 0 regression(s), 0 fix(es), 2 unchanged*", "*protocol: published → strict*"]
    )
