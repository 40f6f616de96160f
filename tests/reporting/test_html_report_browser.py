"""The HTML report of a real eSpeak NG + Whisper run, opened in headless Chromium.

The report folder is moved before it is opened, and the run's own clips are moved away too, so a
player that still pointed at the run folder would fail. Every page must load without console
errors, draw its charts, and every ``<audio>`` must point at a clip that exists and decodes.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest
from cdp_browser import PAGE_FACTS, Browser, local_path
from report_helpers import ESPEAK_CASES, artifacts_dir, read_jsonl, report_data, run_pytest

from pytest_ttsbench.audio.decoding import decode_audio

ROWS_READY = "document.querySelectorAll('#results-table tbody.results-table-row').length >= 3"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two espeak runs of the same cases: a linked report (under xdist) and a self-contained one."""
    project = tmp_path_factory.mktemp("report-project")
    (project / "cases").mkdir()
    (project / "cases" / "numerals.yaml").write_text(ESPEAK_CASES, encoding="utf-8")
    (project / "ttsbench.yaml").write_text("engines: {}\n", encoding="utf-8")
    linked = run_pytest(
        project, "--tts-engine=espeak", "--tts-results=run1/results.jsonl", "--html=report/report.html", "-n", "2"
    )
    assert "Generated html report" in linked.stdout, linked.stdout + linked.stderr
    single = run_pytest(
        project,
        "--tts-engine=espeak",
        "--tts-results=run2/results.jsonl",
        "--html=single/report.html",
        "--self-contained-html",
    )
    assert "Generated html report" in single.stdout, single.stdout + single.stderr
    # Move both reports away from the project, and the run's clips away from where results say they are.
    moved = tmp_path_factory.mktemp("moved")
    shutil.copytree(project / "report", moved / "report")
    shutil.copy(project / "single" / "report.html", moved / "single-report.html")
    rows = read_jsonl(project / "run1" / "results.jsonl")
    shutil.rmtree(project / "report")
    shutil.rmtree(project / "single")
    for folder in ("run1", "run2"):
        shutil.move(project / folder, project / f"{folder}-elsewhere")
    return {"linked": moved / "report" / "report.html", "single": moved / "single-report.html", "rows": rows}


def test_clips_travel_with_the_report(runs: dict) -> None:
    report = runs["linked"]
    # every side file in one folder named after the report
    assert sorted(p.name for p in report.parent.iterdir()) == ["report.html", "report_files"]
    assert {p.name for p in (report.parent / "report_files").iterdir()} == {"assets", "audio", "charts"}
    audio = sorted((report.parent / "report_files" / "audio").rglob("*.wav"))
    # three items, two with the same text: one clip each per distinct audio, named by content hash
    assert {Path(row["audio_path"]).name for row in runs["rows"]} == {path.name for path in audio}
    cells = [
        cell for entries in report_data(report)["tests"].values() for e in entries for cell in e["resultsTableRow"]
    ]
    players = [cell for cell in cells if "<audio" in cell]
    assert len(players) == 3
    assert all('src="report_files/audio/espeak/report-numerals/' in cell for cell in players)


def _check_page(browser: Browser, facts: dict, min_charts: int) -> None:
    assert browser.errors() == []
    charts = [img for img in facts["images"] if img["attr"]]  # pytest-html has empty <img> templates
    assert len(charts) >= min_charts
    for img in charts:
        assert img["complete"] and img["natural"][0] > 0 and img["box"][0] > 0 and img["box"][1] > 0, img


def _decode_src(src: str) -> float:
    if src.startswith("data:"):
        data = base64.b64decode(src.split(",", 1)[1])
    else:
        path = local_path(src)
        assert path.is_file(), f"audio element points at a missing file: {path}"
        data = path.read_bytes()
    return decode_audio(data).seconds


