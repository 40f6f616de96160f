"""A static dashboard built from many runs' results files: history, leaderboard, changes, items.

Input is a folder of nightly runs, each ``RUNS/<run>/results.jsonl`` (the plugin's default layout)
or ``RUNS/<run>.jsonl``, with any number of engines per file. Output is a folder of plain HTML
pages, SVG charts drawn by matplotlib and copies of the clips, linked relatively, so it opens from
disk (``file://``) with no server and no network, and survives being moved or archived whole:

* ``index.html``: the latest leaderboard, strict accuracy per engine × category over the runs
  (with Wilson 95 % bands), the latest run's category table and charts, and per engine the
  regressions and fixes of its latest run against its previous one (matched by item id and
  target), each with both transcripts and both clips, the change in clip duration and speaking
  rate, and every earlier run against its own predecessor folded below it;
* ``items/index.html`` and one page per item (per target) with every run's verdict, transcript
  and clip for every engine.

Every figure comes from the results files alone, read by :mod:`pytest_ttsbench.runs`: several
generations of an item (``--tts-repeats``) count once, under the run's repeat policy, as in the gate
(in the changes: by majority flip, flaky pairs apart, as the baseline comparison counts them).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

from pytest_ttsbench.gating.baseline import compare
from pytest_ttsbench.gating.summary import summarize
from pytest_ttsbench.naming import safe_name
from pytest_ttsbench.reporting import plots
from pytest_ttsbench.reporting.html import (
    CSS,
    ClipStore,
    category_table_html,
    charts_for,
    esc,
    evidence_text,
    expected_text,
    heard_html,
    verdict_html,
)
from pytest_ttsbench.reporting.leaderboard import entry_from_run, ranked
from pytest_ttsbench.results import ItemResult
from pytest_ttsbench.runs import Run, find_runs

PAGE_CSS = (
    CSS
    + """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#1f2328;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em;border-bottom:1px solid #d0d7de}
