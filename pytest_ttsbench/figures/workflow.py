"""Workflow figures, reported apart from accuracy: time to first audio byte and synthesis time per request."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_ttsbench.run_model.results import ItemResult


@dataclass(frozen=True)
class Latency:
    """p50 and p95 (seconds) over the requests that reported the figure; ``n`` counts them."""

    n: int
    p50: float | None
    p95: float | None


@dataclass(frozen=True)
class WorkflowFigures:
    requests: int
    first_byte: Latency
    synthesis: Latency


def _latency(values: list[float]) -> Latency:
    if not values:
        return Latency(0, None, None)
    import numpy as np

    p50, p95 = np.percentile(np.asarray(values, dtype=float), [50, 95])
    return Latency(len(values), float(p50), float(p95))


def workflow_figures(results: Iterable[ItemResult]) -> dict[str, WorkflowFigures]:
    """Per engine, one request per clip that returned audio; targets of one item share it and count once."""
    clips: dict[str, dict[tuple[str, int], ItemResult]] = {}
    for result in results:
        if not result.returned_audio:  # such requests say nothing about how fast an engine speaks
            continue
        clips.setdefault(result.engine, {}).setdefault((result.id, result.repeat), result)
    figures: dict[str, WorkflowFigures] = {}
    for engine, by_clip in sorted(clips.items()):
        rows = list(by_clip.values())
        figures[engine] = WorkflowFigures(
            requests=len(rows),
            first_byte=_latency([r.first_byte_seconds for r in rows if r.first_byte_seconds is not None]),
            synthesis=_latency([r.synth_seconds for r in rows if r.synth_seconds is not None]),
        )
    return figures
