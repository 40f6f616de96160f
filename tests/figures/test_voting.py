"""Route voting: quorum, ties, missing routes, errors."""

from __future__ import annotations

import pytest

from pytest_ttsbench.figures.voting import majority, vote


@pytest.mark.parametrize(("routes", "quorum"), [(1, 1), (2, 2), (3, 2), (4, 3), (5, 3)])
def test_default_quorum_is_a_strict_majority(routes: int, quorum: int) -> None:
    assert majority(routes) == quorum


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        # three routes, default quorum 2
        ({"a": "correct", "b": "correct", "c": "wrong"}, "correct"),
        ({"a": "wrong", "b": "wrong", "c": "correct"}, "wrong"),
        ({"a": "correct", "b": "unknown", "c": "unknown"}, "unknown"),  # one vote is not enough
        ({"a": "correct", "b": "wrong", "c": "unknown"}, "unknown"),
        ({"a": "correct", "b": "correct", "c": "correct"}, "correct"),
        # one route: it decides alone
        ({"a": "wrong"}, "wrong"),
        ({"a": "unknown"}, "unknown"),
        # two routes must agree; a split is a tie
        ({"a": "correct", "b": "correct"}, "correct"),
        ({"a": "correct", "b": "wrong"}, "unknown"),
        ({"a": "correct", "b": "unknown"}, "unknown"),
        # four routes split 2/2 is a tie, 3/1 is not
        ({"a": "correct", "b": "correct", "c": "wrong", "d": "wrong"}, "unknown"),
        ({"a": "correct", "b": "correct", "c": "correct", "d": "wrong"}, "correct"),
        ({"a": "correct", "b": "correct", "c": "unknown", "d": "unknown"}, "unknown"),
    ],
)
def test_vote_with_default_quorum(outcomes: dict[str, str], expected: str) -> None:
    assert vote(outcomes) == expected


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ({"a": "correct", "b": None, "c": "correct"}, "correct"),  # missing route: unknown, 2 of 3 still hold
        ({"a": "correct", "b": "", "c": None}, "unknown"),  # two missing: one vote out of three
        ({"a": "correct", "b": None}, "unknown"),  # the missing route still counts in the panel of two
    ],
)
def test_routes_without_a_transcript_count_as_unknown(outcomes: dict[str, str | None], expected: str) -> None:
    assert vote(outcomes) == expected


def test_configured_routes_absent_from_the_mapping_raise_the_bar() -> None:
    assert vote({"a": "correct"}) == "correct"  # one route present: 1 of 1
    assert vote({"a": "correct"}, routes=["a", "b", "c"]) == "unknown"  # 1 of 3
    assert vote({"a": "correct", "b": "correct"}, routes=["a", "b", "c"]) == "correct"


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ({"a": "error", "b": "correct", "c": "correct"}, "correct"),
        ({"a": "error", "b": "error", "c": "correct"}, "unknown"),  # errors are not votes
        ({"a": "error", "b": "wrong"}, "unknown"),
        ({"a": "error", "b": "error", "c": "error"}, "error"),  # no evidence at all
        ({"a": "error"}, "error"),
        ({"a": "error", "b": None}, "unknown"),  # one route simply had nothing to say
    ],
)
def test_errors_count_as_unknown_unless_every_route_errored(outcomes: dict[str, str | None], expected: str) -> None:
    assert vote(outcomes) == expected


def test_explicit_quorum() -> None:
    three = {"a": "correct", "b": "correct", "c": "unknown"}
    assert vote(three, quorum=3) == "unknown"  # unanimity asked for
    assert vote(three, quorum=2) == "correct"
    assert vote({"a": "correct", "b": "unknown", "c": "unknown"}, quorum=1) == "correct"
    # a quorum both sides reach is a conflict, not a win for either
    assert vote({"a": "correct", "b": "wrong"}, quorum=1) == "unknown"


def test_no_routes_is_unknown() -> None:
    assert vote({}) == "unknown"


def test_bad_labels_and_quorum_are_rejected() -> None:
    with pytest.raises(ValueError, match="maybe"):
        vote({"a": "maybe"})
    with pytest.raises(ValueError, match="quorum"):
        vote({"a": "correct"}, quorum=0)
