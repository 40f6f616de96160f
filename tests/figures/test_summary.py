"""Buckets: hand-counted small examples for every figure, grouping, facets, exclusions."""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest
from result_rows import make_result

from pytest_ttsbench.figures.summary import Bucket, overall, summarize
from pytest_ttsbench.run_model.results import MISSING, ItemResult
from pytest_ttsbench.support.stats import wilson_interval

_ids = count()


def row(verdict: str, routes: dict[str, str] | None = None, **fields: Any) -> ItemResult:
    base: dict[str, Any] = {
        "engine": "e1",
        "id": f"s/{next(_ids)}",
        "category": "c1",
        "language": "zh",
        "verdict": verdict,
        "expected": None,
        "route_verdicts": routes or {},
    }
    return make_result(**{**base, **fields})


A_FEW = [
    row("correct", {"a": "correct", "b": "correct", "c": "unknown"}),  # disagreement
    row("wrong", {"a": "wrong", "b": "wrong", "c": "wrong"}),
    row("unknown", {"a": "correct", "b": "unknown", "c": "wrong"}),  # disagreement
    row("error", {"a": "error", "b": "error", "c": "error"}),
    row("correct", {"a": "correct", "b": "correct", "c": "correct"}, auto_evaluable=False),  # excluded
]


def test_counts_and_rates_by_hand() -> None:
    b = overall(A_FEW)
    assert (b.n, b.correct, b.wrong, b.unknown, b.error, b.excluded) == (4, 1, 1, 1, 1, 1)
    assert b.strict_accuracy == 1 / 4  # the error and the unknown stay in the denominator
    assert b.coverage == 2 / 4
    assert b.resolved_accuracy == 1 / 2
    assert b.unknown_rate == 1 / 4
    assert b.disagreement_rate == 2 / 4
    assert b.ci95 == wilson_interval(1, 4)


def test_per_route_figures_by_hand() -> None:
    routes = overall(A_FEW).routes
    assert sorted(routes) == ["a", "b", "c"]
    a, b, c = routes["a"], routes["b"], routes["c"]
    assert (a.n, a.correct, a.wrong, a.unknown, a.error) == (4, 2, 1, 0, 1)
    assert (b.n, b.correct, b.wrong, b.unknown, b.error) == (4, 1, 1, 1, 1)
    assert (c.n, c.correct, c.wrong, c.unknown, c.error) == (4, 0, 2, 1, 1)
    assert (a.strict_accuracy, b.strict_accuracy, c.strict_accuracy) == (0.5, 0.25, 0.0)


def test_a_route_missing_on_a_target_counts_as_unknown_for_that_route() -> None:
    b = overall([row("correct", {"a": "correct", "b": "correct"}), row("correct", {"a": "correct"})])
    assert b.routes["b"].n == 2
    assert b.routes["b"].unknown == 1
    assert b.routes["b"].strict_accuracy == 0.5


def test_to_dict_has_exactly_the_agreed_keys_and_full_precision() -> None:
    d = overall([row("correct"), row("correct"), row("wrong")]).to_dict()
    assert list(d) == [
        "n",
        "correct",
        "wrong",
        "unknown",
        "error",
        "excluded",
        "strict_accuracy",
        "coverage",
        "resolved_accuracy",
        "unknown_rate",
        "disagreement_rate",
        "ci95",
        "routes",
    ]
    assert d["strict_accuracy"] == 2 / 3  # not rounded
    assert d["ci95"] == list(wilson_interval(2, 3))
    assert d["routes"] == {}


def test_to_dict_routes() -> None:
    d = overall(A_FEW).to_dict()["routes"]
    assert d["c"] == {"n": 4, "correct": 0, "wrong": 2, "unknown": 1, "error": 1, "strict_accuracy": 0.0}


def test_empty_bucket_has_counts_but_no_rates() -> None:
    b = overall([])
    assert b == Bucket()
    d = b.to_dict()
    assert d["n"] == 0
    for key in (
        "strict_accuracy",
        "coverage",
        "resolved_accuracy",
        "unknown_rate",
        "disagreement_rate",
        "ci95",
    ):
        assert d[key] is None, key


