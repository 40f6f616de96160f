"""Charts for the HTML report and the dashboard, drawn by matplotlib and saved as SVG.

Every figure is computed from result rows with :func:`~pytest_ttsbench.figures.summary.summarize`,
so a chart shows exactly the numbers of the summary table beside it: strict accuracy with its
Wilson 95 % interval as an error bar. The Figure API is used directly (no pyplot), so nothing
depends on a display or on global pyplot state shared between threads.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_ttsbench.figures.summary import Bucket, summarize
from pytest_ttsbench.registry import MissingDependency
from pytest_ttsbench.run_model.results import ItemResult

INSTALL_HINT = "pip install 'pytest-ttsbench[plots]'"
try:
    import matplotlib
    from matplotlib.colors import to_rgba
    from matplotlib.figure import Figure
except ModuleNotFoundError as exc:  # charts are an extra: the main job needs none
    raise MissingDependency(f"charts need matplotlib, which is not installed: {INSTALL_HINT}", name=exc.name) from exc

# A fixed id salt and no date make the SVG byte-stable for identical data (diffable artifacts);
# text stays text (not glyph outlines), so labels are searchable and any script renders.
matplotlib.rcParams["svg.hashsalt"] = "pytest-ttsbench"
matplotlib.rcParams["svg.fonttype"] = "none"
_SVG_METADATA = {"Date": None}


@dataclass(frozen=True)
class Bar:
    """One bar: a group on the x axis, a series within the group, and the bucket it shows."""

    group: str
    series: str
    bucket: Bucket


def _error(bucket: Bucket) -> tuple[float, float]:
    """Distances from the accuracy down and up to the Wilson bounds (zero for an empty bucket)."""
    accuracy, ci = bucket.strict_accuracy, bucket.ci95
    if accuracy is None or ci is None:
        return 0.0, 0.0
    return max(0.0, accuracy - ci[0]), max(0.0, ci[1] - accuracy)


#: characters of tick label an inch holds, kept low so a browser's wider fallback font still fits:
#: the SVG keeps text as text, drawn in whatever sans-serif the reader's browser has
_CHARS_PER_INCH = 7.0


def _tick_label(group: str) -> str:
    """A group's label on two lines (``suite/`` over ``category``), so long names sit level and whole."""
    for separator in ("/", ": "):
        head, found, tail = group.partition(separator)
        if found and head and tail:
            return f"{head}{separator.strip()}\n{tail}"
    return group


