"""The Wilson interval is worked out without scipy (#28: importing scipy.stats was most of a warm
rerun), and it is scipy's interval: the same figures as ``binomtest(...).proportion_ci(method="wilson")``
for any count, any number of trials and any confidence level."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from pytest_ttsbench.support.stats import wilson_interval


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(min_value=1, max_value=100_000))
    return draw(st.integers(min_value=0, max_value=n)), n


@settings(max_examples=400, deadline=None)
@given(count=counts(), confidence=st.floats(min_value=0.5, max_value=0.9999))
def test_the_interval_is_scipys(count: tuple[int, int], confidence: float) -> None:
    successes, n = count
    want = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    low, high = wilson_interval(successes, n, confidence)
    assert (low, high) == pytest.approx((float(want.low), float(want.high)), abs=1e-12)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5])
def test_a_confidence_outside_zero_to_one_is_refused(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(3, 10, confidence)
