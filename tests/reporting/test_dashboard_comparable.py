"""The dashboard compares like with like and is read at a glance (issue #23 item 9).

Four runs of one engine, written with the package's results writer: three full runs of a
51-item pack across ten categories, then a run of 10 of those items (as ``-k`` selects them).
The leaderboard must rank the engine by its latest full run and say what each figure covers;
the 10-item run is shown, with its coverage, but not ranked over the full one. The trend is one
small chart per category and a category x run grid coloured by accuracy, checked in Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cdp_browser import Browser
from hypothesis import given, settings
from hypothesis import strategies as st
from result_rows import make_result

from pytest_ttsbench.cli import main
from pytest_ttsbench.reporting.dashboard import comparable_selection
from pytest_ttsbench.run_model.reader import find_runs
from pytest_ttsbench.run_model.results import write_results

CATEGORIES = [f"cat{i}" for i in range(10)]
ITEMS = [f"pack/item-{i:02d}" for i in range(51)]


def category_of(item: str) -> str:
    return CATEGORIES[int(item.rsplit("-", 1)[1]) % len(CATEGORIES)]


def write_run(folder: Path, engine: str, night: int, items: list[str], wrong: set[str]) -> None:
    rows = [
        make_result(
            engine=engine,
            suite="pack",
            id=item,
            category=category_of(item),
            verdict="wrong" if item in wrong else "correct",
            started_at=f"2026-11-{10 + night:02d}T02:00:00+00:00",
        )
        for item in items
    ]
    write_results(folder / "results.jsonl", rows)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    # Full runs: 11, 9 and then 8 wrong of 51 (the latest full run: 43/51 = 84.3 %).
    # Wrong items fall into categories 0-3 more than others, so the grid cells differ in colour.
    for night, count in ((1, 11), (2, 9), (3, 8)):
        write_run(runs / f"night-{night}", "alpha", night, ITEMS, {ITEMS[i * 2] for i in range(count)})
    # The last run: 10 items picked with -k, 3 wrong (70.0 %), the latest of all.
    write_run(runs / "night-4-k", "alpha", 4, ITEMS[:10], {ITEMS[0], ITEMS[1], ITEMS[2]})
    # A second engine with one full run, 51/51: ranked against alpha's full run, not its partial one.
    write_run(runs / "beta-night", "beta", 2, ITEMS, set())
    built = tmp_path_factory.mktemp("site")
    assert main(["dashboard", str(runs), "-o", str(built)]) == 0
    return built


LEADERBOARD = """
(() => {
  const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Leaderboard'));
  let table = heading.nextElementSibling;
  while (!table.querySelector('table')) table = table.nextElementSibling;
  const header = [...table.querySelectorAll('th')].map((th) => th.innerText.trim());
  const rows = [...table.querySelectorAll('tbody tr')].map((tr) => {
    const cells = [...tr.querySelectorAll('td')].map((td) => td.innerText.trim());
    return Object.fromEntries(header.map((name, i) => [name, cells[i]]));
  });
  return rows;
})()
"""

TREND = """
(() => {
  const heading = [...document.querySelectorAll('h3')].find((h) => h.textContent === 'alpha');
  let box = heading.nextElementSibling;
  const chart = box.matches('img.chart') ? box.getAttribute('src') : null;
  while (!box.querySelector || !box.querySelector('table')) box = box.nextElementSibling;
  return {
    chart,
    rows: [...box.querySelectorAll('tbody tr')].map((tr) => ({
      category: tr.querySelector('td').innerText.trim(),
      cells: [...tr.querySelectorAll('.grid-cell')].map((cell) => ({
        text: cell.innerText.trim(),
        background: getComputedStyle(cell).backgroundColor,
      })),
    })),
  };
})()
"""


def test_leaderboard_ranks_the_full_run_and_states_coverage(site: Path, browser: Browser) -> None:
    browser.open((site / "index.html").as_uri(), width=1400, height=900)
    rows = browser.evaluate(LEADERBOARD)
    assert browser.errors() == []
    ranked = [(r["rank"], r["engine"], r["strict accuracy"], r["items run"]) for r in rows]
    assert ranked == [
        ("1", "beta", "100.0%", "51 of 51 items"),
        ("2", "alpha", "84.3%", "51 of 51 items"),  # the latest full run, not the later 10-item one
        ("-", "alpha", "70.0%", "10 of 51 items"),  # shown, not ranked
    ]
    assert rows[1]["date"] == "2026-11-13"
    assert rows[1]["note"] == ""  # both ranked runs cover the same targets: nothing to qualify
    assert "partial run (10 of 51 items)" in rows[2]["note"] and "night-3" in rows[2]["note"]


def test_trend_is_one_chart_and_one_grid_row_per_category(site: Path, browser: Browser) -> None:
    browser.open((site / "index.html").as_uri(), width=1400, height=900)
    trend = browser.evaluate(TREND)
    assert browser.errors() == []
    assert [r["category"] for r in trend["rows"]] == [f"pack/{c}" for c in CATEGORIES]
    for r in trend["rows"]:
        assert len(r["cells"]) == 4  # one cell per run, each with its figure and interval
        assert all(re.search(r"% \(\d+/\d+\)\s*\[\d+\.\d, \d+\.\d\]", c["text"]) for c in r["cells"]), r
    # cat0 in the first night: 3/6 correct; cat9: 5/5. The grid colours them apart.
    assert trend["rows"][0]["cells"][0]["text"].startswith("50.0% (3/6)")
    assert trend["rows"][9]["cells"][0]["text"].startswith("100.0% (5/5)")
    backgrounds = {c["background"] for r in trend["rows"] for c in r["cells"]}
    assert len(backgrounds) > 2 and "rgba(0, 0, 0, 0)" not in backgrounds
    # The chart above the grid: one visible panel per category, each titled with its name.
    svg = (site / trend["chart"]).read_text(encoding="utf-8")
    assert len(re.findall(r'<g id="axes_\d+">', svg)) == len(CATEGORIES)
    assert all(f"pack/{c}" in svg for c in CATEGORIES)


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=6))
def test_the_ranked_run_is_the_latest_widest(tmp_path_factory: pytest.TempPathFactory, sizes: list[int]) -> None:
    """Over any order of run sizes: the ranked run covers the most items, and no later run is as wide."""
    runs_dir = tmp_path_factory.mktemp("runs")
    for night, size in enumerate(sizes, start=1):
        write_run(runs_dir / f"n{night:02d}", "alpha", night, ITEMS[:size], set())
    runs = find_runs(runs_dir)
    selection = comparable_selection(runs)
    index = runs.index(selection.ranked)
    assert len(selection.universe) == max(sizes)
    assert sizes[index] == max(sizes) and all(s < max(sizes) for s in sizes[index + 1 :])
    assert selection.partial is (None if index == len(runs) - 1 else runs[-1])
