"""The quality summaries' bootstrap interval is worked out without scipy (#28: importing scipy.stats
was most of a warm rerun) and is scipy's: ``scipy.stats.bootstrap`` of the mean, percentile method,
the same resamples from the same seed, for any group of figures."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import bootstrap

from pytest_ttsbench.quality.summary import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, describe

figures = st.lists(
    st.floats(min_value=-200, max_value=200, allow_nan=False, allow_infinity=False), min_size=2, max_size=300
).filter(lambda values: max(values) > min(values))


@settings(max_examples=150, deadline=None)
@given(values=figures)
def test_the_interval_is_scipys(values: list[float]) -> None:
    data = np.asarray(values, dtype=np.float64)
    want = bootstrap(
        (data,),
        np.mean,
        confidence_level=0.95,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    ).confidence_interval
    got = describe(values).ci95
    assert got is not None
    assert got == pytest.approx((float(want.low), float(want.high)), rel=1e-12, abs=1e-12)
