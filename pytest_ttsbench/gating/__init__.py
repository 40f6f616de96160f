"""Statistics and aggregation over results rows: voting, buckets, intervals, route diagnostics.

Everything here is a pure function of :class:`~pytest_ttsbench.results.ItemResult` rows, so the
terminal summary, ``ttsbench rescore --json``, the gate and the leaderboard all agree.

The names below are re-exported lazily (PEP 562): importing one gating module, as the pytest
plugin does for its option choices, must not import all of them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ttsbench.gating.diagnostics import Agreement, ablation, pairwise_agreement, route_accuracy
    from pytest_ttsbench.gating.stats import PairedComparison, compare_runs, mcnemar_exact, wilson_interval
    from pytest_ttsbench.gating.summary import MISSING, Bucket, RouteFigures, bucket_of, overall, summarize
    from pytest_ttsbench.gating.voting import majority, vote

_HOMES = {
    **dict.fromkeys(("Agreement", "ablation", "pairwise_agreement", "route_accuracy"), "diagnostics"),
    **dict.fromkeys(("PairedComparison", "compare_runs", "mcnemar_exact", "wilson_interval"), "stats"),
    **dict.fromkeys(("MISSING", "Bucket", "RouteFigures", "bucket_of", "overall", "summarize"), "summary"),
    **dict.fromkeys(("majority", "vote"), "voting"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)


__all__ = [
    "MISSING",
    "Agreement",
    "Bucket",
    "PairedComparison",
    "RouteFigures",
    "ablation",
    "bucket_of",
    "compare_runs",
    "majority",
    "mcnemar_exact",
    "overall",
    "pairwise_agreement",
    "route_accuracy",
    "summarize",
    "vote",
    "wilson_interval",
]
