"""Quality measures in the pytest-html report: a sortable column per chosen measure, summary and gate tables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_ttsbench.quality.summary import measures_present, summarize_quality
from pytest_ttsbench.reporting.quality import SHORT_NAMES, figure, gate_row
from pytest_ttsbench.run_model.results import ItemResult

#: Added to a value before it is written as a fixed-width sort key (every measure is above -1000).
_SORT_OFFSET = 1000.0


def column_key(name: str) -> str:
    """pytest-html reads the sort key from ``col-(\\w+)``: measure names are already word characters."""
    return f"q_{name}"


def header_cells(names: Sequence[str]) -> list[str]:
    return [f'<th class="sortable" data-column-type="{column_key(n)}" title="{n}">{SHORT_NAMES[n]}</th>' for n in names]


def sort_key(value: float | None) -> str:
    """A key whose text order is the numeric order: pytest-html compares the cells' HTML as strings."""
    return "" if value is None else f"{value + _SORT_OFFSET:014.6f}"


def row_cells(result: ItemResult | None, names: Sequence[str]) -> list[str]:
    """One cell per measure; the hidden fixed-width key first, so sorting is numeric, then the figure."""
    cells = []
    for name in names:
        value = None if result is None else result.quality.get(name)
        shown = "" if value is None else figure(value)
        cells.append(f'<td class="col-{column_key(name)}"><span hidden>{sort_key(value)}</span>{shown}</td>')
    return cells


def summary_rows(results: Sequence[ItemResult], breakdown: Sequence[str] = ()) -> list[list[str]]:
    """engine, suite, slice, measure, clips, mean, median, p10, 95% CI: per category, facet and engine × suite."""
    names = measures_present(results)
    rows: list[list[str]] = []
    groupings = [["engine", "suite", "category"], *(["engine", "suite", f"facet:{f}"] for f in breakdown)]
    for by in [*groupings, ["engine", "suite"]]:
        for key, figures in summarize_quality(results, by, names).items():
            slice_name = "(all)" if len(key) == 2 else key[2] if by[2] == "category" else f"{by[2][6:]}={key[2]}"
            for name, summary in figures.items():
                ci = "-" if summary.ci95 is None else f"[{figure(summary.ci95[0])}, {figure(summary.ci95[1])}]"
                rows.append(
                    [
                        key[0],
                        key[1],
                        slice_name,
                        name,
                        str(summary.n),
                        figure(summary.mean),
                        figure(summary.median),
                        figure(summary.p10),
                        ci,
                    ]
                )
    return rows


SUMMARY_HEADER = ("engine", "suite", "slice", "measure", "clips", "mean", "median", "p10", "bootstrap 95% CI")
GATE_HEADER = ("gate", "engine", "suite", "category", "measure", "kind", "mean", "limit", "baseline", "clips")


def gate_rows(outcome: Any) -> list[list[str]]:
    checks = outcome.quality_checks if outcome is not None else []
    return [[str(cell) for cell in gate_row(check)] for check in checks]


def quality_trends(
    runs: Sequence[tuple[str, Sequence[ItemResult]]], chart: Callable[[str, str, bytes], Any]
) -> list[dict[str, Any]]:
    """Dashboard section data: per measure, a trend chart (a line per engine over the runs) and its figures.

    ``runs`` are (run name, every row of that results file), oldest first; ``chart(stem, alt, svg)``
    is the dashboard's chart writer. Empty when no run recorded quality figures.
    """
    from pytest_ttsbench.reporting.quality_plots import trend_chart_svg  # matplotlib only when drawn

    names = measures_present([row for _, rows in runs for row in rows])
    per_run = {name: summarize_quality(rows, ["engine"], names) for name, rows in runs}
    run_names = [name for name, _ in runs if per_run[name]]
    engines = sorted({key[0] for figures in per_run.values() for key in figures})
    sections = []
    for measure in names:
        lines = {
            engine: {run: per_run[run][(engine,)][measure] for run in run_names if (engine,) in per_run[run]}
            for engine in engines
        }
        rows = [
            [engine, *(figure(s.mean) if (s := lines[engine].get(run)) else "-" for run in run_names)]
            for engine in engines
        ]
        svg = trend_chart_svg(measure, run_names, lines)
        sections.append(
            {
                "measure": measure,
                "chart": chart(f"quality-{measure}", f"{measure} per engine over runs", svg),
                "header": ("engine", *run_names),
                "rows": rows,
            }
        )
    return sections
