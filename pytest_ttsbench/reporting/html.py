"""The pytest-html report: one row per benchmark target with what was said, heard and judged.

:func:`register_html_report` adds :class:`HtmlReport` to a run when pytest-html writes a report
(``--html=PATH``). Each row shows the engine, suite, category, the text sent, what was expected,
the transcript of every ASR route, the verdict with the matched or missing reading, the CER and
the synthesis and ASR times, plus an ``<audio controls>`` player for the clip. The summary at the
top holds the category table (the same figures as the terminal summary), the facet breakdowns,
the release gate's floors and verdict, and the accuracy charts.

Everything shown comes from the :class:`~pytest_ttsbench.run_model.results.ItemResult` carried in each test
report's ``user_properties`` (``RESULT_PROPERTY``), so rows are complete under pytest-xdist too.
The report's side files sit in one folder beside it, named after it (``--html=out/report.html``
→ ``out/report_files/``): pytest-html's ``assets/``, the clips under ``audio/`` and the charts
under ``charts/``, all linked relatively, so the report and its folder can be moved together and
several reports can share a directory; with ``--self-contained-html`` everything is embedded.

Everything is rendered through Jinja2 templates with autoescaping (``reporting/templates/``, via
:mod:`~pytest_ttsbench.reporting.templating`); the fragments built here are
:class:`markupsafe.Markup` with every value escaped by ``Markup.format``. The helpers at module
level (clip lookup and copying, the summary tables) are shared with the static dashboard
(:mod:`pytest_ttsbench.reporting.dashboard`).
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from markupsafe import Markup, escape

from pytest_ttsbench.figures.summary import Bucket, summarize
from pytest_ttsbench.registry import MissingDependency
from pytest_ttsbench.reporting.comparison import audio_line, provenance_lines
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.reporting.run_verdict import run_verdict
from pytest_ttsbench.reporting.templating import macro, render, stylesheet
from pytest_ttsbench.reporting.terminal import SessionSummary, floor_rows, nondeterminism_lines, percent
from pytest_ttsbench.run_model.results import ItemResult, result_from_report
from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.text import safe_name
from pytest_ttsbench.verdict import explain_evidence, quoted_spans

if TYPE_CHECKING:
    from pytest_ttsbench.gating.baseline import Comparison
    from pytest_ttsbench.gating.gate import GateOutcome

AUDIO_FOLDER = "audio"
CHART_FOLDER = "charts"
_MIME = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".opus": "audio/ogg",
    ".flac": "audio/flac",
    ".aac": "audio/aac",
    ".webm": "audio/webm",
}

#: (header label, sortable column key or None); rows fill the same columns in the same order.
COLUMNS: tuple[tuple[str, str | None], ...] = (
    ("Engine", "engine"),
    ("Suite", "suite"),
    ("Category", "category"),
    ("Verdict", "verdict"),
    ("Text sent", None),
    ("Expected", None),
    ("Heard", None),
    ("Evidence", None),
    ("CER", None),
    ("Synth s", None),
    ("ASR s", None),
    ("Audio", None),
)
#: pytest-html's own cells are result, test id, duration, links: ours go after the test id.
_INSERT_AT = 2

# --- shared helpers ------------------------------------------------------------------------------


def expected_text(result: ItemResult) -> str:
    """What the scorer expected, in its own words; the raw expectation when the scorer is unknown."""
    from pytest_ttsbench.scorers.registry import get_scorer

    try:
        return str(get_scorer(result.scorer).expected_text(result.expected))
    except Exception:  # an unknown or renamed scorer must not break a report about old results
        return dump_json(result.expected, ensure_ascii=False)


def evidence_text(result: ItemResult) -> str:
    """Why the verdict: the error, a forbidden reading heard, what is missing, or what matched."""
    if result.verdict == "error":
        return f"error: {result.error or result.evidence.get('reason', '')}"
    return explain_evidence(result.evidence)


def heard_html(result: ItemResult) -> Markup:
    """Each ASR route's transcript with that route's verdict (just the transcript for one route),
    then the spans the scorer could not read, for a person to settle."""
    if len(result.transcripts) > 1:
        route = Markup('<div><span class="ttsbench-route">{} ({}):</span> {}</div>')
        heard = Markup("").join(
            route.format(name, result.route_verdicts.get(name, "?"), text) for name, text in result.transcripts.items()
        )
    else:
        heard = escape(result.transcript if result.transcript is not None else "(nothing)")
    if result.evidence.get("unread"):
        unread = Markup('<div class="ttsbench-unread">unread: {}</div>').format(quoted_spans(result.evidence["unread"]))
        heard = heard + unread
    return heard


def verdict_html(verdict: str) -> Markup:
    return macro("verdict", verdict)


def seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def locate_clip(result: ItemResult, results_file: Path | None = None) -> Path | None:
    """The clip of a result on disk: its recorded path, else the same file beside a moved results file.

    A run folder copied elsewhere keeps ``audio/<engine>/<suite>/<clip>`` beside ``results.jsonl``
    (the default layout), or ``<stem>-audio/...`` beside a results file named with ``--tts-results``.
    """
    if not result.audio_path:
        return None
    recorded = Path(result.audio_path)
    if results_file is None:  # this run's own clip, named by this process
        return recorded if recorded.is_file() else None
    # A path read from a results file is data: only a clip inside the file's folder is read.
    folder = results_file.parent
    tail = Path(safe_name(result.engine)) / safe_name(result.suite) / recorded.name
    for candidate in (recorded, folder / AUDIO_FOLDER / tail, folder / f"{results_file.stem}-audio" / tail):
        try:
            path = inside_folder(folder, candidate)
        except OutsideFolderError:
            continue
        if path.is_file():
            return path
    return None


def clip_refusal(result: ItemResult, results_file: Path | None) -> str | None:
    """Why a results file's clip path is not read (it leads outside the file's folder), or None."""
    if not result.audio_path or results_file is None:
        return None
    try:
        inside_folder(results_file.parent, result.audio_path)
    except OutsideFolderError as exc:
        return str(exc)
    return None


def audio_mime(path: Path) -> str:
    return _MIME.get(path.suffix.lower(), "application/octet-stream")


class ClipStore:
    """Puts clips where a page can play them: copied under ``root/audio/`` or embedded as data: URIs."""

    def __init__(self, root: Path, embed: bool = False) -> None:
        self.root = root
        self.embed = embed

    def href(self, result: ItemResult, results_file: Path | None = None, page_dir: Path | None = None) -> str | None:
        """The ``src`` for a result's clip, relative to ``page_dir`` (default: the root); None without one."""
        clip = locate_clip(result, results_file)
        if clip is None:
            return None
        if self.embed:
            return f"data:{audio_mime(clip)};base64,{base64.b64encode(clip.read_bytes()).decode('ascii')}"
        # The clip name carries a content hash, so one copy serves every row and run that made it.
        target = self.root / AUDIO_FOLDER / safe_name(result.engine) / safe_name(result.suite) / clip.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(clip, target)
        return Path(os.path.relpath(target, page_dir or self.root)).as_posix()

    def player(self, result: ItemResult, results_file: Path | None = None, page_dir: Path | None = None) -> Markup:
        src = self.href(result, results_file, page_dir)
        if src is None:
            refused = clip_refusal(result, results_file)
            if refused is not None:
                return escape(f"(clip not read: {refused})")
            missing = f"(clip not found: {Path(result.audio_path).name})" if result.audio_path else "(no audio)"
            return escape(missing)
        mime = audio_mime(Path(result.audio_path or ""))
        return Markup('<audio controls preload="none" src="{}" type="{}"></audio>').format(src, mime)