@pytest.mark.parametrize("kind", ["linked", "single"])
def test_report_in_chromium(runs: dict, browser: Browser, kind: str, tmp_path: Path) -> None:
    report: Path = runs[kind]
    browser.open(report.as_uri())
    browser.wait_for(ROWS_READY)
    facts = browser.evaluate(PAGE_FACTS)
    _check_page(browser, facts, min_charts=2)  # accuracy by category, and by the form facet
    # a player per result row, and one beside the failed item in the verdict section at the top
    assert len(facts["audios"]) == 4
    for audio in facts["audios"]:
        assert audio["src"].startswith("data:audio/wav;base64," if kind == "single" else report.parent.as_uri())
        assert 0.5 < _decode_src(audio["src"]) < 10
    text = facts["text"]
    assert "Text-to-speech benchmark" in text and "Wilson 95% CI" in text
    assert browser.evaluate("document.querySelector('#ttsbench-verdict p').textContent") == "FAILED"  # years 1/2 < 0.6
    assert "missing: 2027" in text
    shot = browser.screenshot(artifacts_dir(tmp_path) / f"html-report-{kind}.png")
    assert shot.stat().st_size > 10_000


LUFS_SORTED = """
(() => {
  const header = document.querySelector('#results-table th[data-column-type="q_loudness_lufs"]');
  header.click();
  const cells = [...document.querySelectorAll('#results-table tbody.results-table-row td.col-q_loudness_lufs')];
  return cells.map((td) => td.innerText.trim());
})()
"""


def test_quality_columns_sort_by_number(runs: dict, browser: Browser) -> None:
    """The default signal measures get a column each; clicking one orders rows by the figure, not its text."""
    browser.open(runs["linked"].as_uri())
    browser.wait_for(ROWS_READY)
    # the per-clip quality table is folded under its heading until opened
    assert browser.evaluate("document.querySelector('details.ttsbench-quality-clips').open") is False
    browser.evaluate("document.querySelector('details.ttsbench-quality-clips').open = true")
    text = browser.evaluate("document.body.innerText")
    assert "Quality per clip" in text and "bootstrap 95% CI" in text
    # the ttsbench::gate row (the release gate's own test) carries no clip and no figure
    shown = [float(v) for v in browser.evaluate(LUFS_SORTED) if v]
    expected = sorted(float(row["quality"]["loudness_lufs"]) for row in runs["rows"])
    # First click sorts ascending. Sorting the shown text would put -19.9 before -20.5 (string order).
    assert len(shown) == 3 and shown == expected
    again = [float(v) for v in browser.evaluate(LUFS_SORTED) if v]
    assert again == shown[::-1]


VERDICT_LAYOUT = """
(() => {
  const top = (el) => el.getBoundingClientRect().top + window.scrollY;
  const verdict = document.querySelector('.ttsbench-gate-failed');
  const reasons = [...document.querySelectorAll('.ttsbench-gate-reasons li')];
  const failed = [...document.querySelectorAll('table.ttsbench-failed-items tbody tr')];
  return {
    verdict: verdict && {text: verdict.innerText, top: top(verdict)},
    reasons: reasons.map((li) => ({text: li.innerText, top: top(li)})),
    failed: failed.map((tr) => ({text: tr.innerText, players: tr.querySelectorAll('audio').length})),
    environment: top(document.getElementById('environment')),
    categories: top(document.querySelector('table.ttsbench-categories')),
  };
})()
"""

# WCAG 2 contrast of each element's computed text colour against the first opaque background
# among it and its ancestors (the canvas, white, when none is set).
CONTRAST = """
((selectors) => {
  const rgba = (css) => {
    const v = css.match(/[\\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const background = (el) => {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const bg = rgba(getComputedStyle(node).backgroundColor);
      if (bg[3] >= 1) return bg;
    }
    return [255, 255, 255, 1];
  };
  const out = {};
  for (const selector of selectors) {
    out[selector] = [...document.querySelectorAll(selector)].filter((el) => el.innerText.trim()).map((el) => {
      const fg = lum(rgba(getComputedStyle(el).color)), bg = lum(background(el));
      return {text: el.innerText.trim().slice(0, 40), ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05)};
    });
  }
  return out;
})
"""
TEXT_STYLES = (
    ".ttsbench-gate-failed",  # the verdict
    ".ttsbench-gate-reasons li",  # each failing bound
    ".ttsbench-failed-items td",
    ".ttsbench-summary td",
    "#environment td",
    "#results-table td",  # the body text of pytest-html's own table, outcomes included
    ".filters span",  # the outcome counts
)


