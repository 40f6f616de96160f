"""Route diagnostics on a hand-counted four-target example."""

from __future__ import annotations

import pytest
from result_rows import make_result

from pytest_ttsbench.figures.diagnostics import (
    ablation,
    bootstrap_rank_intervals,
    label_changes,
    pairwise_agreement,
    pooled,
    range_readings,
    rank_stability,
    revote,
    route_accuracy,
    tie_rate,
)
from pytest_ttsbench.figures.summary import overall
from pytest_ttsbench.figures.voting import vote
from pytest_ttsbench.run_model.results import ItemResult


def row(routes: dict[str, str], auto: bool = True) -> ItemResult:
    return make_result(language="zh", verdict=vote(routes), expected=None, route_verdicts=routes, auto_evaluable=auto)


RESULTS = [
    row({"a": "correct", "b": "correct", "c": "wrong"}),
    row({"a": "correct", "b": "unknown", "c": "unknown"}),
    row({"a": "wrong", "b": "wrong", "c": "wrong"}),
    row({"a": "error", "b": "unknown"}),  # route c has no verdict here
    row({"a": "wrong", "b": "wrong", "c": "wrong"}, auto=False),  # excluded everywhere
]


def test_route_accuracy() -> None:
    assert route_accuracy(RESULTS) == {"a": 2 / 4, "b": 1 / 4, "c": 0.0}


def test_pairwise_tri_label_agreement() -> None:
    pairs = pairwise_agreement(RESULTS)
    assert list(pairs) == [("a", "b"), ("a", "c"), ("b", "c")]
    # error and a missing verdict both read as unknown, so target 4 agrees on every pair
    assert {k: (p.agree, p.n) for k, p in pairs.items()} == {
        ("a", "b"): (3, 4),
        ("a", "c"): (2, 4),
        ("b", "c"): (3, 4),
    }
    assert pairs[("a", "c")].rate == 0.5


def test_agreement_with_one_route_has_no_pairs() -> None:
    assert pairwise_agreement([row({"a": "correct"})]) == {}


@pytest.mark.parametrize(
    ("subset", "counts"),
    [
        (("a",), (2, 1, 0, 1)),  # target 4: its only route errored → error
        (("b",), (1, 1, 2, 0)),
        (("c",), (0, 2, 2, 0)),  # target 4: c missing → unknown
        (("a", "b"), (1, 1, 2, 0)),  # two routes must agree
        (("a", "c"), (0, 1, 3, 0)),
        (("b", "c"), (0, 1, 3, 0)),
        (("a", "b", "c"), (1, 1, 2, 0)),  # 2 of 3
    ],
)
def test_ablation_by_hand(subset: tuple[str, ...], counts: tuple[int, int, int, int]) -> None:
    bucket = ablation(RESULTS)[subset]
    assert (bucket.correct, bucket.wrong, bucket.unknown, bucket.error) == counts
    assert (bucket.n, bucket.excluded) == (4, 1)
    assert sorted(bucket.routes) == list(subset)


def test_ablation_lists_every_non_empty_subset_smallest_first() -> None:
    assert list(ablation(RESULTS)) == [
        ("a",),
        ("b",),
        ("c",),
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
        ("a", "b", "c"),
    ]


def test_ablation_disagreement_is_within_the_subset() -> None:
    # a,b split on targets 2 (correct/unknown) and 4 (error/unknown); single routes never disagree
    assert ablation(RESULTS)[("a", "b")].disagreement_rate == 2 / 4
    assert ablation(RESULTS)[("a",)].disagreement_rate is None


def test_full_subset_reproduces_the_stored_vote() -> None:
    assert ablation(RESULTS)[("a", "b", "c")] == overall(
        [r if not r.auto_evaluable else revote(r, ["a", "b", "c"]) for r in RESULTS]
    )
    assert ablation(RESULTS)[("a", "b", "c")].correct == overall(RESULTS).correct


def test_ablation_over_named_routes_includes_a_route_never_heard() -> None:
    buckets = ablation(RESULTS, routes=["a", "z"])
    assert buckets[("z",)].unknown == 4
    assert buckets[("a", "z")].correct == 0  # a alone cannot carry a two-route vote


