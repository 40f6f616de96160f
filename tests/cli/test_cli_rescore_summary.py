"""`ttsbench rescore --json`: each summary bucket has unknown rate, disagreement, exclusions, per-route figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ttsbench.cli import main

CASES = """\
suite: news
language: zh
scorer: readings
items:
  - id: m1
    category: military_model
    facets: {form: dash}
    text: "歼-20亮相。"
    expect: {targets: [{span: "歼-20", positive: ["歼二十"], negative: ["歼负二十"]}]}
  - id: m2
    category: military_model
    facets: {form: dash}
    text: "运-20亮相。"
    expect: {targets: [{span: "运-20", positive: ["运二十"], negative: ["运负二十"]}]}
  - id: m3
    category: military_model
    facets: {form: plain}
    text: "直-10亮相。"
    expect:
      targets:
        - {span: "直-10", positive: ["直十"], negative: ["直负十"]}
        - {span: "亮相", category: homograph, positive: ["亮相"], negative: [], auto_evaluable: false}
"""

# Two routes. m1: both hear the right reading; m2: they split (one right, one forbidden);
# m3: route a hears the forbidden reading, route b has no row for it at all.
ROWS = [
    {"id": "news/m1", "asr": {"a": "歼二十亮相。", "b": "歼二十亮相"}},
    {"id": "news/m2", "asr": {"a": "运二十亮相。", "b": "运负二十亮相。"}},
    {"id": "news/m3", "asr": {"a": "直负十亮相。"}},
]


@pytest.fixture
def summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    (tmp_path / "news.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    assert main(["rescore", str(tmp_path / "news.yaml"), "--transcripts", str(tmp_path / "t.jsonl"), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["routes"] == ["a", "b"]
    return payload["summary"]


def test_overall_bucket(summary: dict) -> None:
    overall = summary["overall"]
    # m1 correct (2/2), m2 split → unknown, m3 one wrong of two routes → unknown; the optional target is excluded
    assert (overall["n"], overall["correct"], overall["wrong"], overall["unknown"], overall["excluded"]) == (
        3,
        1,
        0,
        2,
        1,
    )
    assert overall["unknown_rate"] == pytest.approx(2 / 3)
    # m2 splits correct/wrong and m3 splits wrong/unknown: two of three are not unanimous
    assert overall["disagreement_rate"] == pytest.approx(2 / 3)
    assert overall["routes"] == {
        "a": {"n": 3, "correct": 2, "wrong": 1, "unknown": 0, "error": 0, "strict_accuracy": pytest.approx(2 / 3)},
        "b": {"n": 3, "correct": 1, "wrong": 1, "unknown": 1, "error": 0, "strict_accuracy": pytest.approx(1 / 3)},
    }


def test_breakdown_buckets_carry_the_same_figures(summary: dict) -> None:
    military = summary["by_category"]["military_model"]
    assert (military["n"], military["excluded"], military["unknown_rate"]) == (3, 0, pytest.approx(2 / 3))
    homograph = summary["by_category"]["homograph"]  # only the optional target: nothing to rate
    assert (homograph["n"], homograph["excluded"], homograph["unknown_rate"], homograph["disagreement_rate"]) == (
        0,
        1,
        None,
        None,
    )
    dash, plain = summary["by_facet"]["form"]["dash"], summary["by_facet"]["form"]["plain"]
    assert (dash["correct"], dash["unknown"], dash["disagreement_rate"]) == (1, 1, pytest.approx(0.5))
    assert dash["routes"]["b"]["wrong"] == 1 and dash["routes"]["a"]["correct"] == 2
    assert (plain["n"], plain["excluded"], plain["routes"]["a"]["wrong"], plain["routes"]["b"]["unknown"]) == (
        1,
        1,
        1,
        1,
    )
