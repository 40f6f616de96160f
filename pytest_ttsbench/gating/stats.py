"""Interval estimates and paired tests for accuracy figures.

Both are thin wrappers over :func:`scipy.stats.binomtest` so the arithmetic is scipy's, not ours:
the Wilson score interval for one proportion, and the exact (binomial) McNemar test for two runs
scored on the same targets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_ttsbench.results import ItemResult


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval (no continuity correction) for ``successes`` out of ``n``.

    ``None`` when ``n`` is 0: there is no proportion to bound. Wilson rather than the normal
    approximation because it stays inside [0, 1] and behaves at 0 % and 100 %, which small
    per-category buckets hit all the time.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return None
    from scipy.stats import binomtest  # scipy.stats costs half a second to import: only when a figure is needed

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Exact two-sided McNemar p-value from the two discordant counts.

    ``only_first`` targets were correct in the first run only, ``only_second`` in the second run
    only; under the null both are equally likely, so the smaller count is a Binomial(b + c, 1/2)
    draw. With no discordant pairs there is no evidence of a difference: p = 1.
    """
    if only_first < 0 or only_second < 0:
        raise ValueError("discordant counts must be non-negative")
    total = only_first + only_second
    if total == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(only_first, total, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class PairedComparison:
    """Two runs compared target by target on the auto-evaluable targets both of them scored."""

    n: int  # targets present (and auto-evaluable) in both runs
    both_correct: int
    only_baseline: int  # correct in the baseline, not in the candidate: regressions
    only_candidate: int  # correct in the candidate, not in the baseline: fixes
    neither: int
    p_value: float


def compare_runs(baseline: Iterable[ItemResult], candidate: Iterable[ItemResult]) -> PairedComparison:
    """Pair two runs by :attr:`ItemResult.key` and run McNemar on strict correctness.

    "Correct" is the strict notion used everywhere else: only a ``correct`` verdict counts, so an
    unknown that turns wrong is not a change. Targets in only one run are left out (they cannot
    be paired); when a key repeats within a run, its last row wins, as for a re-run appended to
    the same results file.
    """
    first = {r.key: r.verdict == "correct" for r in baseline if r.auto_evaluable}
    second = {r.key: r.verdict == "correct" for r in candidate if r.auto_evaluable}
    common = first.keys() & second.keys()
    both = sum(1 for k in common if first[k] and second[k])
    only_b = sum(1 for k in common if first[k] and not second[k])
    only_c = sum(1 for k in common if second[k] and not first[k])
    return PairedComparison(
        n=len(common),
        both_correct=both,
        only_baseline=only_b,
        only_candidate=only_c,
        neither=len(common) - both - only_b - only_c,
        p_value=mcnemar_exact(only_b, only_c),
    )
