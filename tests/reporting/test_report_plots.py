"""The charts: SVG from matplotlib whose bars, labels and intervals are the summary's figures."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from result_rows import make_result

from pytest_ttsbench.figures.summary import Bucket
from pytest_ttsbench.reporting import plots
from pytest_ttsbench.run_model.results import ItemResult


def result(engine: str, category: str, verdict: str, form: str | None = None) -> ItemResult:
    facets = {"form": form} if form else {}
    return make_result(engine=engine, id=f"s/{category}-{verdict}", category=category, facets=facets, verdict=verdict)


RESULTS = [
    result("alpha", "years", "correct", "western"),
    result("alpha", "years", "wrong", "eastern"),
    result("alpha", "dates", "correct", "western"),
    result("beta", "years", "correct", "western"),
    result("beta", "dates", "unknown", "eastern"),
]


def texts(svg: bytes) -> list[str]:
    return ["".join(node.itertext()).strip() for node in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


def test_category_chart_labels_every_bar_with_its_counts() -> None:
    svg = plots.category_chart_svg(RESULTS)
    labels = texts(svg)
    assert {"s/", "dates", "years", "alpha", "beta"} <= set(labels)  # groups (suite over category) and the legend
    # one count label per bar: alpha 1/2 years, 1/1 dates; beta 1/1 years, 0/1 dates
    assert sorted(t for t in labels if re.fullmatch(r"\d+/\d+", t)) == ["0/1", "1/1", "1/1", "1/2"]


def test_charts_are_byte_stable() -> None:
    assert plots.category_chart_svg(RESULTS) == plots.category_chart_svg(list(RESULTS))


def test_error_bars_are_the_wilson_interval() -> None:
    bucket = Bucket(n=5, correct=2)
    low, high = bucket.ci95  # type: ignore[misc]
    assert plots._error(bucket) == pytest.approx((0.4 - low, high - 0.4))
    assert plots._error(Bucket()) == (0.0, 0.0)  # empty bucket: no bar, no interval


def test_facet_breakdown_only_for_facets_that_vary() -> None:
    same = [result("alpha", "years", "correct", "western"), result("alpha", "dates", "wrong", "western")]
    assert plots.facet_names(RESULTS) == ["form"]
    assert plots.facet_names(same) == []
    labels = texts(plots.facet_chart_svg(RESULTS, "form"))
    assert {"s:", "eastern", "western"} <= set(labels)
    # western: alpha 2/2, beta 1/1; eastern: alpha 0/1, beta 0/1
    assert sorted(t for t in labels if re.fullmatch(r"\d+/\d+", t)) == ["0/1", "0/1", "1/1", "2/2"]


def test_history_chart_names_runs_and_lines() -> None:
    points = [
        plots.Point("night-1", "s/years", Bucket(n=2, correct=1)),
        plots.Point("night-2", "s/years", Bucket(n=2, correct=2)),
        plots.Point("night-2", "s/dates", Bucket(n=1, correct=0)),
    ]
    labels = texts(plots.history_chart_svg(points, ["night-1", "night-2"], "alpha"))
    assert {"night-1", "night-2", "s/years", "s/dates", "alpha"} <= set(labels)
