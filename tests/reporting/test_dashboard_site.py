"""``ttsbench dashboard``: the static site built from several nightly results files.

The runs here are written directly as results files (two engines, three nights, one of them a
flat ``*.jsonl``) with small WAV clips, so every expected figure is known by construction.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
import struct
import wave
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_helpers import cell_text

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.cli import main
from pytest_ttsbench.reporting.dashboard import item_slug
from pytest_ttsbench.run_model.reader import find_runs
from pytest_ttsbench.run_model.results import ItemResult, write_results


def tone(path: Path, hz: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(
            b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / 16000))) for i in range(8000))
        )
    return path


def row(
    engine: str,
    key: str,
    verdict: str,
    night: int,
    run_dir: Path,
    target: str | None = None,
    category: str = "years",
    text: str = "It opened in 2026.",
    transcript: str = "",
    facets=None,
) -> ItemResult:
    suite, item = key.split("/")
    clip = None
    if engine == "alpha":  # alpha keeps clips; beta is a replay engine without audio
        name = f"{item}-{night}{'-' + target if target else ''}.wav"
        clip = tone(run_dir / "audio" / engine / suite / name, 200 + 100 * night)
    return ItemResult(
        engine=engine,
        suite=suite,
        id=key,
        target=target,
        category=category,
        language="en",
        facets=facets or {"form": "western"},
        verdict=verdict,  # type: ignore[arg-type]
        transcript=transcript or f"heard on night {night}",
        expected={"values": ["2026"]},
        evidence={"missing": [] if verdict == "correct" else ["2026"]},
        # recorded where the run was made, on another machine: the dashboard must find the clip anyway
        audio_path=f"/elsewhere/{run_dir.name}/audio/{engine}/{suite}/{clip.name}" if clip else None,
        started_at=f"2026-11-{20 + night:02d}T02:00:00+00:00",
        text=text,
        scorer="numbers",
        transcripts={"whisper:base": transcript or f"heard on night {night}"},
        route_verdicts={"whisper:base": verdict},
    )


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    """Three nights. The names sort against time (zz- is the oldest) to prove runs are ordered by date."""
    runs = tmp_path / "runs"
    verdicts = {  # (engine, key, target) -> verdict per night 1, 2, 3
        ("alpha", "nums/a", None): ["correct", "correct", "wrong"],  # regression on night 3
        ("alpha", "nums/b", None): ["wrong", "wrong", "correct"],  # fix on night 3
        ("alpha", "nums/c", None): ["correct", "wrong", "wrong"],  # regressed earlier: not in the latest
        ("alpha", "news/m", "歼-20"): ["correct", "correct", "wrong"],  # same item, two targets:
        ("alpha", "news/m", "运-20"): ["wrong", "wrong", "correct"],  # matched by id and target
        ("beta", "nums/a", None): ["wrong", "correct", "correct"],
        ("beta", "nums/b", None): ["correct", "correct", "correct"],
    }
    folders = {1: runs / "zz-oldest", 2: runs / "mm-middle", 3: runs / "aa-latest"}
    for night, folder in folders.items():
        rows = [
            row(
                engine,
                key,
                outcome[night - 1],
                night,
                folder,
                target,
                category="military" if key.startswith("news") else "years",
                text="<b>bold</b> & 2026" if key == "nums/c" else "It opened in 2026.",
                facets={"form": "western" if key != "nums/b" else "eastern"},
            )
            for (engine, key, target), outcome in verdicts.items()
        ]
        write_results(folder / "results.jsonl", rows)
    # the middle night as a flat results file, its clips in <stem>-audio/
    flat = runs / "mm-middle.jsonl"
    (runs / "mm-middle" / "results.jsonl").rename(flat)
    (runs / "mm-middle" / "audio").rename(runs / "mm-middle-audio")
    (runs / "mm-middle").rmdir()
    (runs / "notes.txt").write_text("not a run", encoding="utf-8")
    # gate sidecars as the plugin writes them: the latest night failed its gate, the middle one passed
    gate = {"passed": False, "reasons": ["alpha nums/years: strict accuracy 33.3% below floor 50.0%"]}
    (runs / "aa-latest" / "results.gate.json").write_text(json.dumps(gate), encoding="utf-8")
    (runs / "mm-middle.gate.json").write_text(json.dumps({"passed": True, "reasons": []}), encoding="utf-8")
    return runs


class Page(HTMLParser):
    """The links, images and players of one page."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.audio: list[str] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "audio":
            self.audio.append(values["src"] or "")
        elif tag == "img":
            self.images.append(values["src"] or "")
        elif tag == "a":
            self.links.append(values["href"] or "")

    def resolve(self, src: str) -> Path:
        assert not re.match(r"^[a-z]+:", src) and not src.startswith("/"), f"not a relative link: {src}"
        return (self.path.parent / src).resolve()


