"""The HTML report's quality gate table, opened in headless Chromium: a tolerance over other models reads
as not comparable there too, with what changed, as in the terminal and the gate file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cdp_browser import Browser
from processes import shown
from quality_rows import echo_cases, echo_config
from report_helpers import run_pytest

from pytest_ttsbench.run_model.results import read_results, write_results

GATE_ROWS = """
[...document.querySelectorAll('table.ttsbench-quality-gates tbody tr')].map(
  (tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()))
"""
#: the word of the verdict box at the top of the report (reporting/templates/verdict.html.j2)
VERDICT_WORD = "document.querySelector('#ttsbench-verdict p').textContent"


def test_the_report_shows_a_tolerance_over_other_models_as_not_comparable(tmp_path: Path, browser: Browser) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "q.yaml").write_text(echo_cases("q-html"), encoding="utf-8")
    (tmp_path / "ttsbench.yaml").write_text(echo_config(), encoding="utf-8")
    base = run_pytest(tmp_path, "--tts-engine=voice", "--tts-results=base/results.jsonl")
    assert base.returncode == 0, shown(base)
    (row,) = read_results(tmp_path / "base" / "results.jsonl")
    older = f"{row.quality_models['signal']} (an older release)"
    write_results(tmp_path / "base" / "results.jsonl", [replace(row, quality_models={"signal": older})])

    run = run_pytest(
        tmp_path,
        "--tts-engine=voice",
        "--tts-results=run/results.jsonl",
        "--tts-baseline=base/results.jsonl",
        "--tts-allow-unverified",  # its rows were rewritten above
        "--tts-quality-tolerance=speaking_rate=2",
        "--html=report.html",
        "--self-contained-html",
    )
    assert run.returncode == 1, shown(run)
    browser.open((tmp_path / "report.html").as_uri())
    browser.wait_for("document.querySelector('table.ttsbench-quality-gates') !== null")
    (cells,) = browser.evaluate(GATE_ROWS)
    assert cells[0] == "not comparable" and cells[4:6] == ["speaking_rate", "tolerance"]
    text = browser.evaluate("document.body.innerText")
    assert f"signal figures measured by '{older}' in the baseline" in text
    assert browser.evaluate(VERDICT_WORD) == "FAILED" and "--tts-allow-quality-model-change" in text
    assert not browser.errors()


def test_the_report_lists_buckets_a_floor_could_not_check(tmp_path: Path, browser: Browser) -> None:
    # The case file floors DNSMOS, which this run (signal only) does not measure: listed, and the gate fails.
    (tmp_path / "cases").mkdir()
    floors = "quality:\n  floors: {dnsmos_ovrl: 3.0, speaking_rate: 1}\n"
    (tmp_path / "cases" / "q.yaml").write_text(echo_cases("q-html") + floors, encoding="utf-8")
    (tmp_path / "ttsbench.yaml").write_text(echo_config(), encoding="utf-8")
    run = run_pytest(tmp_path, "--tts-engine=voice", "--html=report.html", "--self-contained-html")
    assert run.returncode == 1, shown(run)
    browser.open((tmp_path / "report.html").as_uri())
    browser.wait_for("document.querySelector('table.ttsbench-quality-gates') !== null")
    rows = {(cells[4], cells[5]): cells[0] for cells in browser.evaluate(GATE_ROWS)}
    assert rows == {("dnsmos_ovrl", "floor"): "no figures", ("speaking_rate", "floor"): "ok"}
    text = browser.evaluate("document.body.innerText")
    assert (
        browser.evaluate(VERDICT_WORD) == "FAILED"
        and "floor q-html/dnsmos_ovrl=3 (suite q-html) checked nothing" in text
    )
    assert not browser.errors()
