"""Route diagnostics on a hand-counted four-target example."""

from __future__ import annotations

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.diagnostics import ablation, pairwise_agreement, revote, route_accuracy
from pytest_ttsbench.gating.summary import overall
from pytest_ttsbench.gating.voting import vote
from pytest_ttsbench.results import ItemResult


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
