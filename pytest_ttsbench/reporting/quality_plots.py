"""Quality trend charts for the dashboard: one chart per measure, one line per engine over the runs."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from pytest_ttsbench.quality.measures import BY_NAME
from pytest_ttsbench.quality.summary import MeasureSummary
from pytest_ttsbench.reporting.plots import _svg


def trend_chart_svg(measure: str, runs: Sequence[str], lines: dict[str, dict[str, MeasureSummary]]) -> bytes:
    """``lines``: engine → run name → the measure's summary in that run; mean with its bootstrap band."""
    figure = Figure(figsize=(max(6.0, 1.2 * len(runs) + 3.5), 3.4), layout="constrained")
    axes = figure.add_subplot()
    position = {run: i for i, run in enumerate(runs)}
    for engine, by_run in lines.items():
        own = sorted(((position[r], s) for r, s in by_run.items() if s.mean is not None), key=lambda pair: pair[0])
        xs = [x for x, _ in own]
        (drawn,) = axes.plot(xs, [s.mean or 0.0 for _, s in own], marker="o", label=engine)
        banded = [(x, s.ci95) for x, s in own if s.ci95 is not None]
        if banded:
            axes.fill_between(
                [x for x, _ in banded],
                [ci[0] for _, ci in banded],
                [ci[1] for _, ci in banded],
                alpha=0.15,
                color=drawn.get_color(),
            )
    axes.set_xticks(range(len(runs)), list(runs), rotation=45, ha="right", rotation_mode="anchor", fontsize=7)
    axes.set_xlim(-0.5, len(runs) - 0.5)
    info = BY_NAME[measure]
    axes.set_ylabel(f"{measure} ({info.unit})", fontsize=8)
    axes.set_title(f"{info.meaning}: mean per run, bootstrap 95% band", fontsize=10)
    axes.grid(alpha=0.3)
    if axes.lines:
        axes.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _svg(figure)