def test_only_excluded_targets_give_an_empty_bucket_that_still_reports_them() -> None:
    b = overall([row("wrong", auto_evaluable=False), row("correct", auto_evaluable=False)])
    assert (b.n, b.excluded, b.strict_accuracy) == (0, 2, None)


def test_resolved_accuracy_is_none_when_nothing_resolved() -> None:
    b = overall([row("unknown"), row("error")])
    assert b.resolved_accuracy is None
    assert (b.strict_accuracy, b.coverage, b.unknown_rate) == (0.0, 0.0, 0.5)


def test_disagreement_needs_two_routes() -> None:
    assert overall([row("correct", {"a": "correct"}), row("wrong", {"a": "wrong"})]).disagreement_rate is None
    assert overall([row("correct")]).disagreement_rate is None
    # one multi-route target among single-route ones: the rate is still over all n
    mixed = overall([row("correct", {"a": "correct", "b": "wrong"}), row("correct", {"a": "correct"})])
    assert mixed.disagreement_rate == 1 / 2
    unanimous = overall([row("unknown", {"a": "unknown", "b": "unknown"})])
    assert unanimous.disagreement_rate == 0.0


def test_summarize_by_attributes() -> None:
    results = [
        row("correct", engine="e1", category="years"),
        row("wrong", engine="e1", category="years"),
        row("correct", engine="e1", category="money"),
        row("correct", engine="e2", category="years"),
        row("unknown", engine="e2", category="years", auto_evaluable=False),
    ]
    buckets = summarize(results, ["engine", "category"])
    assert list(buckets) == [("e1", "money"), ("e1", "years"), ("e2", "years")]
    assert buckets[("e1", "years")].strict_accuracy == 0.5
    assert buckets[("e1", "money")].n == 1
    assert (buckets[("e2", "years")].n, buckets[("e2", "years")].excluded) == (1, 1)
    assert list(summarize(results, ["engine"])) == [("e1",), ("e2",)]


def test_summarize_by_facet_and_missing_values() -> None:
    results = [
        row("correct", facets={"form": "western"}),
        row("wrong", facets={"form": "western"}),
        row("correct", facets={"form": "chinese"}),
        row("correct", facets={}),
        row("correct", domain=None),
    ]
    by_form = summarize(results, ["facet:form"])
    assert {k: b.n for k, b in by_form.items()} == {("chinese",): 1, ("western",): 2, (MISSING,): 2}
    assert by_form[("western",)].strict_accuracy == 0.5
    assert list(summarize(results, ["domain"])) == [(MISSING,)]


def test_summarize_with_no_keys_is_the_overall_bucket() -> None:
    assert summarize(A_FEW, []) == {(): overall(A_FEW)}


@pytest.mark.parametrize("name", ["nonsense", "facet:"])
def test_summarize_rejects_unknown_group_names(name: str) -> None:
    with pytest.raises(ValueError):
        summarize(A_FEW, [name])


def test_an_invalid_verdict_is_an_error_not_a_silent_miscount() -> None:
    with pytest.raises(ValueError, match="excluded"):
        overall([row("excluded")])


def test_calibration_arithmetic_cn_news_aliyun() -> None:
    # CN-NewsTTS Bench v0.1 published aliyun_tts figures: 468 / 61 / 463 over 992, 356 split votes.
    results = (
        [row("correct", {"a": "correct", "b": "correct", "c": "correct"})] * (468 - 356)
        + [row("correct", {"a": "correct", "b": "correct", "c": "unknown"})] * 356
        + [row("wrong", {"a": "wrong", "b": "wrong", "c": "wrong"})] * 61
        + [row("unknown", {"a": "unknown", "b": "unknown", "c": "unknown"})] * 463
        + [row("correct", auto_evaluable=False)] * 16
    )
    b = overall(results)
    assert (b.n, b.excluded) == (992, 16)
    assert round(b.strict_accuracy, 6) == 0.471774
    assert round(b.resolved_accuracy, 6) == 0.884688
    assert round(b.coverage, 6) == 0.533266
    assert round(b.unknown_rate, 6) == 0.466734
    assert round(b.disagreement_rate, 6) == 0.358871