def _interval(bucket: Bucket) -> str:
    ci = bucket.ci95
    return "-" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


FIGURE_HEADER = ("n", "correct", "wrong", "unknown", "error", "strict accuracy", "Wilson 95% CI")


def bucket_cells(bucket: Bucket) -> list[str]:
    return [
        str(bucket.n),
        str(bucket.correct),
        str(bucket.wrong),
        str(bucket.unknown),
        str(bucket.error),
        percent(bucket.strict_accuracy),
        _interval(bucket),
    ]


def table_html(header: Sequence[str], rows: Sequence[Sequence[str]], labels: int, css_class: str = "") -> Markup:
    """A table of figures whose first ``labels`` columns are text (left-aligned)."""
    return macro("figures_table", header, rows, labels, css_class)


def category_table_html(results: Sequence[ItemResult]) -> Markup:
    """The summary table per engine × suite × category, then each engine × suite total."""
    by_category = summarize(results, ["engine", "suite", "category"])
    totals = summarize(results, ["engine", "suite"])
    rows = [[*key, *bucket_cells(bucket)] for key, bucket in by_category.items()]
    rows += [[key[0], key[1], "(all)", *bucket_cells(bucket)] for key, bucket in totals.items()]
    return table_html(("engine", "suite", "category", *FIGURE_HEADER), rows, 3, "ttsbench-categories")


