"""The pytest-html report: one row per benchmark target with what was said, heard and judged.

:func:`register_html_report` adds :class:`HtmlReport` to a run when pytest-html writes a report
(``--html=PATH``). Each row shows the engine, suite, category, the text sent, what was expected,
the transcript of every ASR route, the verdict with the matched or missing reading, the CER and
the synthesis and ASR times, plus an ``<audio controls>`` player for the clip. The summary at the
top holds the category table (the same figures as the terminal summary), the facet breakdowns,
the release gate's floors and verdict, and the accuracy charts.

Everything shown comes from the :class:`~pytest_ttsbench.results.ItemResult` carried in each test
report's ``user_properties`` (``RESULT_PROPERTY``), so rows are complete under pytest-xdist too.
The report's side files sit in one folder beside it, named after it (``--html=out/report.html``
→ ``out/report_files/``): pytest-html's ``assets/``, the clips under ``audio/`` and the charts
under ``charts/``, all linked relatively, so the report and its folder can be moved together and
several reports can share a directory; with ``--self-contained-html`` everything is embedded.

The helpers at module level (escaping, clip lookup and copying, the summary tables) are shared
with the static dashboard (:mod:`pytest_ttsbench.reporting.dashboard`).
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ttsbench.gating.summary import Bucket, summarize
from pytest_ttsbench.naming import safe_name
from pytest_ttsbench.reporting.terminal import floor_rows, percent
from pytest_ttsbench.results import ItemResult, result_from_report
from pytest_ttsbench.verdict import explain_evidence

if TYPE_CHECKING:
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

CSS = """
.ttsbench-summary table{border-collapse:collapse;margin:.5em 0 1em}
.ttsbench-summary th,.ttsbench-summary td{border:1px solid #ccc;padding:2px 6px;text-align:right}
.ttsbench-summary td.label,.ttsbench-summary th.label{text-align:left}
.ttsbench-summary img{max-width:100%;height:auto;display:block;margin:.5em 0}
.ttsbench-verdict-correct{color:#1a7f37;font-weight:bold}
.ttsbench-verdict-wrong{color:#cf222e;font-weight:bold}
.ttsbench-verdict-unknown{color:#9a6700;font-weight:bold}
.ttsbench-verdict-error{color:#8250df;font-weight:bold}
.ttsbench-gate-failed{color:#cf222e;font-weight:bold}
.ttsbench-gate-passed{color:#1a7f37;font-weight:bold}
.ttsbench-route{color:#57606a;font-size:90%}
"""


# --- shared helpers ------------------------------------------------------------------------------


def esc(value: Any) -> str:
    """Text for HTML, quotes included (it also goes into attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def expected_text(result: ItemResult) -> str:
    """What the scorer expected, in its own words; the raw expectation when the scorer is unknown."""
    from pytest_ttsbench.scorers.registry import get_scorer

    try:
        return str(get_scorer(result.scorer).expected_text(result.expected))
    except Exception:  # an unknown or renamed scorer must not break a report about old results
        return json.dumps(result.expected, ensure_ascii=False)


def evidence_text(result: ItemResult) -> str:
    """Why the verdict: the error, a forbidden reading heard, what is missing, or what matched."""
    if result.verdict == "error":
        return f"error: {result.error or result.evidence.get('reason', '')}"
    return explain_evidence(result.evidence)


def heard_html(result: ItemResult) -> str:
    """Each ASR route's transcript with that route's verdict (just the transcript for one route)."""
    if len(result.transcripts) > 1:
        return "".join(
            f'<div><span class="ttsbench-route">{esc(route)} ({esc(result.route_verdicts.get(route, "?"))}):'
            f"</span> {esc(text)}</div>"
            for route, text in result.transcripts.items()
        )
    return esc(result.transcript if result.transcript is not None else "(nothing)")


def verdict_html(verdict: str) -> str:
    return f'<span class="ttsbench-verdict-{esc(verdict)}">{esc(verdict)}</span>'


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
    candidates = [recorded]
    if results_file is not None:
        folder = results_file.parent
        if not recorded.is_absolute():
            candidates.append(folder / recorded)
        tail = Path(safe_name(result.engine)) / safe_name(result.suite) / recorded.name
        candidates += [folder / AUDIO_FOLDER / tail, folder / f"{results_file.stem}-audio" / tail]
    return next((path for path in candidates if path.is_file()), None)


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

    def player(self, result: ItemResult, results_file: Path | None = None, page_dir: Path | None = None) -> str:
        src = self.href(result, results_file, page_dir)
        if src is None:
            return "(no audio)" if not result.audio_path else f"(clip not found: {esc(Path(result.audio_path).name)})"
        mime = audio_mime(Path(result.audio_path or ""))
        return f'<audio controls preload="none" src="{esc(src)}" type="{esc(mime)}"></audio>'


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


def table_html(header: Sequence[str], rows: Sequence[Sequence[str]], labels: int, css_class: str = "") -> str:
    """A table whose first ``labels`` columns are text (left-aligned); every cell is escaped here."""
    head = "".join(f'<th class="{"label" if i < labels else ""}">{esc(h)}</th>' for i, h in enumerate(header))
    body = "".join(
        "<tr>"
        + "".join(f'<td class="{"label" if i < labels else ""}">{esc(c)}</td>' for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f'<table class="{esc(css_class)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def category_table_html(results: Sequence[ItemResult]) -> str:
    """The summary table per engine × suite × category, then each engine × suite total."""
    by_category = summarize(results, ["engine", "suite", "category"])
    totals = summarize(results, ["engine", "suite"])
    rows = [[*key, *bucket_cells(bucket)] for key, bucket in by_category.items()]
    rows += [[key[0], key[1], "(all)", *bucket_cells(bucket)] for key, bucket in totals.items()]
    return table_html(("engine", "suite", "category", *FIGURE_HEADER), rows, 3, "ttsbench-categories")


def facet_table_html(results: Sequence[ItemResult], facet: str) -> str:
    grouped = summarize([r for r in results if facet in r.facets], ["engine", "suite", f"facet:{facet}"])
    rows = [[*key, *bucket_cells(bucket)] for key, bucket in grouped.items()]
    return table_html(("engine", "suite", facet, *FIGURE_HEADER), rows, 3, f"ttsbench-facet-{safe_name(facet)}")


def gate_html(outcome: GateOutcome | None) -> str:
    """The release gate's floors and its verdict (a GateOutcome); empty when nothing was gated."""
    if outcome is None:
        return ""
    parts = []
    if outcome.checks:
        rows = floor_rows(outcome)
        header = ("gate", "engine", "suite", "category", "correct/n", "strict accuracy", "floor", "Wilson 95% CI")
        parts.append("<h4>Floors</h4>" + table_html(header, rows, 4, "ttsbench-floors"))
    if outcome.reasons:
        reasons = "".join(f"<li>{esc(reason)}</li>" for reason in outcome.reasons)
        parts.append(f'<p class="ttsbench-gate-failed">Gate FAILED</p><ul class="ttsbench-gate-reasons">{reasons}</ul>')
    elif outcome.checks or outcome.comparison is not None:
        parts.append('<p class="ttsbench-gate-passed">Gate passed</p>')
    if outcome.fixed_gaps or outcome.xfailed:
        parts.append(f"<p>Known gaps: {len(outcome.xfailed)} still failing, {len(outcome.fixed_gaps)} fixed</p>")
    return "".join(parts)


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


@dataclass(frozen=True)
class SessionSummary:
    """What the report's summary shows of a finished session: its items, breakdown facets and gate."""

    items: Sequence[ItemResult]
    breakdown: Sequence[str] = ()
    gate: GateOutcome | None = None  # None when nothing was gated


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


def register_html_report(config: pytest.Config, summary: SummarySource, assets_existed: bool = True) -> None:
    """Add the benchmark columns and summary to pytest-html's report, when one is being written.

    ``summary`` is asked once the session has finished (None: nothing was benchmarked).
    ``assets_existed``: whether ``assets/`` was beside the report before pytest-html started, so
    the stylesheet it writes there can be moved into the side folder without touching older files.
    """
    report_path = html_report_path(config)
    if report_path is None or hasattr(config, "workerinput"):  # pytest-html writes on the controller only
        return
    if not config.getoption("self_contained_html", False):
        _assets_into_side_folder(config, report_path, assets_existed)
    config.pluginmanager.register(HtmlReport(config, summary, report_path), "ttsbench-html")


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

    def __init__(self, config: pytest.Config, summary: SummarySource, report_path: Path) -> None:
        self.config = config
        self.summary = summary
        self.report_path = report_path
        self.page_dir = report_path.parent
        self.root = side_folder(report_path)  # clips and charts; links are relative to the page
        self.embed = bool(config.getoption("self_contained_html", False))
        self.clips = ClipStore(self.root, embed=self.embed)

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        ours = [
            f'<th class="sortable" data-column-type="{key}">{esc(label)}</th>' if key else f"<th>{esc(label)}</th>"
            for label, key in COLUMNS
        ]
        cells[_INSERT_AT:_INSERT_AT] = ours

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        result = result_from_report(report)
        cells[_INSERT_AT:_INSERT_AT] = self.row_cells(result)

    def row_cells(self, result: ItemResult | None) -> list[str]:
        """The benchmark cells of one row; empty cells for rows that carry no result (setup, collection)."""
        if result is None:
            return [f'<td class="col-{key}"></td>' if key else "<td></td>" for _, key in COLUMNS]
        reading = f" [{result.target}]" if result.target else ""
        values = [
            esc(result.engine),
            esc(result.suite),
            esc(result.category),
            verdict_html(result.verdict),
            esc(result.text),
            esc(expected_text(result) + reading),
            heard_html(result),
            esc(evidence_text(result)),
            "" if result.cer is None else f"{result.cer:.3f}",
            seconds(result.synth_seconds),
            seconds(result.asr_seconds),
            self.clips.player(result, page_dir=self.page_dir),
        ]
        # pytest-html sorts on the text of <td class="col-KEY">; plain <td> for the others.
        return [
            f'<td class="col-{key}">{value}</td>' if key else f"<td>{value}</td>"
            for (_, key), value in zip(COLUMNS, values, strict=True)
        ]

    def pytest_html_results_summary(
        self, prefix: list[str], summary: list[str], postfix: list[str], session: Any
    ) -> None:
        finished = self.summary()
        if finished is not None:
            prefix.append(self.summary_html(finished.items, finished.breakdown, finished.gate))

    def summary_html(self, items: Sequence[ItemResult], breakdown: Sequence[str], gate: GateOutcome | None) -> str:
        parts = [f"<style>{CSS}</style>", '<div class="ttsbench-summary">', "<h3>Text-to-speech benchmark</h3>"]
        parts.append(category_table_html(items))
        for facet in breakdown:
            parts.append(f"<h4>By {esc(facet)}</h4>" + facet_table_html(items, facet))
        gate_part = gate_html(gate)
        if gate_part:
            parts.append("<h4>Release gate</h4>" + gate_part)
        for stem, alt, svg in charts_for(items, breakdown):
            parts.append(f'<img class="ttsbench-chart" alt="{esc(alt)}" src="{esc(self.chart_src(stem, svg))}">')
        parts.append("</div>")
        return "".join(parts)

    def chart_src(self, stem: str, svg: bytes) -> str:
        if self.embed:
            return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
        path = self.root / CHART_FOLDER / f"{stem}.svg"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(svg)
        return path.relative_to(self.page_dir).as_posix()
