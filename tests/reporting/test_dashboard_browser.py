"""``ttsbench dashboard`` over two real nightly runs (eSpeak NG + Whisper, and a replay engine), in Chromium.

Night two changes two items' expectations: the latest run lists them as changed since the night
before, never as regressions or fixes of the voice (a baseline compares like with like).
The site is moved and the runs folder renamed before the pages are opened: every page must load
without console errors, draw its charts, link only to files that exist, and play clips that decode.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cdp_browser import PAGE_FACTS, Browser, local_path
from report_helpers import ESPEAK_CASES, artifacts_dir, run_pytest

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.cli import main
from pytest_ttsbench.quality.measures import DEFAULT_SETS, measure_names
from pytest_ttsbench.reporting.dashboard import item_slug

CONFIG = """\
runs_dir: runs
engines:
  replay: {type: transcripts, path: replay.jsonl}
"""
REPLAY = {
    "report-numerals/bridge-2026": "The new bridge opens in 2026.",
    "report-numerals/lease-date": "The lease runs until March third, 2026.",
    "report-numerals/wrong-on-purpose": "The new bridge opens in 2027.",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("nightly")
    (project / "cases").mkdir()
    (project / "ttsbench.yaml").write_text(CONFIG, encoding="utf-8")
    (project / "replay.jsonl").write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in REPLAY.items()))
    second_night = ESPEAK_CASES.replace('values: ["2027"]', 'values: ["2026"]').replace(
        'text: "The new bridge over the river is scheduled to open in 2026."\n    expect: {values: ["2026"]}',
        'text: "The new bridge over the river is scheduled to open in 2026."\n    expect: {values: ["2099"]}',
        1,
    )
    assert second_night.count("2099") == 1
    for cases in (ESPEAK_CASES, second_night):
        (project / "cases" / "numerals.yaml").write_text(cases, encoding="utf-8")
        done = run_pytest(project, "--tts-engine=espeak,replay", "cases")
        assert "ttsbench summary" in done.stdout, done.stdout + done.stderr
    assert len(list((project / "runs").glob("*/results.jsonl"))) == 2
    built = project / "site"
    assert main(["dashboard", str(project / "runs"), "-o", str(built)]) == 0
    moved = tmp_path_factory.mktemp("published") / "site"
    shutil.copytree(built, moved)
    shutil.rmtree(built)
    (project / "runs").rename(project / "runs-archived")
    return moved


@pytest.mark.parametrize(
    ("page", "charts", "players"),
    [
        # history x2 engines, category and form charts, a quality trend per default (signal) measure;
        # no before/now players: the two changed items are not compared
        ("index.html", 4 + len(measure_names(DEFAULT_SETS)), 0),
        ("items/index.html", 0, 0),
        (f"items/{item_slug('report-numerals/bridge-2026')}.html", 0, 2),  # espeak's two nights
    ],
)
def test_page_in_chromium(site: Path, browser: Browser, page: str, charts: int, players: int, tmp_path: Path) -> None:
    browser.open((site / page).as_uri())
    facts = browser.evaluate(PAGE_FACTS)
    assert browser.errors() == []
    images = facts["images"]
    assert len(images) == charts
    for img in images:
        assert img["complete"] and img["natural"][0] > 0 and img["box"][0] > 0 and img["box"][1] > 0, img
        assert local_path(img["src"]).is_relative_to(site)
    assert len(facts["audios"]) == players
    for audio in facts["audios"]:
        clip = local_path(audio["src"])
        assert clip.is_relative_to(site) and clip.is_file()
        assert 0.5 < decode_audio(clip.read_bytes()).seconds < 10
    for link in facts["links"]:
        assert local_path(link).is_file()
    if page == "index.html":
        changes = facts["text"].split("Changes in the latest run", 1)[1]
        espeak, replay = changes.split("\nreplay\n", 1)  # the engine headings
        # bridge-2026 now expects 2099 and wrong-on-purpose now expects what it says: both items changed,
        # so on either engine they are listed as changed and neither counts as a regression or a fix.
        for engine in (espeak, replay):
            assert "0 regression(s), 0 fix(es), 1 unchanged" in engine
            assert "2 changed since (not compared)" in engine
    name = "dashboard-" + ("index" if page == "index.html" else "items" if page.endswith("index.html") else "item")
    shot = browser.screenshot(artifacts_dir(tmp_path) / f"{name}.png")
    assert shot.stat().st_size > 5_000


FIRST_SCREEN = r"""
(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, left: r.left, right: r.right}; };
  const verdict = document.getElementById('ttsbench-verdict');
  const board = [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Leaderboard'));
  return {
    viewport: [window.innerWidth, window.innerHeight],
    verdict: box(verdict),
    state: verdict.querySelector('.ttsbench-gate-failed, .ttsbench-gate-passed').textContent,
    reasons: [...verdict.querySelectorAll('.ttsbench-gate-reasons li')].map(
      (li) => ({text: li.textContent, ...box(li)})),
    leaderboard: box(board),
    // headers whose longest word (hyphens and slashes may break) is wider than the cell: words split
    squashed: [...document.querySelectorAll('table.data th')].filter((th) => {
      const word = th.textContent.split(/[\s\-\/]+/).reduce((a, b) => (b.length > a.length ? b : a), '');
      const probe = document.createElement('span');
      probe.style.whiteSpace = 'nowrap';
      probe.style.font = getComputedStyle(th).font;
      probe.textContent = word;
      document.body.appendChild(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      const style = getComputedStyle(th);
      return needed > th.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) + 0.5;
    }).map((th) => th.textContent),
  };
})()
"""


@pytest.mark.parametrize(("width", "height"), [(1400, 900), (390, 844)])
def test_first_screen_is_the_latest_verdict_with_its_reasons(
    site: Path, browser: Browser, width: int, height: int, tmp_path: Path
) -> None:
    """Measured in the browser: the latest run's verdict and its first reason start within the first
    screen, above the leaderboard, at a desktop and at a phone width. The second night has an item
    that is wrong on purpose, so it failed; a FAILED must say why. No table header is squashed."""
    browser.open((site / "index.html").as_uri(), width=width, height=height)
    facts = browser.evaluate(FIRST_SCREEN)
    assert browser.errors() == []
    assert facts["viewport"] == [width, height]
    verdict, reasons = facts["verdict"], facts["reasons"]
    assert facts["state"] == "FAILED"
    assert reasons, "a FAILED without reasons"
    assert 0 <= verdict["top"] < height
    assert reasons[0]["top"] < height, reasons[0]
    assert verdict["top"] < facts["leaderboard"]["top"]
    assert all(reason["left"] >= 0 and reason["right"] <= width for reason in reasons), reasons
    assert facts["squashed"] == []  # tables scroll in their box instead of splitting words
    browser.screenshot(artifacts_dir(tmp_path) / f"dashboard-first-screen-{width}.png", max_height=height)
