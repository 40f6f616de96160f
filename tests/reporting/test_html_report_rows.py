"""The pytest-html report's benchmark columns and summary, read back from the report file.

These runs use the replay engine (fixed transcripts, no audio), so they are fast; real audio and
a real browser are in ``test_html_report_browser.py``.
"""

from __future__ import annotations

import json
import re

import pytest
from report_helpers import NUMERALS, TRANSCRIPTS, cell_text, read_jsonl, report_data, write_project

from pytest_ttsbench.figures.summary import summarize
from pytest_ttsbench.quality.measures import DEFAULT_SETS
from pytest_ttsbench.quality.meter import QualityMeter
from pytest_ttsbench.reporting.html import COLUMNS
from pytest_ttsbench.run_model.results import ItemResult

HOSTILE = """\
suite: demo-hostile
language: en
scorer: numbers
items:
  - id: xss-1
    category: tricky
    text: "<script>alert('x')</script> costs 12 & more"
    expect: {values: ["12"]}
"""


def rows_by_test(data: dict) -> dict[str, list[str]]:
    """Test id → its cells, for rows that carry a benchmark result."""
    rows = {}
    for node_id, entries in data["tests"].items():
        for entry in entries:
            cells = entry["resultsTableRow"]
            if 'class="col-engine"></td>' not in cells[2]:
                rows[node_id] = cells
    return rows


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_rows_carry_the_evidence(pytester: pytest.Pytester, workers: list[str]) -> None:
    write_project(pytester)
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--html=report/r.html", "--tts-breakdown=form", *workers
    )
    result.assert_outcomes(passed=2, failed=2, skipped=1)
    data = report_data(pytester.path / "report" / "r.html")
    rows = rows_by_test(data)
    assert len(rows) == 5  # every target, the skipped not-auto-evaluable one included
    header = ["Result", "Test", *(label for label, _ in COLUMNS)]
    pct = rows["cases/demo-numerals.yaml::demo-numerals[percentages/pct-45]"]
    cells = dict(zip(header, (cell_text(c) for c in pct[: len(header)]), strict=True))
    assert cells["Engine"] == "replay"
    assert cells["Suite"] == "demo-numerals"
    assert cells["Category"] == "percentages"
    assert cells["Verdict"] == "wrong"
    assert cells["Text sent"] == "Turnout reached 45% this year."
    assert cells["Expected"] == "values 45"
    assert cells["Heard"] == TRANSCRIPTS["demo-numerals/pct-45"]
    assert "missing: 45" in cells["Evidence"] and "parsed: 54" in cells["Evidence"]
    assert cells["Audio"] == "(no audio)"  # the replay engine makes no clips
    stored = {(r["id"], r["target"]): r for r in read_jsonl(pytester.path / "out" / "r.jsonl")}
    assert float(cells["CER"]) == pytest.approx(stored[("demo-numerals/pct-45", None)]["cer"], abs=1e-3)
    news = rows["cases/demo-news.yaml::demo-news[military_model/m-001/歼-20]"]
    news_cells = dict(zip(header, (cell_text(c) for c in news[: len(header)]), strict=True))
    assert news_cells["Verdict"] == "wrong"
    assert "歼-20" in news_cells["Expected"]
    assert "forbidden reading heard: 歼负二十" in news_cells["Evidence"]
    # every row has as many cells as the header, or pytest-html's table would shift
    # pytest-html's four cells, ours, and one per default (signal) quality measure
    quality_columns = len(QualityMeter(DEFAULT_SETS).measure_names)
    assert all(
        len(entry["resultsTableRow"]) == 4 + len(COLUMNS) + quality_columns
        for e in data["tests"].values()
        for entry in e
    )


def summary_rows(text: str, table_class: str) -> list[list[str]]:
    table = re.search(rf'<table class="{table_class}">(.*?)</table>', text, re.S)
    assert table, f"no {table_class} table"
    return [
        [cell_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)
        if "<td" in row
    ]


