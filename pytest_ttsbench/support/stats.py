"""Interval estimates and paired tests for accuracy figures: plain numbers in, plain numbers out.

The Wilson score interval for one proportion is Newcombe's closed form, the very formula
:func:`scipy.stats.binomtest`'s ``proportion_ci(method="wilson")`` evaluates (tests/gating check
they agree), worked out with the standard library: every run's summary table asks for it, and
importing scipy.stats costs about a second, most of a warm rerun. The exact (binomial) McNemar
test for two runs scored on the same targets is scipy's, imported on first use.
"""

from __future__ import annotations

from math import sqrt
from statistics import NormalDist


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
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    z = NormalDist().inv_cdf(0.5 + 0.5 * confidence)
    p = successes / n
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * sqrt(4 * n * p * (1 - p) + z**2)
    low = 0.0 if successes == 0 else center - delta
    high = 1.0 if successes == n else center + delta
    return float(low), float(high)


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
