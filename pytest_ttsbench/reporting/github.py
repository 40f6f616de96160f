"""GitHub Actions' conventions for a finished run: a job summary and error annotations.

Under ``GITHUB_STEP_SUMMARY`` the verdict, the bounds that failed and the items not judged correct
are appended to the job's summary as short Markdown (the report has the rest); under
``GITHUB_ACTIONS`` each failing item and each breached bound becomes one ``::error`` workflow
command pointing at its case file and line, so a reviewer clicks through from the pull request.

Both read the :class:`~pytest_ttsbench.reporting.terminal.SessionSummary` the terminal prints
(its judged items and its gate outcome): nothing is judged again here. Whatever comes from outside
(transcripts, ids, file names) is escaped as GitHub's workflow commands require.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ttsbench.gating.bounds import BREACHED, NOT_MEASURED
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder
from pytest_ttsbench.support.outside_text import workflow_command
from pytest_ttsbench.support.text import shorten
from pytest_ttsbench.support.yaml_documents import YAML_SUFFIXES, node_lines
from pytest_ttsbench.verdict import explain_evidence

if TYPE_CHECKING:
    from pytest_ttsbench.gating.bounds import Judged
    from pytest_ttsbench.gating.gate import GateOutcome
    from pytest_ttsbench.reporting.terminal import SessionSummary

#: rows of each Markdown table in the job summary; the report holds the rest
SUMMARY_ROWS = 20
#: annotations a run emits; GitHub shows only the first few per step anyway
MAX_ANNOTATIONS = 50


def error_command(message: str, file: str | None = None, line: int | None = None, title: str | None = None) -> str:
    """``::error file=…,line=…,title=…::message``: the one workflow command of the terminal's seam
    (support/outside_text.workflow_command), which escapes each part and marks the line as ours."""
    return workflow_command("error", message, file=file, line=line, title=title)


@dataclass(frozen=True)
class NotCorrect:
    """An item the run did not judge correct, and whether a known gap expects it."""

    row: ItemResult
    known_gap: bool

    @property
    def case_file(self) -> str | None:
        """The case file as pytest names it (relative to the rootdir), from the row's node id."""
        return self.row.node_id.split("::", 1)[0] if self.row.node_id else None

    def why(self) -> str:
        if self.row.verdict == "error":
            return str(self.row.error or "error")
        return explain_evidence(self.row.evidence) or self.row.verdict


def not_correct(finished: SessionSummary) -> list[NotCorrect]:
    """The judged items (after the repeat policy) not judged correct, as the terminal and the report count them."""
    gaps = set(finished.gate.xfailed) if finished.gate is not None else set()
    return [
        NotCorrect(row, f"{row.key} [{row.engine}]" in gaps)
        for row in finished.items
        if row.verdict != "correct" and row.auto_evaluable
    ]


def failing_bounds(outcome: GateOutcome | None) -> list[Judged]:
    if outcome is None:
        return []
    unmeasured_fails = not outcome.allow_unmeasured  # the gate's own rule (bounds.gate_reasons)
    return [b for b in outcome.judged if b.failing or (b.status == NOT_MEASURED and unmeasured_fails)]


def error_annotations(finished: SessionSummary, base: Path) -> list[str]:
    """One ``::error`` per failing item (known gaps are expected, not failing) and per breached bound."""
    lines = []
    for item in not_correct(finished):
        if item.known_gap:
            continue
        row = item.row
        heard = f'; heard "{shorten(row.transcript, 200)}"' if row.transcript is not None else ""
        lines.append(
            error_command(
                f"{row.key} [{row.engine}] {row.verdict}: {shorten(item.why(), 300)}{heard}",
                item.case_file,
                row.case_line,
                f"ttsbench: {row.verdict} on {row.engine}",
            )
        )
    for bound in failing_bounds(finished.gate):
        if bound.status != BREACHED:
            continue
        file, line = _bound_place(bound, base)
        lines.append(error_command(bound.describe(), file, line, f"ttsbench: {bound.kind} breached"))
    if len(lines) > MAX_ANNOTATIONS:
        lines = [*lines[:MAX_ANNOTATIONS], error_command(f"{len(lines) - MAX_ANNOTATIONS} more: see the job summary")]
    return lines


