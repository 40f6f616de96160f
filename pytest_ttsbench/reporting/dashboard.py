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

Every figure comes from the results files alone, read by :mod:`pytest_ttsbench.run_model.reader`: several
generations of an item (``--tts-repeats``) count once, under the run's repeat policy, as in the gate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

from markupsafe import Markup

from pytest_ttsbench.figures.summary import summarize
from pytest_ttsbench.gating.baseline import attach_provenance, compare
from pytest_ttsbench.reporting import plots
from pytest_ttsbench.reporting.comparison import audio_line, provenance_lines
from pytest_ttsbench.reporting.html import (
    ClipStore,
    category_table_html,
    charts_for,
    evidence_text,
    expected_text,
    heard_html,
    verdict_html,
)
from pytest_ttsbench.reporting.leaderboard import LeaderboardEntry, entries_from_runs, entry_from_run, ranked
from pytest_ttsbench.reporting.run_verdict import RunVerdict, run_verdict
from pytest_ttsbench.reporting.templating import render, stylesheet
from pytest_ttsbench.run_model.reader import Run, find_runs
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.text import safe_name

LEADERBOARD_HEADER = (
    "rank",
    "engine",
    "strict accuracy",
    "Wilson 95% CI",
    "correct",
    "wrong",
    "unknown",
    "n",
    "items run",
    "date",
    "ASR routes",
    "note",
)
CHANGE_HEADER = (
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
ITEM_HEADER = ("run", "engine", "expected", "verdict", "heard", "evidence", "CER", "clip")


def verdict_markup(verdict: RunVerdict) -> Markup:
    """A run's verdict for a table cell: FAILED always with its reasons."""
    if verdict.state == "not gated":
        return Markup('<span class="muted">not gated</span>')
    if verdict.state == "passed":
        return Markup('<span class="ttsbench-gate-passed">passed</span>')
    reasons = Markup("").join(Markup("<li>{}</li>").format(r) for r in verdict.reasons)
    return Markup('<span class="ttsbench-gate-failed">FAILED</span><ul class="ttsbench-gate-reasons">{}</ul>').format(
        reasons
    )


def item_slug(key: str) -> str:
    """A file name for an item page: readable, and unique (``safe_name`` adds a hash of a changed key)."""
    return safe_name(key)


def _page(template: str, title: str, depth: int = 0, **context: Any) -> str:
    """A whole page: ``template`` extends ``dashboard/page.html.j2`` (nav, title, stylesheets)."""
    css = stylesheet("report.css") + stylesheet("dashboard.css")
    return str(render(template, title=title, css=css, up="../" * depth, **context)) + "\n"


def accuracy_colour(accuracy: float) -> str:
    """A light background for an accuracy grid cell: red at 0 %, amber at 50 %, green at 100 %.

    Kept light (lightness 85 %) so the cell's dark text keeps WCAG AA contrast at every value.
    """
    return f"hsl({round(120 * max(0.0, min(1.0, accuracy)))}, 70%, 85%)"


def selected_items(run: Run) -> set[str]:
    """The item ids a run scored (auto-evaluable ones): what its figure covers."""
    return {row.id for row in run.items if row.auto_evaluable}


@dataclass(frozen=True)
class Selection:
    """Which of an engine's runs the leaderboard ranks, and a later partial one it shows unranked."""

    ranked: Run
    partial: Run | None
    #: every item id any of the engine's runs scored: what "full" is measured against
    universe: frozenset[str]

    def coverage(self, run: Run) -> str:
        return f"{len(selected_items(run))} of {len(self.universe)} items"


def comparable_selection(runs: list[Run]) -> Selection:
    """The latest of an engine's widest runs is ranked; a later run that covers fewer items is partial.

    ``runs`` are one engine's runs, oldest first. The widest selection is the largest number of items
    any run scored; a run selected with ``-k`` after it covers fewer and is shown, not ranked.
    """
    universe = frozenset().union(*(selected_items(run) for run in runs))
    widest = max(len(selected_items(run)) for run in runs)
    full = [run for run in runs if len(selected_items(run)) == widest][-1]
    latest = runs[-1]
    return Selection(ranked=full, partial=None if latest is full else latest, universe=universe)


def previous_comparable(runs: list[Run]) -> tuple[Run | None, str]:
    """The run the latest of ``runs`` (one engine's, oldest first) is compared with, and why that one.

    Like with like: the latest earlier run of the same selection (the same scored items, and the same
    engines in its results file). Without one, the earlier run whose selection overlaps most (the
    latest such), said in the note, so a five-item ``-k`` run never stands in for the full run before it.
    """
    latest, earlier = runs[-1], runs[:-1]
    if not earlier:
        return None, ""
    wanted = selected_items(latest)
    same = [run for run in earlier if selected_items(run) == wanted and _engines_of(run) == _engines_of(latest)]
    if same:
        return same[-1], ""

    def overlap(run: Run) -> float:
        theirs = selected_items(run)
        union = wanted | theirs
        return len(wanted & theirs) / len(union) if union else 1.0

    best = max(reversed(earlier), key=overlap)  # reversed: of equal overlaps, the latest
    shared = len(wanted & selected_items(best))
    return best, (
        f"No earlier run selected the same {len(wanted)} item(s); compared with {best.name}, the closest "
        f"selection ({shared} item(s) in common of its {len(selected_items(best))})."
    )


def _engines_of(run: Run) -> frozenset[str]:
    """The engines a run's results file holds: part of what a run selected."""
    header = run.header
    if header is not None and header.selected is not None:
        return frozenset(header.selected)
    return frozenset({run.system})


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

    def _chart(self, stem: str, alt: str, svg: bytes, depth: int = 0) -> Markup:
        path = plots.write_svg(self.site / "charts" / f"{safe_name(stem)}.svg", svg)
        src = "../" * depth + path.relative_to(self.site).as_posix()
        return Markup('<img class="chart" alt="{}" src="{}">').format(alt, src)

    # --- index -------------------------------------------------------------------------------

    def latest_rows(self) -> list[ItemResult]:
        """Each engine's rows from the latest run that has it."""
        return [row for engine in self.engines for row in self.runs_with(engine)[-1].items]

    def index_html(self) -> str:
        latest = self.latest_rows()
        verdict = self.latest_verdict()
        return _page(
            "dashboard/index.html.j2",
            self.title,
            page_title=f"{self.title}: {verdict['name']} ({verdict['engines']})",
            files=len(self.files),
            engines=self.engines,
            latest=self.runs[-1].name,
            verdict=verdict,
            leaderboard_header=LEADERBOARD_HEADER,
            leaderboard=self.leaderboard_rows(),
            history=[
                {"name": engine, "chart": self.history_html(engine), **self.history_table(engine)}
                for engine in self.engines
            ],
            quality=self.quality_sections(),
            categories=category_table_html(latest),
            charts=[self._chart(f"latest-{stem}", alt, svg) for stem, alt, svg in charts_for(latest)],
            change_header=CHANGE_HEADER,
            changes=[self.changes(engine) for engine in self.engines],
            earlier=[(engine, pairs) for engine in self.engines if (pairs := self.earlier_changes(engine))],
            runs_header=("run", "started", "engines", "targets", "gate"),
            runs=self.runs_rows(),
        )

    def quality_sections(self) -> list[dict[str, Any]]:
        """Quality over time, one results file per point (every generation's clip counts)."""
        by_file = [(runs[0].name, [row for run in runs for row in run.rows]) for runs in self.files.values()]
        if not any(row.quality for _, rows in by_file for row in rows):
            return []
        from pytest_ttsbench.reporting.quality_html import quality_trends  # numpy and scipy: only when needed

        return quality_trends(by_file, self._chart)

    def verdict_of(self, runs: list[Run]) -> RunVerdict:
        """One results file's verdict, from its gate file and every engine's rows."""
        return run_verdict(runs[0].gate, [row for run in runs for row in run.items])

    def latest_verdict(self) -> dict[str, Any]:
        """What leads the page: the latest run, its engines, its verdict and every reason for it."""
        runs = list(self.files.values())[-1]
        return {
            "name": runs[0].name,
            "started": runs[0].started.strftime("%Y-%m-%d %H:%M UTC"),
            "engines": ", ".join(sorted(run.system for run in runs)),
            "verdict": self.verdict_of(runs),
        }

    def runs_rows(self) -> list[list[Any]]:
        """Every run, newest first, with its engines, its size and its release gate's verdict."""
        rows: list[list[Any]] = []
        for runs in reversed(self.files.values()):
            run = runs[0]
            gate = verdict_markup(self.verdict_of(runs))
            started = run.started.strftime("%Y-%m-%d %H:%M UTC")
            engines = ", ".join(sorted(r.system for r in runs))
            rows.append([run.name, started, engines, str(sum(len(r.items) for r in runs)), gate])
        return rows

    def history_table(self, engine: str) -> dict[str, Any]:
        """The figures behind the history chart: strict accuracy and Wilson interval per category and run."""
        runs = self.runs_with(engine)
        per_run = [summarize(run.items, ["suite", "category"]) for run in runs]
        lines = sorted({key for figures in per_run for key in figures})
        rows = []
        for key in lines:
            cells: list[Any] = ["/".join(key)]
            for figures in per_run:
                bucket = figures.get(key)
                if bucket is None or bucket.strict_accuracy is None:
                    cells.append("-")
                    continue
                low, high = bucket.ci95 or (0.0, 0.0)
                cells.append(
                    Markup('<div class="grid-cell" style="background:{}">{}<br><span>{}</span></div>').format(
                        accuracy_colour(bucket.strict_accuracy),
                        f"{100 * bucket.strict_accuracy:.1f}% ({bucket.correct}/{bucket.n})",
                        f"[{100 * low:.1f}, {100 * high:.1f}]",
                    )
                )
            rows.append(cells)
        return {"header": ("category", *(run.name for run in runs)), "rows": rows}

    def leaderboard_rows(self) -> list[list[str]]:
        """Each engine ranked on its latest full selection; a later partial run is shown below, unranked.

        A run of 10 items picked with ``-k`` says nothing comparable to a full run of 51, so it never
        takes an engine's place on the board because it is the latest; every figure says what it covers.
        """
        selections = {engine: comparable_selection(self.runs_with(engine)) for engine in self.engines}
        entries = entries_from_runs([selection.ranked for selection in selections.values()])
        rows = [
            self._leaderboard_row(rank, entry, selections[entry.system].ranked, selections[entry.system])
            for rank, entry in ranked(entries)
        ]
        for selection in selections.values():
            if selection.partial is None:
                continue
            entry = entry_from_run(selection.partial)
            note = (
                f"partial run ({selection.coverage(selection.partial)}): not ranked over the full run "
                f"{selection.ranked.name}"
            )
            rows.append(self._leaderboard_row(None, replace(entry, note=note), selection.partial, selection))
        return rows

    def _leaderboard_row(self, rank: int | None, entry: LeaderboardEntry, run: Run, selection: Selection) -> list[str]:
        accuracy = "-" if entry.strict_accuracy is None else f"{100 * entry.strict_accuracy:.1f}%"
        bucket = summarize(run.items, [])[()]
        ci = bucket.ci95
        interval = "-" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"
        return [
            "-" if rank is None else str(rank),
            entry.system,
            accuracy,
            interval,
            str(entry.correct),
            str(entry.wrong),
            str(entry.unknown),
            str(bucket.n),
            selection.coverage(run),
            entry.date,
            ", ".join(entry.asr_routes),
            entry.note,
        ]

    def history_html(self, engine: str) -> Markup:
        runs = self.runs_with(engine)
        points = [
            plots.Point(run.name, f"{suite}/{category}", bucket)
            for run in runs
            for (suite, category), bucket in summarize(run.items, ["suite", "category"]).items()
        ]
        svg = plots.history_chart_svg(points, [run.name for run in runs], f"{engine}: strict accuracy per category")
        return self._chart(f"history-{engine}", f"{engine}: strict accuracy per category over runs", svg)

    def changes(self, engine: str) -> dict[str, Any]:
        """The regressions and fixes of an engine's latest run against its previous one."""
        runs = self.runs_with(engine)
        before, why = previous_comparable(runs)
        if before is None:
            return {"engine": engine, "note": "Only one run: nothing to compare.", "provenance": [], "sections": []}
        pair = self.pair(before, runs[-1])
        return {"engine": engine, **pair, "note": f"{why} {pair['note']}".strip()}

    def earlier_changes(self, engine: str) -> list[dict[str, Any]]:
        """Every earlier run against its predecessor, newest first: no run's regressions drop out of reach."""
        runs = self.runs_with(engine)
        return [self.pair(before, after) for before, after in reversed(list(pairwise(runs[:-1])))]

    def pair(self, before_run: Run, after_run: Run) -> dict[str, Any]:
        """One run against its predecessor: counts, McNemar p, audio and provenance change, each changed item.

        Pairs count by majority flip over an item's generations, flaky pairs apart, as in the gate.
        """
        comparison = attach_provenance(compare(before_run.rows, after_run.rows), before_run.header, after_run.header)
        before = {r.key: r for r in before_run.rows if r.repeat == 0}
        after = {r.key: r for r in after_run.rows if r.repeat == 0}
        summary = (
            f"{after_run.name} against {before_run.name}: "
            f"{len(comparison.regressions)} regression(s), {len(comparison.fixes)} fix(es)"
        )
        note = (
            f"{summary}, {comparison.unchanged} unchanged, {len(comparison.new)} new, "
            f"{len(comparison.missing)} gone"
            + (f", {len(comparison.changed)} changed since (not compared)" if comparison.changed else "")
            + f"; McNemar exact p = {comparison.mcnemar_p:.3g}."
        )
        provenance = [audio_line(comparison.audio)] if comparison.audio else []
        provenance += provenance_lines(comparison)
        sections = [
            {"label": label, "rows": [self._change_row(before[k], before_run, after[k], after_run) for k in keys]}
            for label, keys in (("Regressions", comparison.regressions), ("Fixes", comparison.fixes))
            if keys
        ]
        return {
            "summary": summary,
            "note": note,
            "provenance": provenance,
            "recognizer_changed": bool(comparison.recognizer_changes),
            "sections": sections,
        }

    def _change_row(self, old: ItemResult, old_run: Run, new: ItemResult, new_run: Run) -> list[Any]:
        return [
            Markup('<a href="items/{}.html">{}</a>').format(item_slug(new.key), new.key),
            new.category,
            new.text,
            verdict_html(old.verdict),
            heard_html(old),
            self.clips.player(old, old_run.path),
            verdict_html(new.verdict),
            heard_html(new),
            evidence_text(new),
            self.clips.player(new, new_run.path),
        ]

    # --- items -------------------------------------------------------------------------------

    def write_item_pages(self) -> None:
        keys: dict[str, dict[str, ItemResult]] = {}  # key → engine → latest row
        for run in self.runs:
            for row in run.items:
                keys.setdefault(row.key, {})[row.engine] = row
        listing: list[list[Any]] = []
        for key in sorted(keys):
            slug = item_slug(key)
            (self.site / "items" / f"{slug}.html").write_text(self.item_html(key), encoding="utf-8")
            latest = Markup("").join(
                Markup("<div>{}: {}</div>").format(e, verdict_html(r.verdict)) for e, r in sorted(keys[key].items())
            )
            any_row = next(iter(keys[key].values()))
            link = Markup('<a href="{}.html">{}</a>').format(slug, key)
            listing.append([link, any_row.category, any_row.text, latest])
        header = ("item", "category", "text", "latest verdict")
        page = _page("dashboard/items.html.j2", "All items", depth=1, header=header, rows=listing)
        (self.site / "items" / "index.html").write_text(page, encoding="utf-8")

    def item_html(self, key: str) -> str:
        page_dir = self.site / "items"
        rows: list[list[Any]] = []
        latest: ItemResult | None = None
        for run in self.runs:
            for row in run.items:
                if row.key != key:
                    continue
                latest = row
                rows.append(
                    [
                        run.name,
                        row.engine,
                        expected_text(row),
                        verdict_html(row.verdict),
                        heard_html(row),
                        evidence_text(row),
                        "" if row.cer is None else f"{row.cer:.3f}",
                        self.clips.player(row, run.path, page_dir),
                    ]
                )
        assert latest is not None  # only keys seen in some run get a page
        return _page("dashboard/item.html.j2", key, depth=1, latest=latest, header=ITEM_HEADER, rows=rows)


def build_dashboard(
    runs_dir: Path, site: Path, title: str = "TTS benchmark dashboard", *, allow_unverified: bool = False
) -> tuple[Path, list[Run]]:
    """Build the site for every run under ``runs_dir`` into ``site``; returns its ``index.html`` and the runs."""
    runs = find_runs(runs_dir, allow_unverified=allow_unverified)
    return Dashboard(runs, site, title).build(), runs