def facet_table_html(results: Sequence[ItemResult], facet: str) -> Markup:
    grouped = summarize([r for r in results if facet in r.facets], ["engine", "suite", f"facet:{facet}"])
    rows = [[*key, *bucket_cells(bucket)] for key, bucket in grouped.items()]
    return table_html(("engine", "suite", facet, *FIGURE_HEADER), rows, 3, f"ttsbench-facet-{safe_name(facet)}")


def quality_header_cells(names: Sequence[str]) -> list[str]:
    if not names:
        return []
    from pytest_ttsbench.reporting import quality_html  # numpy and scipy: only for a run with measures

    return quality_html.header_cells(names)


def quality_row_cells(result: ItemResult | None, names: Sequence[str]) -> list[str]:
    if not names:
        return []
    from pytest_ttsbench.reporting import quality_html

    return quality_html.row_cells(result, names)


def quality_summary_html(results: Sequence[ItemResult], breakdown: Sequence[str]) -> Markup | None:
    """The quality table (mean, median, p10, bootstrap interval per slice and measure); None without figures."""
    if not any(row.quality for row in results):
        return None
    from pytest_ttsbench.reporting import quality_html

    rows = quality_html.summary_rows(results, breakdown)
    return table_html(quality_html.SUMMARY_HEADER, rows, 4, "ttsbench-quality")


def quality_gate_html(outcome: GateOutcome | None) -> Markup | None:
    if outcome is None or not outcome.quality_checks:
        return None
    from pytest_ttsbench.reporting import quality_html
    from pytest_ttsbench.reporting.quality import model_change_lines

    # the same lines the terminal prints under its quality gate table
    table = table_html(quality_html.GATE_HEADER, quality_html.gate_rows(outcome), 6, "ttsbench-quality-gates")
    notes = Markup("").join(
        Markup('<p class="ttsbench-quality-models">{}</p>').format(line) for line in model_change_lines(outcome)
    )
    return table + notes


GATE_MARK_CLASS = {"FAIL": "ttsbench-gate-failed", "ok": "ttsbench-gate-passed"}


def gate_mark_html(mark: str) -> Markup:
    """A floor's mark (FAIL, ok, too few) coloured as the verdict it is."""
    css = GATE_MARK_CLASS.get(mark)
    return Markup('<span class="{}">{}</span>').format(css, mark) if css else Markup("{}").format(mark)


FLOOR_HEADER = ("gate", "engine", "suite", "category", "correct/n", "strict accuracy", "floor", "Wilson 95% CI")


def gate_html(outcome: GateOutcome | None, clips: ClipStore | None = None) -> Markup:
    """The release gate's figures: floors, known gaps, flaky items, the baseline; empty when nothing was gated.

    Its verdict and reasons are rendered by :func:`verdict_section_html`, at the top of the report.
    """
    if outcome is None:
        return Markup("")
    gaps = {"xfailed": len(outcome.xfailed), "fixed": len(outcome.fixed_gaps)}
    flaky = [
        [item.engine, item.key, f"{item.correct_count}/{len(item.verdicts)}", ", ".join(item.verdicts)]
        for item in outcome.flaky
    ]
    return render(
        "gate.html.j2",
        floors=[[gate_mark_html(row[0]), *row[1:]] for row in floor_rows(outcome)],
        floor_header=FLOOR_HEADER,
        reasons=outcome.reasons,
        gaps=gaps if outcome.fixed_gaps or outcome.xfailed else None,
        fixed_gaps=outcome.fixed_gaps,
        nondeterminism=nondeterminism_lines(outcome),
        flaky=flaky,
        flaky_header=("engine", "item", "correct", "generations"),
        baseline=baseline_context(
            outcome.comparison,
            outcome.known_gap_ids,
            clips,
            Path(outcome.baseline_path) if outcome.baseline_path else None,
        )
        if outcome.comparison
        else None,
    )


FAILED_ITEM_HEADER = ("item", "engine", "category", "verdict", "text sent", "heard", "evidence", "clip")


