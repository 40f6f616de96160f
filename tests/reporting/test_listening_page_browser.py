"""A listener's pages in headless Chromium: play a clip, rate, come back, download the CSV, report it."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path

import pytest
from cdp_browser import Browser
from listening_runs import run_prompts

from pytest_ttsbench.cli import main
from pytest_ttsbench.config import EngineProfile

NOTE = 'sounds "fine", a bit fast'


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-listener kit from a real eSpeak NG run: two prompts, three generations."""
    base = tmp_path_factory.mktemp("listening")
    espeak = EngineProfile(name="espeak", type="espeak", voice={"en": "en-us"})
    results = run_prompts({"espeak": espeak}, base / "run")
    assert main(["listening", "export", str(results), "-o", str(base / "kit"), "--listeners", "1", "--seed", "3"]) == 0
    return base / "kit"


def _downloaded(folder: Path, name: str, timeout: float = 15) -> str:
    deadline = time.monotonic() + timeout
    path = folder / name
    while time.monotonic() < deadline:
        if path.is_file() and path.stat().st_size:
            return path.read_text(encoding="utf-8-sig")
        time.sleep(0.1)
    raise AssertionError(f"{name} was not downloaded into {folder}: {sorted(p.name for p in folder.iterdir())}")


def _gesture(browser: Browser, expression: str) -> object:
    """Evaluate as if the user clicked: media may only start playing after a gesture."""
    reply = browser.call(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": True, "userGesture": True},
        session=True,
    )
    assert "exceptionDetails" not in reply, reply
    return reply["result"].get("value")


def test_play_rate_reload_and_download(browser: Browser, kit: Path, tmp_path: Path) -> None:
    key = json.loads((kit / "private" / "key.json").read_text(encoding="utf-8"))
    order = key["listeners"]["L01"]["clips"]
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    page = (kit / "listeners" / "L01.html").as_uri()
    browser.open(page)
    assert browser.errors() == []
    shown = browser.evaluate("[...document.querySelectorAll('[data-unit]')].map((el) => el.dataset.unit)")
    assert shown == order  # the listener's own order
    text = browser.evaluate("document.body.innerText")
    for words in ("1 very poor", "5 excellent", "Pronunciation", "Dialect fit", "Naturalness", "Rated 0 of 6"):
        assert words in text

    first = order[0]
    assert _gesture(browser, f"document.querySelector('#clip-{first} audio').play().then(() => true)") is True
    browser.wait_for(f"document.querySelector('#clip-{first} audio').currentTime > 0")
    assert browser.evaluate(f"document.querySelector('#clip-{first}').dataset.played") == "yes"

    ratings = {order[0]: ("4", "2", "5"), order[1]: ("1", "3", "3")}
    for clip, values in ratings.items():
        for dimension, value in zip(("pronunciation", "dialect_fit", "naturalness"), values, strict=True):
            _gesture(browser, f'document.querySelector(\'input[name="{clip}-{dimension}"][value="{value}"]\').click()')
    _gesture(
        browser,
        f"(() => {{ const t = document.querySelector('#clip-{order[0]} textarea');"
        f" t.value = {json.dumps(NOTE)}; t.dispatchEvent(new Event('input')); }})()",
    )
    assert "Rated 2 of 6" in browser.evaluate("document.getElementById('progress').textContent")

    browser.open(page)  # answers survive closing the page: they live in the browser's storage
    assert browser.evaluate(f"document.querySelector('input[name=\"{order[1]}-pronunciation\"]:checked').value") == "1"
    assert browser.evaluate(f"document.querySelector('#clip-{order[0]} textarea').value") == NOTE

    _gesture(browser, "document.getElementById('download').click()")
    sheet = _downloaded(downloads, "L01-ratings.csv")
    rows = list(csv.DictReader(io.StringIO(sheet)))
    assert list(rows[0]) == ["listener", "clip", "pronunciation", "dialect_fit", "naturalness", "notes"]
    assert [r["clip"] for r in rows] == order
    assert {r["listener"] for r in rows} == {"L01"}
    assert (rows[0]["pronunciation"], rows[0]["dialect_fit"], rows[0]["naturalness"]) == ratings[order[0]]
    assert rows[0]["notes"] == NOTE
    assert (rows[1]["pronunciation"], rows[1]["dialect_fit"], rows[1]["naturalness"]) == ratings[order[1]]
    assert all(r["pronunciation"] == "" for r in rows[2:])
    assert browser.errors() == []

    # The downloaded sheet is what the report reads.
    assert main(["listening", "report", str(kit), str(downloads / "L01-ratings.csv"), "-o", str(tmp_path / "r")]) == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    system = key["clips"][order[0]]["system"]
    prompt = key["clips"][order[0]]["prompt"]
    figures = [f for f in summary["dimensions"] if f["prompt"] == prompt and f["dimension"] == "pronunciation"]
    assert figures and figures[0]["system"] == system and figures[0]["n_listeners"] == 1
    assert any("incomplete sheet" in w for w in summary["warnings"])


def test_consistency_page_groups_generations(browser: Browser, kit: Path, tmp_path: Path) -> None:
    key = json.loads((kit / "private" / "key.json").read_text(encoding="utf-8"))
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    browser.open((kit / "listeners" / "L01-consistency.html").as_uri())
    assert browser.errors() == []
    groups = key["listeners"]["L01"]["groups"]
    assert browser.evaluate("[...document.querySelectorAll('[data-unit]')].map((el) => el.dataset.unit)") == groups
    players = browser.evaluate(
        f"[...document.querySelectorAll('#group-{groups[0]} audio')].map((a) => a.getAttribute('src'))"
    )
    assert players == [f"clips/{c}.wav" for c in key["groups"][groups[0]]["clips"]]
    _gesture(browser, f'document.querySelector(\'input[name="{groups[0]}-consistency"][value="2"]\').click()')
    _gesture(browser, "document.getElementById('download').click()")
    rows = list(csv.DictReader(io.StringIO(_downloaded(downloads, "L01-consistency.csv"))))
    assert list(rows[0]) == ["listener", "group", "consistency", "notes"]
    assert [(r["group"], r["consistency"]) for r in rows] == [(groups[0], "2"), (groups[1], "")]