def _count_colour(rgba: tuple[float, float, float, float]) -> str:
    """Black or white, whichever contrasts more with a bar's colour (WCAG relative luminance)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * channel(rgba[0]) + 0.7152 * channel(rgba[1]) + 0.0722 * channel(rgba[2])
    # contrast with white (1.05 / (L + 0.05)) against contrast with black ((L + 0.05) / 0.05)
    return "white" if 1.05 / (luminance + 0.05) > (luminance + 0.05) / 0.05 else "black"


def grouped_bars_svg(bars: Sequence[Bar], title: str, xlabel: str) -> bytes:
    """Grouped bars of strict accuracy (0-100 %) with Wilson intervals, as SVG bytes.

    Group labels are level, on two lines where they have a suite, and the figure is wide enough for
    the longest line under each group, so no label runs past the chart's edge; each bar's count is
    drawn in black or white, whichever contrasts more with the bar.
    """
    groups = list(dict.fromkeys(bar.group for bar in bars))
    series = list(dict.fromkeys(bar.series for bar in bars))
    lookup = {(bar.group, bar.series): bar.bucket for bar in bars}
    width = 0.8 / max(1, len(series))
    labels_text = [_tick_label(group) for group in groups]
    longest = max((len(line) for label in labels_text for line in label.split("\n")), default=0)
    per_group = max(0.9 + 0.5 * len(series), (longest + 2) / _CHARS_PER_INCH)
    inches = max(5.0, 1.5 + len(groups) * per_group)
    figure = Figure(figsize=(inches, 3.6), layout="constrained")
    axes = figure.add_subplot()
    for index, name in enumerate(series):
        xs, heights, low, high, labels = [], [], [], [], []
        for position, group in enumerate(groups):
            bucket = lookup.get((group, name))
            if bucket is None or bucket.strict_accuracy is None:
                continue
            down, up = _error(bucket)
            xs.append(position - 0.4 + width * (index + 0.5))
            heights.append(100 * bucket.strict_accuracy)
            low.append(100 * down)
            high.append(100 * up)
            labels.append(f"{bucket.correct}/{bucket.n}")
        container = axes.bar(xs, heights, width * 0.92, yerr=[low, high], capsize=3, label=name)
        colour = _count_colour(to_rgba(container.patches[0].get_facecolor())) if container.patches else "black"
        axes.bar_label(container, labels=labels, fontsize=8, padding=2, label_type="center", color=colour)
    axes.set_xticks(range(len(groups)), labels_text, fontsize=9)
    axes.set_xlim(-0.5, len(groups) - 0.5)
    axes.set_ylim(0, 105)
    axes.set_ylabel("strict accuracy (%)")
    axes.set_xlabel(xlabel)
    axes.set_title(title, fontsize=10)
    axes.grid(axis="y", alpha=0.3)
    if len(series) > 1:
        axes.legend(fontsize=8, loc="lower right")
    return _svg(figure)


def category_chart_svg(results: Sequence[ItemResult]) -> bytes:
    """Strict accuracy per suite/category, one bar per engine, with Wilson 95 % intervals."""
    buckets = summarize(results, ["suite", "category", "engine"])
    bars = [Bar(f"{suite}/{category}", engine, bucket) for (suite, category, engine), bucket in buckets.items()]
    return grouped_bars_svg(bars, "Strict accuracy by category (95% Wilson interval)", "suite/category")


def facet_names(results: Sequence[ItemResult]) -> list[str]:
    """Facet keys that split the results into at least two values (worth a breakdown)."""
    values: dict[str, set[str]] = {}
    for result in results:
        for key, value in result.facets.items():
            values.setdefault(key, set()).add(str(value))
    return sorted(key for key, seen in values.items() if len(seen) > 1)


def facet_chart_svg(results: Sequence[ItemResult], facet: str) -> bytes:
    """Strict accuracy per value of one facet (e.g. numeral ``form``) side by side, one bar per engine.

    Rows without the facet are left out: they belong to a benchmark that does not vary it.
    """
    rows = [r for r in results if facet in r.facets]
    buckets = summarize(rows, ["suite", f"facet:{facet}", "engine"])
    bars = [Bar(f"{suite}: {value}", engine, bucket) for (suite, value, engine), bucket in buckets.items()]
    return grouped_bars_svg(bars, f"Strict accuracy by {facet} (95% Wilson interval)", facet)


@dataclass(frozen=True)
class Point:
    """One run's bucket for one line of a history chart."""

    run: str
    line: str
    bucket: Bucket


def history_chart_svg(points: Sequence[Point], runs: Sequence[str], title: str) -> bytes:
    """Strict accuracy over runs, one small chart per category (small multiples) on shared axes.

    Each category gets its own panel, titled with its name, with its line, markers and Wilson 95 %
    band: ten categories drawn on one axes become overlapping translucent bands that cannot be told
    apart, while panels on the same 0-100 % scale can be compared at a glance.
    """
    lines = list(dict.fromkeys(p.line for p in points)) or [""]
    columns = min(4, len(lines))
    rows = math.ceil(len(lines) / columns)
    figure = Figure(figsize=(max(10.0, 3.2 * columns), 2.6 * rows + 0.8), layout="constrained")
    grid = figure.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    position = {run: i for i, run in enumerate(runs)}
    for index, axes in enumerate(grid.flat):
        if index >= len(lines):
            axes.set_visible(False)
            continue
        line = lines[index]
        own = sorted(
            (p for p in points if p.line == line and p.bucket.strict_accuracy is not None),
            key=lambda p: position[p.run],
        )
        xs = [position[p.run] for p in own]
        ys = [100 * (p.bucket.strict_accuracy or 0.0) for p in own]
        lows = [100 * (p.bucket.ci95 or (0.0, 0.0))[0] for p in own]
        highs = [100 * (p.bucket.ci95 or (0.0, 0.0))[1] for p in own]
        axes.fill_between(xs, lows, highs, alpha=0.2, color="C0", linewidth=0, zorder=1)
        axes.plot(xs, ys, marker="o", markersize=4, linewidth=1.6, color="C0", zorder=3)
        axes.set_title(line, fontsize=9)
        axes.set_ylim(0, 105)
        axes.set_xlim(-0.5, len(runs) - 0.5)
        axes.grid(alpha=0.3)
        axes.tick_params(labelsize=8)
        axes.set_xticks(range(len(runs)), list(runs), rotation=30, ha="right", rotation_mode="anchor", fontsize=8)
        if index % columns == 0:
            axes.set_ylabel("strict %", fontsize=8)
    figure.suptitle(title, fontsize=11)
    figure.supxlabel("bands: Wilson 95% interval", fontsize=8)
    return _svg(figure)


def _svg(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata=_SVG_METADATA)
    return buffer.getvalue()


def write_svg(path: Path, svg: bytes) -> Path:
    """Write chart bytes, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(svg)
    return path