def failed_item_rows(
    items: Sequence[ItemResult], clips: ClipStore | None, page_dir: Path | None = None
) -> list[list[Markup | str]]:
    """Each item that was not judged correct, with what was said, heard and why, and its clip."""
    rows: list[list[Markup | str]] = []
    for result in items:
        if result.verdict == "correct":
            continue
        player = clips.player(result, page_dir=page_dir) if clips is not None else escape(result.audio_path or "")
        rows.append(
            [
                result.id,
                result.engine,
                result.category,
                verdict_html(result.verdict),
                result.text,
                heard_html(result),
                evidence_text(result),
                player,
            ]
        )
    return rows


def verdict_section_html(
    outcome: GateOutcome | None,
    items: Sequence[ItemResult],
    clips: ClipStore | None = None,
    page_dir: Path | None = None,
) -> Markup:
    """What leads the report: the run's verdict with its reasons, then the items not correct with players.

    The verdict is the one every reader of the gate file gives (reporting/run_verdict.py): a gate
    whose bounds held on a run whose item tests failed is FAILED, saying which items failed it,
    as the terminal, the gate file's ``passed`` and the dashboard say.
    """
    failed = failed_item_rows(items, clips, page_dir)
    if outcome is None and not failed:
        return Markup("")
    # the gate file's own document, read by the one reader of its verdict
    verdict = run_verdict(gate_document(outcome), items) if outcome is not None else None
    judged = outcome is not None and bool(outcome.checks or outcome.comparison is not None)
    return render(
        "verdict.html.j2",
        state=verdict.state if verdict is not None and (judged or verdict.state == "failed") else None,
        reasons=verdict.reasons if verdict is not None else (),
        failed=failed,
        failed_header=FAILED_ITEM_HEADER,
    )


BASELINE_HEADER = ("category", "regressions", "fixes", "flaky", "unchanged", "McNemar exact p")
CHANGE_HEADER = (
    "change",
    "item",
    "text",
    "before",
    "heard before",
    "clip before",
    "now",
    "heard now",
    "clip now",
    "duration",
)


def baseline_context(
    comparison: Comparison, known_gaps: Collection[str], clips: ClipStore | None, baseline_file: Path | None = None
) -> dict[str, Any]:
    """Per-category regressions, fixes and McNemar p; then each change with its text, transcripts and clips."""
    categories = [
        [name, len(c.regressions), len(c.fixes), len(c.flaky), c.unchanged, f"{c.mcnemar_p:.3g}"]
        for name, c in sorted(comparison.by_category.items())
    ]
    categories.append(
        [
            "(all)",
            len(comparison.regressions),
            len(comparison.fixes),
            len(comparison.flaky),
            comparison.unchanged,
            f"{comparison.mcnemar_p:.3g}",
        ]
    )
    changes = []
    for change in comparison.details.values():
        cells: list[Any] = [change.kind + (" (known gap)" if change.id in known_gaps else ""), change.id, change.text]
        for side in (change.before, change.after):
            heard = Markup("<br>").join(escape(row.transcript) for row in side.rows)
            # the baseline's clips are named by its results file: read only inside its folder
            source = baseline_file if side is change.before else None
            player = clips.player(side.first, source) if clips is not None else escape(side.first.audio_path or "")
            cells += [f"{side.correct}/{len(side.rows)}", heard, player]
        ratio = change.duration_ratio
        cells.append("" if ratio is None else f"{ratio:.2f}×")
        changes.append(cells)
    return {
        "header": BASELINE_HEADER,
        "categories": categories,
        "audio": audio_line(comparison.audio) if comparison.audio else None,
        "provenance": provenance_lines(comparison),
        "change_header": CHANGE_HEADER,
        "changes": changes,
    }


def charts_for(results: Sequence[ItemResult], breakdown: Sequence[str] = ()) -> list[tuple[str, str, bytes]]:
    """(file stem, alt text, SVG) for the category chart and each facet breakdown worth drawing."""
    from pytest_ttsbench.reporting import plots  # matplotlib loads only when a chart is drawn

    charts = [("accuracy-by-category", "Strict accuracy by category", plots.category_chart_svg(results))]
    for facet in dict.fromkeys([*breakdown, *plots.facet_names(results)]):
        if any(facet in r.facets for r in results):
            svg = plots.facet_chart_svg(results, facet)
            charts.append((f"accuracy-by-{safe_name(facet)}", f"Strict accuracy by {facet}", svg))
    return charts


