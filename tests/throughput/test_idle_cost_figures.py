"""benchmarks/idle_cost.py's figures (#38): the interval of the median difference is the
distribution-free one (order statistics, a fair coin's binomial tails, scipy as the oracle), and
the verdict says "within" only on evidence: a timed interval wholly under the target, or an
instruction count under it with no timed interval wholly over it."""

from __future__ import annotations

import importlib.util
import random
import statistics
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom


def _idle_cost() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "idle_cost.py"
    spec = importlib.util.spec_from_file_location("idle_cost", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("idle_cost", module)  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


idle_cost = _idle_cost()


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(min_value=9, max_value=400), confidence=st.floats(min_value=0.8, max_value=0.99), seed=st.integers()
)
def test_the_interval_is_the_order_statistics_a_binomial_tail_allows(n: int, confidence: float, seed: int) -> None:
    values = [float(rank) for rank in range(n)]
    random.Random(seed).shuffle(values)  # given in any order: the interval is of the sorted values
    low, high = idle_cost.median_interval(values, confidence)
    k = int(low) + 1  # values are their own ranks: the k-th smallest is k - 1
    tail = (1 - confidence) / 2
    assert high == n - k  # the k-th largest
    assert binom.cdf(k - 1, n, 0.5) <= tail + 1e-12  # the interval covers at least the confidence asked
    assert binom.cdf(k, n, 0.5) > tail - 1e-12  # and is the narrowest of its kind that does


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), min_size=9, max_size=200))
def test_the_interval_holds_the_sample_median(values: list[float]) -> None:
    low, high = idle_cost.median_interval(values)
    assert low <= statistics.median(values) <= high


def test_too_few_rounds_for_an_interval_say_so() -> None:
    with pytest.raises(ValueError, match="5 rounds are too few"):
        idle_cost.median_interval([1.0, 2.0, 3.0, 4.0, 5.0])


@pytest.mark.parametrize(
    ("low", "high", "verdict"),
    [(-5.0, 19.9, "within"), (-50.0, 20.0, "within"), (-50.0, 66.0, "undecided"), (20.1, 40.0, "OVER")],
)
def test_the_timed_verdict_needs_the_whole_interval(low: float, high: float, verdict: str) -> None:
    assert idle_cost.timed_verdict(low, high) == verdict


@pytest.mark.parametrize(
    ("timed", "by_instructions", "verdict"),
    [
        (
            ["undecided", "undecided"],
            9.6,
            "within",
        ),  # the noise hides it; the count, which the load does not move, decides
        (["undecided", "undecided"], 20.5, "OVER"),
        (["within", "within"], 25.0, "OVER"),  # any measure over for certain is over
        (["OVER", "within"], 5.0, "OVER"),  # a cost the instructions miss (waiting on the disk) is still a cost
        (["undecided", "within"], None, "within"),  # the plugin alone, on a bare pytest, narrower
        (["undecided", "undecided"], None, "undecided"),  # without a count, noise is no evidence either way
        (["undecided", "OVER"], None, "OVER"),
    ],
)
def test_one_verdict_from_every_measure(timed: list[str], by_instructions: float | None, verdict: str) -> None:
    assert idle_cost.idle_verdict(timed, by_instructions) == verdict
