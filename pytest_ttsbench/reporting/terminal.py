"""The summary table printed at the end of a pytest run (and by ``ttsbench rescore``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from pytest_ttsbench.gating.summary import Bucket, summarize
from pytest_ttsbench.results import ItemResult


class _Writer(Protocol):
    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None: ...
    def write_line(self, line: str, **markup: bool) -> None: ...


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:5.1f}%"


def _interval(bucket: Bucket) -> str:
    ci = bucket.ci95
    return "-" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A plain aligned text table (left-aligned labels, right-aligned figures)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for index, row in enumerate(cells):
        parts = [cell.ljust(widths[i]) if i < len(header) - 7 else cell.rjust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(parts).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


FIGURE_HEADER = ("n", "correct", "wrong", "unknown", "error", "strict acc", "95% CI")


def bucket_row(labels: Sequence[str], bucket: Bucket) -> list[Any]:
    return [
        *labels,
        bucket.n,
        bucket.correct,
        bucket.wrong,
        bucket.unknown,
        bucket.error,
        _pct(bucket.strict_accuracy),
        _interval(bucket),
    ]


def summary_lines(results: Sequence[ItemResult], breakdown: Sequence[str] = ()) -> list[str]:
    """The category table per engine × suite, then the engine totals and any facet breakdowns."""
    lines: list[str] = []
    by_category = summarize(results, ["engine", "suite", "category"])
    totals = summarize(results, ["engine", "suite"])
    rows: list[list[Any]] = []
    for key in sorted(by_category):
        rows.append(bucket_row(key, by_category[key]))
    for key in sorted(totals):
        rows.append(bucket_row([key[0], key[1], "(all)"], totals[key]))
    lines += format_table(("engine", "suite", "category", *FIGURE_HEADER), rows)
    for facet in breakdown:
        grouped = summarize(results, ["engine", "suite", f"facet:{facet}"])
        lines.append("")
        lines.append(f"by facet {facet!r}:")
        lines += format_table(
            ("engine", "suite", facet, *FIGURE_HEADER), [bucket_row(k, grouped[k]) for k in sorted(grouped)]
        )
    excluded = sum(b.excluded for b in totals.values())
    if excluded:
        lines.append(f"{excluded} target(s) not auto-evaluable: recorded, excluded from accuracy")
    return lines


def write_summary(
    writer: _Writer, results: Sequence[ItemResult], breakdown: Sequence[str], results_path: Path | None
) -> None:
    """Print the summary section of a pytest run."""
    writer.write_sep("=", "ttsbench summary")
    for line in summary_lines(results, breakdown):
        writer.write_line(line)
    flagged = [r for r in results if r.asr_flags]
    if flagged:
        writer.write_line(f"{len(flagged)} transcript(s) flagged by ASR guards (see asr_flags in the results)")
    if results_path is not None:
        writer.write_line(f"results: {results_path}")