# --- the pytest-html plugin ----------------------------------------------------------------------


SummarySource = Callable[[], "SessionSummary | None"]


def html_report_path(config: pytest.Config) -> Path | None:
    """Where pytest-html writes its report (resolved as pytest-html does), None without ``--html``."""
    option = config.getoption("htmlpath", None)
    if not option or not config.pluginmanager.hasplugin("html"):
        return None
    path = Path(os.path.expandvars(str(option))).expanduser()
    return path if path.is_absolute() else Path.cwd() / path


def side_folder(report_path: Path) -> Path:
    """The folder beside a report that holds its side files: ``report.html`` → ``report_files``."""
    return report_path.with_name(f"{report_path.stem}_files")


#: Whether the report's directory already held pytest-html's assets/ before this run wrote there.
ASSETS_EXISTED_KEY = pytest.StashKey[bool]()


def note_existing_assets(config: pytest.Config) -> None:
    """Look beside an ``--html`` report before pytest-html writes its assets (from ``pytest_cmdline_main``)."""
    report = config.getoption("htmlpath", None)
    if report:
        assets = (Path.cwd() / Path(os.path.expandvars(str(report))).expanduser()).parent / "assets"
        config.stash[ASSETS_EXISTED_KEY] = assets.exists()


def report_title(engines: Sequence[str], results_path: Path | None) -> str:
    """The report page's title: the engines and the run, not pytest-html's default of the file name."""
    title = f"TTS benchmark: {', '.join(engines) or 'no engine'}"
    if results_path is None:
        return title
    run = results_path.parent.name if results_path.name == "results.jsonl" else results_path.stem
    return f"{title} · run {run}"


def register_html_report(
    config: pytest.Config,
    summary: SummarySource,
    assets_existed: bool = True,
    quality_columns: Sequence[str] = (),
    title: str | None = None,
) -> None:
    """Add the benchmark columns and summary to pytest-html's report, when one is being written.

    ``summary`` is asked once the session has finished (None: nothing was benchmarked).
    ``assets_existed``: whether ``assets/`` was beside the report before pytest-html started, so
    the stylesheet it writes there can be moved into the side folder without touching older files.
    ``quality_columns``: the quality measures the run takes, one sortable column each.
    ``title``: the page's title (:func:`report_title`); pytest-html's own (the file name) when None.
    """
    report_path = html_report_path(config)
    if report_path is None or hasattr(config, "workerinput"):  # pytest-html writes on the controller only
        return
    if not config.getoption("self_contained_html", False):
        _assets_into_side_folder(config, report_path, assets_existed)
    report = HtmlReport(config, summary, report_path, tuple(quality_columns), title)
    config.pluginmanager.register(report, "ttsbench-html")


def _assets_into_side_folder(config: pytest.Config, report_path: Path, assets_existed: bool) -> None:
    """Swap pytest-html's report writer for one that keeps ``assets/`` in the report's side folder.

    pytest-html fixes its assets folder beside the report and offers no option for it; its
    writer is a registered plugin, so it is replaced by a subclass before any test runs.
    """
    from pytest_html.report import Report

    writers = [plugin for plugin in config.pluginmanager.get_plugins() if type(plugin) is Report]
    if len(writers) != 1:
        return  # not the pytest-html this was written for: leave its layout alone
    (writer,) = writers
    moved = _side_folder_report(Report)(
        writer._report_path, config, writer._report, writer._template, writer._css, side_folder(report_path)
    )
    config.pluginmanager.unregister(writer)
    config.pluginmanager.register(moved, "ttsbench-html-writer")
    stray = writer._assets_path
    if not assets_existed and stray.is_dir():
        (stray / "style.css").unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: something else wrote there meanwhile
            stray.rmdir()


def _side_folder_report(base: type) -> type:
    from pytest_html.basereport import BaseReport

    class SideFolderReport(base):
        """pytest-html's linked report with ``assets/`` inside the report's side folder."""

        def __init__(self, report_path: Path, config: Any, data: Any, template: Any, css: str, folder: Path) -> None:
            BaseReport.__init__(self, report_path, config, data, template, css)
            self._assets_path = folder / "assets"
            self._assets_path.mkdir(parents=True, exist_ok=True)
            self._css_path = self._assets_path / "style.css"
            self._css_path.write_text(self._css, encoding="utf-8")

        @property
        def css(self) -> str:
            return self._css_path.relative_to(self._report_path.parent).as_posix()

    return SideFolderReport


