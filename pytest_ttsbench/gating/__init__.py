"""Statistics and aggregation over results rows: voting, buckets, intervals, route diagnostics.

Everything here is a pure function of :class:`~pytest_ttsbench.results.ItemResult` rows, so the
terminal summary, ``ttsbench rescore --json``, the gate and the leaderboard all agree.
"""

from pytest_ttsbench.gating.diagnostics import Agreement, ablation, pairwise_agreement, route_accuracy
from pytest_ttsbench.gating.stats import PairedComparison, compare_runs, mcnemar_exact, wilson_interval
from pytest_ttsbench.gating.summary import MISSING, Bucket, RouteFigures, bucket_of, overall, summarize
from pytest_ttsbench.gating.voting import majority, vote

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
