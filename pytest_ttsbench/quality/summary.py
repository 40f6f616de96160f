"""Quality figures over groups of clips: mean, median, 10th percentile and a bootstrap 95% interval.

Rows are counted once per clip: a ``readings`` item with three targets shares one clip, so rows
are de-duplicated by engine, item, generation and category before anything is averaged. The
interval is scipy's percentile bootstrap of the mean with a fixed seed (drawn as scipy draws it,
with numpy alone), so the same results give the same interval on every machine.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pytest_ttsbench.quality.measures import MEASURES
from pytest_ttsbench.run_model.results import ItemResult, group_value
from pytest_ttsbench.support.record_dicts import record_dict

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 17


@dataclass(frozen=True)
class MeasureSummary:
    """One measure over one group of clips (only clips where the measure exists count in ``n``)."""

    n: int
    mean: float | None
    median: float | None
    p10: float | None
    ci95: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


def describe(values: Sequence[float]) -> MeasureSummary:
    """Mean, median, p10 and the bootstrap 95% interval of the mean (None below two distinct values)."""
    return _described(tuple(float(v) for v in values if v is not None and math.isfinite(v)))


@functools.lru_cache(maxsize=512)
def _described(finite: tuple[float, ...]) -> MeasureSummary:
    """:func:`describe` of the finite values, in order, worked out once per run for each group of figures.

    The gate and the reports summarize the same clips by several groupings (engine, suite and
    category; each facet), and one group often holds the same clips as another: its bootstrap is
    not drawn again.
    """
    data = np.asarray(finite, dtype=np.float64)
    if data.size == 0:
        return MeasureSummary(0, None, None, None, None)
    interval: tuple[float, float] | None = None
    if data.size >= 2 and np.ptp(data) > 0:
        interval = percentile_bootstrap_of_mean(data)
    elif data.size >= 2:
        interval = (float(data[0]), float(data[0]))
    return MeasureSummary(
        int(data.size), float(data.mean()), float(np.median(data)), float(np.percentile(data, 10)), interval
    )


def percentile_bootstrap_of_mean(data: np.ndarray) -> tuple[float, float]:
    """The percentile bootstrap 95% interval of the mean, as ``scipy.stats.bootstrap(method="percentile")``
    draws it from ``default_rng(BOOTSTRAP_SEED)`` (tests/throughput check the two agree).

    Worked out with numpy alone: every run with quality measures summarizes them, and importing
    scipy.stats costs about a second, most of a warm rerun's time.
    """
    means = np.mean(data[_resample_positions(data.size)], axis=-1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


@functools.lru_cache(maxsize=64)
def _resample_positions(size: int) -> np.ndarray:
    """The positions every resample of ``size`` values draws: a function of the size alone (the
    generator starts from the same seed for every group), so groups of one size share one draw."""
    positions = np.random.default_rng(BOOTSTRAP_SEED).integers(0, size, (BOOTSTRAP_RESAMPLES, size))
    positions.flags.writeable = False  # shared by every caller: no one may change it in place
    return positions


def clip_rows(results: Iterable[ItemResult]) -> list[ItemResult]:
    """One row per clip and category (the first), and only rows that carry quality figures."""
    seen: set[tuple[str, str, int, str]] = set()
    rows: list[ItemResult] = []
    for row in results:
        key = (row.engine, row.id, row.repeat, row.category)
        if not row.quality or key in seen:
            continue
        seen.add(key)
        rows.append(row)
    return rows


def measures_present(results: Iterable[ItemResult]) -> list[str]:
    """Measures any row carries, in the fixed order of :data:`MEASURES`."""
    names = {name for row in results for name, value in row.quality.items() if value is not None}
    return [m.name for m in MEASURES if m.name in names]


def summarize_quality(
    results: Iterable[ItemResult], by: Sequence[str], measures: Sequence[str] | None = None
) -> dict[tuple[str, ...], dict[str, MeasureSummary]]:
    """Per group of ``by`` values (fields or ``facet:<name>``), each measure's summary, sorted by group."""
    rows = clip_rows(results)
    names = list(measures) if measures is not None else measures_present(rows)
    groups: dict[tuple[str, ...], list[ItemResult]] = {}
    # In a canonical order, not the rows': the bootstrap resamples by position, and a merged run
    # (ttsbench merge) lists its rows shard by shard where the unsplit run listed them in test order.
    for row in sorted(rows, key=lambda r: (r.engine, r.id, r.repeat, r.category)):
        groups.setdefault(tuple(group_value(row, name) for name in by), []).append(row)
    return {
        key: {name: describe([r.quality.get(name) for r in groups[key]]) for name in names}  # type: ignore[misc]
        for key in sorted(groups)
    }
