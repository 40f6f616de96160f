"""Bar charts read at a glance in a browser (issue #38 point 4): every label inside the drawing,
and each bar's count in a colour that contrasts with its bar.

The SVG keeps its text as text, so the browser lays it out in its own fonts: only a browser can say
whether "numerals/currency" fits. Each chart is opened in headless Chromium and every text element's
box measured against the drawing's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cdp_browser import Browser
from hypothesis import given, settings
from hypothesis import strategies as st
from result_rows import make_result

from pytest_ttsbench.reporting import plots

CATEGORY_SETS = [
    ["currency", "years"],  # the quoted clip: the first of few groups, slanted past the left edge
    ["currency", "measurements", "ordinal-dates", "phone-numbers", "years", "times"],
    ["a-category-name-of-forty-characters-long", "x"],
]

TEXT_BOXES = """
(() => {
  const svg = document.querySelector('svg');
  const frame = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('text')].map((t) => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left - frame.left, right: r.right - frame.left,
            top: r.top - frame.top, bottom: r.bottom - frame.top, width: frame.width, height: frame.height};
  });
})()
"""


def rows(categories: list[str], engines: tuple[str, ...]) -> list:  # type: ignore[type-arg]
    return [
        make_result(engine=engine, suite="numerals", id=f"numerals/{c}-{i}", category=c, verdict=verdict)
        for engine in engines
        for c in categories
        for i, verdict in enumerate(["correct", "wrong", "correct"])
    ]


@pytest.mark.parametrize("categories", CATEGORY_SETS)
@pytest.mark.parametrize("engines", [("espeak",), ("espeak", "piper", "openai")])
def test_every_label_is_inside_the_chart(
    browser: Browser, tmp_path: Path, categories: list[str], engines: tuple[str, ...]
) -> None:
    chart = plots.write_svg(tmp_path / "category.svg", plots.category_chart_svg(rows(categories, engines)))
    browser.open(chart.as_uri(), width=1400, height=900)
    boxes = browser.evaluate(TEXT_BOXES)
    assert browser.errors() == []
    shown = {box["text"] for box in boxes}
    assert all(any(category in text for text in shown) for category in categories)
    outside = [
        box
        for box in boxes
        if box["left"] < 0 or box["top"] < 0 or box["right"] > box["width"] + 0.5 or box["bottom"] > box["height"] + 0.5
    ]
    assert outside == []


def relative_luminance(hex_colour: str) -> float:
    values = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


NAMED = {"white": "#ffffff", "black": "#000000"}


@settings(deadline=None, max_examples=10)
@given(st.integers(1, 10))
def test_counts_contrast_with_their_bars(series: int) -> None:
    """For every series colour matplotlib cycles through, the counts on its bars reach WCAG AA (4.5:1)."""
    engines = tuple(f"engine-{i}" for i in range(series))
    svg = plots.category_chart_svg(rows(["years"], engines)).decode()
    bar_fills = re.findall(r'clip-path="url\(#\w+\)" style="fill: (#[0-9a-f]{6})"', svg)
    counts = re.findall(r'<text style="([^"]*)"[^>]*>\d+/\d+</text>', svg)
    assert len(bar_fills) == len(counts) == series
    for fill, style in zip(bar_fills, counts, strict=True):
        text_fill = re.search(r"fill: (#[0-9a-f]{6})", style)
        text_colour = text_fill.group(1) if text_fill else "#000000"  # SVG text is black unless filled
        assert contrast(fill, text_colour) >= 4.5, (fill, text_colour)


@given(st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)))
def test_count_colour_is_the_more_contrasting_of_black_and_white(rgb: tuple[float, float, float]) -> None:
    levels = [round(255 * c) for c in rgb]  # what a bar's colour is once written as #rrggbb
    colour = "#" + "".join(f"{level:02x}" for level in levels)
    chosen = NAMED[plots._count_colour((*(level / 255 for level in levels), 1.0))]  # type: ignore[arg-type]
    other = NAMED["black" if chosen == NAMED["white"] else "white"]
    assert contrast(colour, chosen) >= contrast(colour, other) - 1e-6
    assert contrast(colour, chosen) >= 4.5  # the better of black and white never falls below about 4.58