# --- the CN-NewsTTS analyses on hand-counted rows ---------------------------------------------------


def test_tie_rate_counts_even_splits_among_multi_route_targets() -> None:
    rows = [
        row({"a": "correct", "b": "wrong", "c": "unknown"}),  # 1-1-1: a tie
        row({"a": "correct", "b": "error"}),  # 1-1 of two (error reads as unknown): a tie
        row({"a": "correct", "b": "correct", "c": "wrong"}),  # 2-1: no tie
        row({"a": "wrong"}),  # a single route cannot tie: not counted
        row({"a": "correct", "b": "wrong"}, auto=False),  # excluded
    ]
    assert tie_rate(rows) == 2 / 3
    assert tie_rate([row({"a": "correct"})]) is None


def test_label_changes_from_the_full_vote_to_each_subset() -> None:
    changes = label_changes(RESULTS)
    assert list(changes) == [("a",), ("b",), ("c",), ("a", "b"), ("a", "c"), ("b", "c")]
    # full vote: correct, unknown, wrong, unknown (target 4: a errored, b unknown, c missing)
    assert changes[("a",)] == {("unknown", "correct"): 1, ("unknown", "error"): 1}
    assert changes[("c",)] == {("correct", "wrong"): 1}
    assert changes[("a", "b")] == {}


def _system(verdicts: list[str]) -> list[ItemResult]:
    return [
        make_result(id=f"s/{n}", verdict=v, route_verdicts={"a": v, "b": v}, expected=None)
        for n, v in enumerate(verdicts)
    ]


def test_pooled_figures_add_the_systems_up() -> None:
    runs = {"x": _system(["correct", "wrong"]), "y": _system(["correct", "unknown", "correct"])}
    bucket = pooled(runs)
    assert (bucket.n, bucket.correct, bucket.wrong, bucket.unknown) == (5, 3, 1, 1)


def test_rank_stability_reranks_each_route_subset() -> None:
    x = [make_result(id="s/1", verdict="correct", route_verdicts={"a": "correct", "b": "correct"})]
    y = [make_result(id="s/1", verdict="unknown", route_verdicts={"a": "correct", "b": "wrong"})]
    ranks = rank_stability({"x": x, "y": y})
    assert ranks[("a",)] == {"x": 1, "y": 1}  # route a alone hears both right: a shared rank
    assert ranks[("b",)] == {"x": 1, "y": 2}
    assert ranks[("a", "b")] == {"x": 1, "y": 2}


def test_bootstrap_rank_interval_is_wide_for_close_systems_and_tight_for_far_ones() -> None:
    # x and y are right on different targets, so a resample can favour either
    close = {"x": _system(["correct"] * 51 + ["wrong"] * 49), "y": _system(["wrong"] * 51 + ["correct"] * 49)}
    intervals = bootstrap_rank_intervals(close, samples=500, seed=1)
    assert (intervals["x"].rank, intervals["y"].rank) == (1, 2)
    assert (intervals["x"].low, intervals["x"].high) == (1, 2)
    far = {"x": _system(["correct"] * 90 + ["wrong"] * 10), "y": _system(["correct"] * 10 + ["wrong"] * 90)}
    intervals = bootstrap_rank_intervals(far, samples=500, seed=1)
    assert (intervals["x"].low, intervals["x"].high, intervals["y"].low, intervals["y"].high) == (1, 1, 2, 2)
    # the same seed gives the same interval
    assert bootstrap_rank_intervals(close, samples=500, seed=1) == bootstrap_rank_intervals(close, samples=500, seed=1)


def test_range_readings_tally_how_the_hyphen_was_read() -> None:
    expect = {"span": "4-5", "positive": ["四到五", "四至五"], "negative": ["四减五"]}
    transcripts = {"a": "需要四到五天", "b": "需要四减五天", "c": "需要4-5天", "d": "需要几天"}
    rows = [
        make_result(target="4-5", category="range_hyphen", expected=expect, transcripts=transcripts),
        make_result(target="F-35", category="military_model", expected={"positive": ["F三五"]}, transcripts={}),
    ]
    assert range_readings(rows) == {"range_hyphen": {"as_written": 1, "range": 1, "subtraction": 1, "unheard": 1}}
