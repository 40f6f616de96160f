"""A quality summary is a function of the rows, not of their order.

``ttsbench merge`` lists a split run's rows shard by shard, where the unsplit run listed them in
test order; the bootstrap interval resamples by position, so before the summary sorted its rows
the merged run's gate differed from the unsplit run's in ``ci95`` (found by
``benchmarks/shared_recognizer.py``: every split of the 51-item main job, accuracy identical).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from quality_rows import rows

from pytest_ttsbench.quality.summary import summarize_quality

FIGURES = [-20.1, -20.9, -21.3, -19.8, -20.4, -22.0, -20.0, -19.5, -21.1, -20.7, -20.2, -23.4]


@settings(max_examples=40, deadline=None)
@given(order=st.permutations(range(len(FIGURES))), split=st.sampled_from(["c", "d"]))
def test_a_summary_does_not_depend_on_the_order_of_the_rows(order: list[int], split: str) -> None:
    listed = rows("e", "c", {"loudness_lufs": FIGURES}) + rows("e", split, {"loudness_lufs": FIGURES[:5]}, suite="t")
    reordered = [listed[i] for i in order] + listed[len(FIGURES) :]
    assert summarize_quality(reordered, ["engine"]) == summarize_quality(listed, ["engine"])
    assert summarize_quality(reordered, ["engine", "category"]) == summarize_quality(listed, ["engine", "category"])