def test_summary_tables_match_the_results_file(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    pytester.runpytest(
        "--tts-engine=replay",
        "--tts-results=out/r.jsonl",
        "--html=report/r.html",
        "--tts-breakdown=form",
        "--tts-min-n=1",
    )
    text = (pytester.path / "report" / "r.html").read_text(encoding="utf-8")
    results = [ItemResult.from_dict(row) for row in read_jsonl(pytester.path / "out" / "r.jsonl")]
    expected = summarize(results, ["engine", "suite", "category"])
    rows = {tuple(row[:3]): row[3:] for row in summary_rows(text, "ttsbench-categories")}
    for key, bucket in expected.items():
        low, high = bucket.ci95 or (0, 0)
        assert rows[key] == [
            str(bucket.n),
            str(bucket.correct),
            str(bucket.wrong),
            str(bucket.unknown),
            str(bucket.error),
            f"{100 * bucket.strict_accuracy:.1f}%",
            f"[{100 * low:.1f}, {100 * high:.1f}]",
        ]
    assert rows[("replay", "demo-numerals", "(all)")][:3] == ["3", "2", "1"]
    forms = {tuple(row[:3]): row[3:5] for row in summary_rows(text, "ttsbench-facet-form")}
    assert forms == {
        ("replay", "demo-numerals", "western"): ["2", "1"],
        ("replay", "demo-numerals", "spelled"): ["1", "1"],
    }
    # floors (demo-numerals: default 0.5) and the verdict agree with the gate sidecar
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    floors = summary_rows(text, "ttsbench-floors")
    assert len(floors) == len(gate["thresholds"])
    failing = {(c["suite"], c["category"]) for c in gate["thresholds"] if c["breached"]}
    assert {(row[2], row[3]) for row in floors if row[0] == "FAIL"} == failing
    assert ("demo-numerals", "percentages") in failing
    assert ('<p class="ttsbench-gate-failed">FAILED</p>' in text) == (not gate["passed"])
    chart = pytester.path / "report" / "r_files" / "charts" / "accuracy-by-category.svg"
    assert 'src="r_files/charts/accuracy-by-category.svg"' in text and chart.read_bytes().startswith(b"<?xml")
    assert (
        b">demo-numerals/</text>" in chart.read_bytes() and b">percentages</text>" in chart.read_bytes()
    )  # suite/ over category


def test_text_is_escaped_everywhere(pytester: pytest.Pytester) -> None:
    write_project(
        pytester,
        cases={"hostile.yaml": HOSTILE},
        transcripts={"demo-hostile/xss-1": "<img src=x onerror=alert(1)> costs twelve & more"},
    )
    pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--html=report/r.html", "--self-contained-html"
    )
    data = report_data(pytester.path / "report" / "r.html")
    (cells,) = rows_by_test(data).values()
    joined = "".join(cells)
    assert "<script>" not in joined and "<img" not in joined
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; costs 12 &amp; more" in joined  # markupsafe's escaping
    assert "&lt;img src=x onerror=alert(1)&gt;" in joined
    text = (pytester.path / "report" / "r.html").read_text(encoding="utf-8")
    # self-contained: the chart is embedded, nothing is written beside the report
    assert 'src="data:image/svg+xml;base64,' in text
    assert sorted(p.name for p in (pytester.path / "report").iterdir()) == ["r.html"]


def test_no_benchmark_columns_without_pytest_html(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS})
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl", "-p", "no:html")
    result.assert_outcomes(passed=2, failed=1)
    assert not list(pytester.path.rglob("*.html"))
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/s.jsonl")  # html plugin on, no --html
    result.assert_outcomes(passed=2, failed=1)
    assert not (pytester.path / "charts").exists() and not (pytester.path / "audio").exists()


def test_side_files_sit_in_one_folder_named_after_the_report(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl", "--html=fresh/r.html")
    fresh = pytester.path / "fresh"
    assert sorted(p.name for p in fresh.iterdir()) == ["r.html", "r_files"]
    assert {p.name for p in (fresh / "r_files").iterdir()} == {"assets", "charts"}  # replay makes no clips
    text = (fresh / "r.html").read_text(encoding="utf-8")
    assert 'href="r_files/assets/style.css"' in text and (fresh / "r_files" / "assets" / "style.css").is_file()
    # A directory that already holds another report's assets/ keeps it as it was.
    other = pytester.path / "shared" / "assets" / "other.css"
    other.parent.mkdir(parents=True)
    other.write_text("body {}", encoding="utf-8")
    pytester.runpytest("--tts-engine=replay", "--tts-results=out/q.jsonl", "--html=shared/q.html")
    assert sorted(p.name for p in (pytester.path / "shared").iterdir()) == ["assets", "q.html", "q_files"]
    assert other.read_text(encoding="utf-8") == "body {}"