def test_the_report_leads_with_the_verdict_in_readable_text(runs: dict, browser: Browser) -> None:
    """A failing run: the verdict, each failing bound and the failed items with their clips come first,
    above the environment and the figures, in text with at least WCAG AA contrast (4.5:1)."""
    browser.open(runs["linked"].as_uri(), width=1280, height=900)
    browser.wait_for(ROWS_READY)
    layout = browser.evaluate(VERDICT_LAYOUT)
    assert layout["verdict"] is not None and layout["verdict"]["text"] == "FAILED"
    assert layout["verdict"]["top"] < 900
    assert layout["reasons"] and all(reason["top"] < 900 for reason in layout["reasons"]), layout["reasons"]
    assert any("years" in reason["text"] for reason in layout["reasons"])  # years is 1/2 against a 0.6 floor
    assert layout["verdict"]["top"] < layout["environment"] and layout["verdict"]["top"] < layout["categories"]
    (failed,) = layout["failed"]  # only the item that is wrong on purpose
    assert "wrong-on-purpose" in failed["text"] and "missing: 2027" in failed["text"] and failed["players"] == 1

    ratios = browser.evaluate(f"({CONTRAST})({list(TEXT_STYLES)!r})")
    for selector in TEXT_STYLES:
        assert ratios[selector], f"nothing rendered for {selector}"
        low = [seen for seen in ratios[selector] if seen["ratio"] < 4.5]
        assert not low, f"{selector}: contrast below 4.5:1 for {low[:3]}"
    assert browser.errors() == []


LEGIBILITY = """
(() => {
  const table = document.getElementById('results-table');
  const headers = [...table.querySelectorAll('thead th')];
  const box = table.getBoundingClientRect();
  table.scrollLeft = table.scrollWidth;  // the last column, scrolled into the table's own box
  const last = headers[headers.length - 1].getBoundingClientRect();
  const fail = [...document.querySelectorAll('.ttsbench-floors td span')].filter((s) => s.textContent === 'FAIL');
  return {
    title: document.title,
    viewport: window.innerWidth,
    page: document.documentElement.scrollWidth,
    table: {left: box.left, right: box.right},
    last: {left: last.left, right: last.right, text: headers[headers.length - 1].textContent},
    failColours: fail.map((s) => getComputedStyle(s).color),
    // the outermost elements past the window's right edge: what makes the page scroll sideways
    wide: [...document.body.querySelectorAll('*')].filter((el) =>
      el.getBoundingClientRect().right > window.innerWidth + 1
      && el.parentElement.getBoundingClientRect().right <= window.innerWidth + 1
      && getComputedStyle(el.parentElement).overflowX === 'visible')
      .map((el) => `${el.tagName}#${el.id}.${el.className}`).slice(0, 8),
  };
})()
"""


@pytest.mark.parametrize("width", [1400, 390])
def test_the_report_is_legible_at_desktop_and_phone_width(runs: dict, browser: Browser, width: int) -> None:
    """Measured in Chromium: the results table scrolls in its own box (the page never runs past the
    window, the last column is reachable), FAIL is red in the floors table, and the title names the
    engine and the run instead of the file name."""
    browser.open(runs["linked"].as_uri(), width=width, height=900)
    browser.wait_for(ROWS_READY)
    facts = browser.evaluate(LEGIBILITY)
    assert facts["title"] == "TTS benchmark: espeak · run run1"
    assert facts["page"] <= facts["viewport"], f"the page runs past the window's edge: {facts['wide']}"
    assert facts["table"]["right"] <= facts["viewport"]
    assert facts["table"]["left"] <= facts["last"]["left"] and facts["last"]["right"] <= facts["table"]["right"] + 1
    assert facts["failColours"] and set(facts["failColours"]) == {"rgb(207, 34, 46)"}  # years 1/2 under 60 %
