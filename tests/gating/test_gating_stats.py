"""Wilson interval and exact McNemar: checked against the textbook formulas, computed here independently."""

from __future__ import annotations

import math

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.baseline import compare
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.stats import mcnemar_exact, wilson_interval

Z95 = 1.959963984540054  # the 97.5 % normal quantile


def textbook_wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def test_wilson_half_of_ten_matches_the_known_interval() -> None:
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.236593, abs=1e-6)
    assert high == pytest.approx(0.763407, abs=1e-6)


@pytest.mark.parametrize(("k", "n"), [(1, 4), (0, 7), (7, 7), (468, 992), (3, 1000)])
def test_wilson_agrees_with_the_closed_form(k: int, n: int) -> None:
    low, high = wilson_interval(k, n)
    want_low, want_high = textbook_wilson(k, n)
    assert low == pytest.approx(max(0.0, want_low), abs=1e-9)
    assert high == pytest.approx(min(1.0, want_high), abs=1e-9)
    assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_is_wider_at_higher_confidence() -> None:
    low95, high95 = wilson_interval(30, 60)
    low99, high99 = wilson_interval(30, 60, confidence=0.99)
    assert low99 < low95 and high99 > high95


def test_wilson_of_nothing_is_none() -> None:
    assert wilson_interval(0, 0) is None


@pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (1, 9, 2 * (1 + 10) / 2**10),  # 2 * P(X <= 1), X ~ Bin(10, 1/2)
        (9, 1, 2 * (1 + 10) / 2**10),  # symmetric
        (0, 5, 2 / 2**5),
        (3, 3, 1.0),  # balanced: no evidence
        (0, 1, 1.0),  # a single discordant pair proves nothing
        (0, 0, 1.0),  # no discordant pairs at all
    ],
)
def test_mcnemar_exact_by_hand(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def _row(item: str, verdict: str, auto: bool = True) -> ItemResult:
    return make_result(id=f"s/{item}", language="zh", verdict=verdict, expected=None, auto_evaluable=auto)


def test_compare_pairs_by_key_and_counts_discordant_targets() -> None:
    baseline = [
        _row("a", "correct"),
        _row("b", "correct"),
        _row("c", "wrong"),
        _row("d", "unknown"),
        _row("only-base", "correct"),
        _row("opt", "correct", auto=False),
    ]
    candidate = [
        _row("a", "correct"),
        _row("b", "unknown"),
        _row("c", "correct"),
        _row("d", "wrong"),
        _row("only-cand", "correct"),
        _row("opt", "wrong", auto=False),
    ]
    cmp = compare(baseline, candidate)
    assert (cmp.regressions, cmp.fixes, cmp.unchanged) == (["s/b"], ["s/c"], 2)
    assert (cmp.new, cmp.missing) == (["s/only-cand"], ["s/only-base"])
    assert cmp.mcnemar_p == 1.0


def test_compare_detects_a_consistent_regression() -> None:
    baseline = [_row(f"t{i}", "correct") for i in range(8)]
    candidate = [_row(f"t{i}", "wrong") for i in range(8)]
    cmp = compare(baseline, candidate)
    assert (len(cmp.regressions), len(cmp.fixes)) == (8, 0)
    assert cmp.mcnemar_p == pytest.approx(2 / 2**8)