def _bound_place(bound: Judged, base: Path) -> tuple[str | None, int | None]:
    """A bound written in a case file or configuration file: that file, and the line of its threshold."""
    try:
        path = inside_folder(base, bound.source)
    except OutsideFolderError:
        return None, None  # a file outside the repository (a shipped pack's): no place in it to point at
    if path.suffix not in YAML_SUFFIXES or not path.is_file():
        return None, None  # an option or the configuration's section: no line of a case file
    key = bound.name.split("=", 1)[0].rsplit("/", 1)[-1]
    try:
        [line] = node_lines(path.read_text(encoding="utf-8"), [("thresholds", key)])
    except (OSError, UnicodeDecodeError):
        line = None
    return path.resolve().relative_to(base.resolve()).as_posix(), line


def _cell(text: object) -> str:
    """A Markdown table cell: one line, pipes escaped, no markup of its own, bounded."""
    return shorten(" ".join(str(text).split()), 160).replace("|", "\\|").replace("<", "&lt;")


def _bound_table(bounds: Sequence[Judged]) -> list[str]:
    if not bounds:
        return []
    lines = ["", f"### Bounds not held ({len(bounds)})", "", "| status | bound | from |", "| --- | --- | --- |"]
    for bound in bounds[:SUMMARY_ROWS]:
        name = f"{bound.kind} {bound.name}" + (f" [{bound.engine}]" if bound.engine else "")
        lines.append(f"| {bound.status} | {_cell(name)} | {_cell(bound.source)} |")
    return lines


def _item_table(items: Sequence[NotCorrect], total: int) -> list[str]:
    if not items:
        return []
    lines = ["", f"### Not correct ({len(items)} of {total} items)", ""]
    lines += ["| item | engine | verdict | why | heard |", "| --- | --- | --- | --- | --- |"]
    for item in items[:SUMMARY_ROWS]:
        row = item.row
        verdict_cell = row.verdict + (" (known gap)" if item.known_gap else "")
        heard = row.transcript if row.transcript is not None else ""
        lines.append(
            f"| {_cell(row.key)} | {_cell(row.engine)} | {verdict_cell} | {_cell(item.why())} | {_cell(heard)} |"
        )
    return lines


def step_summary(finished: SessionSummary, report: str | None) -> str:
    """The job summary: the verdict and its reasons, the failing bounds, the items not correct
    (at most :data:`SUMMARY_ROWS` of each), then where the rest is."""
    from pytest_ttsbench.reporting.terminal import outcome_line

    outcome = finished.gate
    verdict = "not gated" if outcome is None else "gate passed" if outcome.passed else "gate FAILED"
    lines = [f"## ttsbench: {verdict}", ""]
    said = outcome_line(outcome) if outcome is not None else None  # the terminal's own verdict line
    if said:
        lines.append(shorten(" ".join(said.split())))
    bounds = failing_bounds(outcome)
    lines += _bound_table(bounds)
    items = not_correct(finished)
    lines += _item_table(items, len(finished.items))
    shown = max(len(items), len(bounds))
    if report and (shown > SUMMARY_ROWS or items or bounds):
        more = f"{shown - SUMMARY_ROWS} more and " if shown > SUMMARY_ROWS else ""
        lines += ["", f"{more}the details: {report}"]
    return "\n".join(lines) + "\n"


def report_location(environ: Mapping[str, str], results_path: Path | None, base: Path) -> str | None:
    """Where the rest is: this workflow run's page (its artifacts hold the run folder), else the results file."""
    server, repository, run_id = (environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if server and repository and run_id:
        return f"[the workflow run and its artifacts]({server}/{repository}/actions/runs/{run_id})"
    if results_path is None:
        return None
    try:
        return f"`{results_path.relative_to(base)}`"
    except ValueError:
        return f"`{results_path}`"


def write_github_outputs(
    write_line: Callable[[str], object],
    finished: SessionSummary | None,
    environ: Mapping[str, str],
    results_path: Path | None,
    base: Path,
) -> None:
    """Under GitHub Actions: the annotations on ``write_line`` (the log), the summary appended to
    ``$GITHUB_STEP_SUMMARY``. Nothing outside GitHub Actions, or when nothing was judged."""
    if finished is None:
        return
    if environ.get("GITHUB_ACTIONS") == "true":
        for line in error_annotations(finished, base):
            write_line(line)
    summary_file = environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        # GitHub's own contract: each step appends its Markdown to this file (never replaced whole).
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(step_summary(finished, report_location(environ, results_path, base)))