class HtmlReport:
    """pytest-html hooks: benchmark columns per row, summary tables, gate and charts on top."""

    def __init__(
        self,
        config: pytest.Config,
        summary: SummarySource,
        report_path: Path,
        quality_columns: Sequence[str] = (),
        title: str | None = None,
    ) -> None:
        self.config = config
        self.title = title
        self.quality_columns = quality_columns
        self.summary = summary
        self.report_path = report_path
        self.page_dir = report_path.parent
        self.root = side_folder(report_path)  # clips and charts; links are relative to the page
        self.embed = bool(config.getoption("self_contained_html", False))
        self.clips = ClipStore(self.root, embed=self.embed)

    def pytest_html_report_title(self, report: Any) -> None:
        if self.title:
            report.title = self.title

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        sortable, plain = Markup('<th class="sortable" data-column-type="{}">{}</th>'), Markup("<th>{}</th>")
        ours = [str(sortable.format(key, label) if key else plain.format(label)) for label, key in COLUMNS]
        cells[_INSERT_AT:_INSERT_AT] = ours + quality_header_cells(self.quality_columns)

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        result = result_from_report(report)
        cells[_INSERT_AT:_INSERT_AT] = self.row_cells(result) + quality_row_cells(result, self.quality_columns)

    def row_cells(self, result: ItemResult | None) -> list[str]:
        """The benchmark cells of one row; empty cells for rows that carry no result (setup, collection)."""
        sortable, plain = Markup('<td class="col-{}">{}</td>'), Markup("<td>{}</td>")
        if result is None:
            return [str(sortable.format(key, "") if key else plain.format("")) for _, key in COLUMNS]
        reading = f" [{result.target}]" if result.target else ""
        values: list[Markup | str] = [
            result.engine,
            result.suite,
            result.category,
            verdict_html(result.verdict),
            result.text,
            expected_text(result) + reading,
            heard_html(result),
            evidence_text(result),
            "" if result.cer is None else f"{result.cer:.3f}",
            seconds(result.synth_seconds),
            seconds(result.asr_seconds),
            self.clips.player(result, page_dir=self.page_dir),
        ]
        # pytest-html sorts on the text of <td class="col-KEY">; plain <td> for the others.
        return [
            str(sortable.format(key, value) if key else plain.format(value))
            for (_, key), value in zip(COLUMNS, values, strict=True)
        ]

    def pytest_html_results_summary(
        self, prefix: list[str], summary: list[str], postfix: list[str], session: Any
    ) -> None:
        finished = self.summary()
        if finished is not None:
            prefix.append(self.summary_html(finished.items, finished.breakdown, finished.gate, finished.results))

    def summary_html(
        self,
        items: Sequence[ItemResult],
        breakdown: Sequence[str],
        gate: GateOutcome | None,
        every_generation: Sequence[ItemResult] = (),
    ) -> str:
        """Accuracy over ``items`` (one row per item); quality over ``every_generation`` (all clips)."""
        try:
            charts = [{"alt": alt, "src": self.chart_src(stem, svg)} for stem, alt, svg in charts_for(items, breakdown)]
            charts_note = None
        except MissingDependency as exc:  # charts are an extra; the tables are all there without them
            charts, charts_note = [], str(exc)
        return str(
            render(
                "summary.html.j2",
                # report_page.css restyles pytest-html's own page (grey body text, the section order)
                css=stylesheet("report.css") + stylesheet("report_page.css"),
                verdict=verdict_section_html(gate, items, self.clips, self.page_dir),
                categories=category_table_html(items),
                facets=[(facet, facet_table_html(items, facet)) for facet in breakdown],
                gate=gate_html(gate, self.clips),
                quality=quality_summary_html(every_generation or items, breakdown),
                quality_gate=quality_gate_html(gate),
                charts=charts,
                charts_note=charts_note,
            )
        )

    def chart_src(self, stem: str, svg: bytes) -> str:
        if self.embed:
            return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
        path = self.root / CHART_FOLDER / f"{stem}.svg"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(svg)
        return path.relative_to(self.page_dir).as_posix()