def table_after(text: str, heading: str) -> list[list[str]]:
    """The rows of the first table after a heading, as visible text."""
    start = text.index(heading)
    table = text[start : text.index("</table>", start)]
    return [
        [cell_text(c) for c in re.findall(r"<td>(.*?)</td>", r, re.S)]
        for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)
    ][1:]


def test_runs_are_found_and_ordered_by_date(runs_dir: Path) -> None:
    runs = find_runs(runs_dir)
    names = ["zz-oldest", "mm-middle", "aa-latest"]
    assert [(run.name, run.system) for run in runs] == [
        (name, engine) for name in names for engine in ("alpha", "beta")
    ]


def test_dashboard_site(runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    assert main(["dashboard", str(runs_dir), "-o", str(site)]) == 0
    assert "3 run(s), engines: alpha, beta" in capsys.readouterr().out
    index = (site / "index.html").read_text(encoding="utf-8")

    # leaderboard from each engine's latest night: beta 2/2, alpha 2/5
    board = table_after(index, "Leaderboard")
    assert [r[:3] for r in board] == [["1", "beta", "100.0%"], ["2", "alpha", "40.0%"]]
    assert board[1][3] == "[11.8, 76.9]"  # Wilson interval of 2/5

    # the figures behind alpha's history chart, per category and night, with Wilson intervals
    history = table_after(index, "history-alpha.svg")
    assert history[0][0] == "news/military"
    assert history[1] == [
        "nums/years",
        "66.7% (2/3) [20.8, 93.9]",
        "33.3% (1/3) [6.1, 79.2]",
        "33.3% (1/3) [6.1, 79.2]",
    ]

    # every run, newest first, with its gate verdict from the sidecar
    runs_table = table_after(index, "<h2>Runs</h2>")
    assert [(r[0], r[2], r[3]) for r in runs_table] == [
        ("aa-latest", "alpha, beta", "7"),
        ("mm-middle", "alpha, beta", "7"),
        ("zz-oldest", "alpha, beta", "7"),
    ]
    assert runs_table[0][4] == "FAILED alpha nums/years: strict accuracy 33.3% below floor 50.0%"
    assert [r[4] for r in runs_table[1:]] == ["passed", "not gated"]

    # regressions and fixes of the latest night against the one before, per engine, by id + target
    alpha = index[index.index("<h3>alpha</h3>", index.index("Changes in the latest run")) :]
    alpha = alpha[: alpha.index("<h3>beta</h3>")]
    assert "aa-latest against mm-middle: 2 regression(s), 2 fix(es), 1 unchanged" in alpha
    regressions = alpha[alpha.index("<h4>Regressions</h4>") : alpha.index("<h4>Fixes</h4>")]
    fixes = alpha[alpha.index("<h4>Fixes</h4>") :]
    assert re.findall(r">(nums/a|news/m/\S+?)</a>", regressions) == ["news/m/歼-20", "nums/a"]
    assert re.findall(r">(nums/b|news/m/\S+?)</a>", fixes) == ["news/m/运-20", "nums/b"]
    assert "heard on night 2" in regressions and "heard on night 3" in regressions
    beta = index[index.index("<h3>beta</h3>", index.index("Changes in the latest run")) :]
    assert "0 regression(s), 0 fix(es), 2 unchanged" in beta

    # every player and chart resolves inside the site, and every clip decodes
    page = Page(site / "index.html")
    assert len(page.audio) == 10  # (4 changed targets in the latest run + nums/c the night before) x (before, now)
    for src in page.audio + page.images:
        assert page.resolve(src).is_relative_to(site.resolve()) and page.resolve(src).is_file()
    for src in page.audio:
        assert decode_audio(page.resolve(src).read_bytes()).seconds == pytest.approx(0.5)
    assert {Path(src).name for src in page.images} >= {
        "history-alpha.svg",
        "history-beta.svg",
        "latest-accuracy-by-category.svg",
        "latest-accuracy-by-form.svg",
    }
    history = (site / "charts" / "history-alpha.svg").read_text(encoding="utf-8")
    assert all(name in history for name in ("zz-oldest", "mm-middle", "aa-latest", "nums/years", "news/military"))

    # one page per target, with every night of every engine, linked from the item list
    listing = Page(site / "items" / "index.html")
    keys = ["news/m/歼-20", "news/m/运-20", "nums/a", "nums/b", "nums/c"]
    assert sorted(listing.links[2:]) == sorted(f"{item_slug(k)}.html" for k in keys)
    item = site / "items" / f"{item_slug('nums/a')}.html"
    rows = table_after(item.read_text(encoding="utf-8"), "<table")
    assert all(r[2] == "values 2026" for r in rows)  # what each run expected
    assert [(r[0], r[1], r[3]) for r in rows] == [
        ("zz-oldest", "alpha", "correct"),
        ("zz-oldest", "beta", "wrong"),
        ("mm-middle", "alpha", "correct"),
        ("mm-middle", "beta", "correct"),
        ("aa-latest", "alpha", "wrong"),
        ("aa-latest", "beta", "correct"),
    ]
    item_page = Page(item)
    assert len(item_page.audio) == 3  # alpha's three nights; beta has no clips
    sources = {hashlib.sha256(item_page.resolve(src).read_bytes()).hexdigest() for src in item_page.audio}
    assert len(sources) == 3  # three different clips, not one copied thrice
    assert item_page.links == ["../index.html", "../items/index.html"]

    # text from the results is escaped, never markup
    c_page = (site / "items" / f"{item_slug('nums/c')}.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; 2026" in c_page and "<b>bold</b>" not in c_page
    assert html.unescape("&lt;b&gt;") == "<b>"


def test_dashboard_refuses_an_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs").mkdir()
    assert main(["dashboard", str(tmp_path / "runs"), "-o", str(tmp_path / "site")]) == 2
    assert "no results files" in capsys.readouterr().err
    assert main(["dashboard", str(tmp_path / "missing"), "-o", str(tmp_path / "site")]) == 2
    assert "not a folder of runs" in capsys.readouterr().err


LEGIBILITY = """
(() => {
  const pairs = [...document.querySelectorAll('details.pair')];
  pairs.forEach((el) => { el.open = true; });
  const overflowing = [...document.querySelectorAll('table')].filter((t) => {
    const box = t.closest('.wide') || t;
    return box.getBoundingClientRect().right > document.documentElement.clientWidth + 1;
  }).length;
  return {
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    overflowing,
    pairs: pairs.map((el) => el.innerText),
    charts: [...document.querySelectorAll('img.chart')].map((el) => el.getBoundingClientRect().width),
  };
})()
"""


def test_dashboard_is_legible_at_1280_px_and_keeps_earlier_regressions_reachable(
    runs_dir: Path, tmp_path: Path, browser
) -> None:
    site = tmp_path / "site"
    assert main(["dashboard", str(runs_dir), "-o", str(site)]) == 0
    browser.open((site / "index.html").as_uri(), width=1280, height=900)
    facts = browser.evaluate(LEGIBILITY)
    assert browser.errors() == []
    # Nothing wider than the window: cells wrap, wide tables scroll inside their own box.
    assert facts["scrollWidth"] <= facts["clientWidth"] <= 1280
    assert facts["overflowing"] == 0
    # nums/c regressed on the middle night; the latest run no longer shows it, the earlier pair does.
    alpha_pairs = [text for text in facts["pairs"] if "mm-middle against zz-oldest" in text]
    assert alpha_pairs and "nums/c" in alpha_pairs[0]
    assert "1 regression(s)" in alpha_pairs[0]
    # Trend charts are drawn to be read: most of the page's width.
    history = facts["charts"][:2]
    assert history and all(width >= 700 for width in history), facts["charts"]