table.data{border-collapse:collapse;margin:.5em 0 1em;max-width:100%}
table.data th,table.data td{border:1px solid #d0d7de;padding:3px 6px;vertical-align:top;text-align:left;
overflow-wrap:anywhere}
table.data audio{width:11em;max-width:100%}
details.pair{margin:.3em 0}details.pair summary{cursor:pointer}
.wide{overflow-x:auto}
nav a{margin-right:1em}
img.chart{max-width:100%;height:auto;display:block;margin:.5em 0}
.muted{color:#57606a}
"""
)


def item_slug(key: str) -> str:
    """A file name for an item page: readable, and unique (``safe_name`` adds a hash of a changed key)."""
    return safe_name(key)


def _page(title: str, body: str, depth: int = 0) -> str:
    up = "../" * depth
    nav = f'<nav><a href="{up}index.html">Dashboard</a><a href="{up}items/index.html">All items</a></nav>'
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{PAGE_CSS}</style></head>"
        f"<body>{nav}<h1>{esc(title)}</h1>{body}</body></html>\n"
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of cells that are already HTML (callers escape)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    # Cells wrap; a table with a column per run scrolls inside its own box, never the page.
    return f'<div class="wide"><table class="data"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


class Dashboard:
    """Builds the site; one instance per build."""

    def __init__(self, runs: list[Run], site: Path, title: str = "TTS benchmark dashboard") -> None:
        self.runs = runs  # one per engine and results file, oldest first
        self.site = site
        self.title = title
        self.clips = ClipStore(site)
        self.engines = sorted({run.system for run in runs})
        #: each results file's runs, oldest file first: what the "Runs" table lists
        self.files: dict[Path, list[Run]] = {}
        for run in runs:
            self.files.setdefault(run.path, []).append(run)

    def runs_with(self, engine: str) -> list[Run]:
        return [run for run in self.runs if run.system == engine]

    def build(self) -> Path:
        self.site.mkdir(parents=True, exist_ok=True)
        (self.site / "items").mkdir(exist_ok=True)
        index = self.site / "index.html"
        index.write_text(self.index_html(), encoding="utf-8")
        self.write_item_pages()
        return index

    def _chart(self, stem: str, alt: str, svg: bytes, depth: int = 0) -> str:
        path = plots.write_svg(self.site / "charts" / f"{safe_name(stem)}.svg", svg)
        src = "../" * depth + path.relative_to(self.site).as_posix()
        return f'<img class="chart" alt="{esc(alt)}" src="{esc(src)}">'

    # --- index -------------------------------------------------------------------------------

    def latest_rows(self) -> list[ItemResult]:
        """Each engine's rows from the latest run that has it."""
        return [row for engine in self.engines for row in self.runs_with(engine)[-1].items]

    def index_html(self) -> str:
        latest = self.latest_rows()
        parts = [
            f'<p class="muted">{len(self.files)} run(s), {len(self.engines)} engine(s): '
            f"{esc(', '.join(self.engines))}. Latest run: {esc(self.runs[-1].name)}.</p>",
            "<h2>Leaderboard (each engine's latest run)</h2>",
            self.leaderboard_html(),
            "<h2>Strict accuracy over time</h2>",
        ]
        for engine in self.engines:
            parts.append(f"<h3>{esc(engine)}</h3>" + self.history_html(engine) + self.history_table_html(engine))
        parts.append("<h2>Latest results by category</h2>")
        parts.append('<div class="ttsbench-summary">' + category_table_html(latest) + "</div>")
        for stem, alt, svg in charts_for(latest):
            parts.append(self._chart(f"latest-{stem}", alt, svg))
        parts.append("<h2>Changes in the latest run</h2>")
        for engine in self.engines:
            parts.append(f"<h3>{esc(engine)}</h3>" + self.changes_html(engine))
        earlier = [(engine, self.earlier_changes_html(engine)) for engine in self.engines]
        if any(html for _, html in earlier):
            parts.append("<h2>Earlier changes (each run against the one before it)</h2>")
            parts += [f"<h3>{esc(engine)}</h3>{html}" for engine, html in earlier if html]
        parts.append("<h2>Runs</h2>" + self.runs_html())
        return _page(self.title, "".join(parts))

    def runs_html(self) -> str:
        """Every run, newest first, with its engines, its size and its release gate's verdict."""
        rows = []
        for runs in reversed(self.files.values()):
            run = runs[0]
            if run.gate is None:
                gate = '<span class="muted">not gated</span>'
            elif run.gate.get("passed"):
                gate = '<span class="ttsbench-gate-passed">passed</span>'
            else:
                reasons = "".join(f"<li>{esc(reason)}</li>" for reason in run.gate.get("reasons") or [])
                gate = f'<span class="ttsbench-gate-failed">FAILED</span><ul>{reasons}</ul>'
            started = run.started.strftime("%Y-%m-%d %H:%M UTC")
            engines = ", ".join(sorted(r.system for r in runs))
            rows.append([esc(run.name), esc(started), esc(engines), str(sum(len(r.items) for r in runs)), gate])
        return _table(("run", "started", "engines", "targets", "gate"), rows)

    def history_table_html(self, engine: str) -> str:
        """The figures behind the history chart: strict accuracy and Wilson interval per category and run."""
        runs = self.runs_with(engine)
        per_run = [summarize(run.items, ["suite", "category"]) for run in runs]
        lines = sorted({key for figures in per_run for key in figures})
        rows = []
        for key in lines:
            cells = [esc("/".join(key))]
            for figures in per_run:
                bucket = figures.get(key)
                if bucket is None or bucket.strict_accuracy is None:
                    cells.append("-")
                    continue
                low, high = bucket.ci95 or (0.0, 0.0)
                cells.append(
                    f"{100 * bucket.strict_accuracy:.1f}% ({bucket.correct}/{bucket.n})"
                    f'<br><span class="muted">[{100 * low:.1f}, {100 * high:.1f}]</span>'
                )
            rows.append(cells)
        return _table(("category", *(run.name for run in runs)), rows)

    def leaderboard_html(self) -> str:
        entries = [entry_from_run(self.runs_with(engine)[-1]) for engine in self.engines]
        rows = []
        for rank, entry in ranked(entries):
            accuracy = "-" if entry.strict_accuracy is None else f"{100 * entry.strict_accuracy:.1f}%"
            bucket = summarize(self.runs_with(entry.system)[-1].items, [])[()]
            ci = bucket.ci95
            interval = "-" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"
            rows.append(
                [
                    str(rank),
                    esc(entry.system),
                    accuracy,
                    interval,
                    str(entry.correct),
                    str(entry.wrong),
                    str(entry.unknown),
                    str(bucket.n),
                    esc(entry.date),
                    esc(", ".join(entry.asr_routes)),
                ]
            )
        header = (
            "rank",
            "engine",
            "strict accuracy",
            "Wilson 95% CI",
            "correct",
            "wrong",
            "unknown",
            "n",
            "date",
            "ASR routes",
        )
        return _table(header, rows)

    def history_html(self, engine: str) -> str:
        runs = self.runs_with(engine)
        points = [
            plots.Point(run.name, f"{suite}/{category}", bucket)
            for run in runs
            for (suite, category), bucket in summarize(run.items, ["suite", "category"]).items()
        ]
        svg = plots.history_chart_svg(points, [run.name for run in runs], f"{engine}: strict accuracy per category")
        return self._chart(f"history-{engine}", f"{engine}: strict accuracy per category over runs", svg)

    def changes_html(self, engine: str) -> str:
        """The latest run of an engine against the run before it."""
        runs = self.runs_with(engine)
        if len(runs) < 2:
            return '<p class="muted">Only one run: nothing to compare.</p>'
        return self.pair_html(runs[-2], runs[-1])

    def earlier_changes_html(self, engine: str) -> str:
        """Every earlier run against its predecessor, newest first, folded: no regression is ever out of reach."""
        runs = self.runs_with(engine)
        parts = []
        for before_run, after_run in reversed(list(pairwise(runs[:-1]))):
            comparison = compare(before_run.rows, after_run.rows)
            summary = (
                f"{after_run.name} against {before_run.name}: {len(comparison.regressions)} regression(s), "
                f"{len(comparison.fixes)} fix(es)"
            )
            parts.append(
                f'<details class="pair"><summary>{esc(summary)}</summary>'
                f"{self.pair_html(before_run, after_run)}</details>"
            )
        return "".join(parts)

    def pair_html(self, before_run: Run, after_run: Run) -> str:
        """One run against its predecessor: counts, McNemar p, audio change, then each changed item.

        Pairs count by majority flip over an item's generations, flaky pairs apart, as in the gate.
        """
        comparison = compare(before_run.rows, after_run.rows)
        before = {r.key: r for r in before_run.rows if r.repeat == 0}
        after = {r.key: r for r in after_run.rows if r.repeat == 0}
        parts = [
            f'<p class="muted">{esc(after_run.name)} against {esc(before_run.name)}: '
            f"{len(comparison.regressions)} regression(s), {len(comparison.fixes)} fix(es), "
            f"{comparison.unchanged} unchanged, {len(comparison.new)} new, {len(comparison.missing)} gone; "
            f"McNemar exact p = {comparison.mcnemar_p:.3g}.</p>"
        ]
        if comparison.audio is not None:
            parts.append(f'<p class="muted">{esc(comparison.audio.line())}</p>')
        for name, (was, now) in comparison.provenance.items():
            parts.append(f'<p class="muted">changed {esc(name)}: {esc(was or "-")} → {esc(now or "-")}</p>')
        for label, keys in (("Regressions", comparison.regressions), ("Fixes", comparison.fixes)):
            if not keys:
                continue
            rows = [self._change_row(before[key], before_run, after[key], after_run) for key in keys]
            header = (
                "item",
                "category",
                "text",
                "before",
                "heard before",
                "clip before",
                "now",
                "heard now",
                "evidence now",
                "clip now",
            )
            parts.append(f"<h4>{label}</h4>" + _table(header, rows))
        return "".join(parts)

    def _change_row(self, old: ItemResult, old_run: Run, new: ItemResult, new_run: Run) -> list[str]:
        return [
            f'<a href="items/{item_slug(new.key)}.html">{esc(new.key)}</a>',
            esc(new.category),
            esc(new.text),
            verdict_html(old.verdict),
            heard_html(old),
            self.clips.player(old, old_run.path),
            verdict_html(new.verdict),
            heard_html(new),
            esc(evidence_text(new)),
            self.clips.player(new, new_run.path),
        ]

    # --- items -------------------------------------------------------------------------------

    def write_item_pages(self) -> None:
        keys: dict[str, dict[str, ItemResult]] = {}  # key → engine → latest row
        for run in self.runs:
            for row in run.items:
                keys.setdefault(row.key, {})[row.engine] = row
        listing = []
        for key in sorted(keys):
            slug = item_slug(key)
            (self.site / "items" / f"{slug}.html").write_text(self.item_html(key), encoding="utf-8")
            latest = "".join(f"<div>{esc(e)}: {verdict_html(r.verdict)}</div>" for e, r in sorted(keys[key].items()))
            any_row = next(iter(keys[key].values()))
            listing.append([f'<a href="{slug}.html">{esc(key)}</a>', esc(any_row.category), esc(any_row.text), latest])
        body = _table(("item", "category", "text", "latest verdict"), listing)
        (self.site / "items" / "index.html").write_text(_page("All items", body, depth=1), encoding="utf-8")

    def item_html(self, key: str) -> str:
        page_dir = self.site / "items"
        rows, latest = [], None
        for run in self.runs:
            for row in run.items:
                if row.key != key:
                    continue
                latest = row
                rows.append(
                    [
                        esc(run.name),
                        esc(row.engine),
                        esc(expected_text(row)),
                        verdict_html(row.verdict),
                        heard_html(row),
                        esc(evidence_text(row)),
                        "" if row.cer is None else f"{row.cer:.3f}",
                        self.clips.player(row, run.path, page_dir),
                    ]
                )
        assert latest is not None  # only keys seen in some run get a page
        intro = (
            f"<p><b>Suite</b> {esc(latest.suite)} · <b>category</b> {esc(latest.category)} · "
            f"<b>language</b> {esc(latest.language)}</p><p><b>Text</b> {esc(latest.text)}</p>"
        )
        table = _table(("run", "engine", "expected", "verdict", "heard", "evidence", "CER", "clip"), rows)
        return _page(key, intro + table, depth=1)


def build_dashboard(runs_dir: Path, site: Path, title: str = "TTS benchmark dashboard") -> tuple[Path, list[Run]]:
    """Build the site for every run under ``runs_dir`` into ``site``; returns its ``index.html`` and the runs."""
    runs = find_runs(runs_dir)
    return Dashboard(runs, site, title).build(), runs
