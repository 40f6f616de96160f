"""Interval estimates and paired tests for accuracy figures: plain numbers in, plain numbers out.

Both are thin wrappers over :func:`scipy.stats.binomtest` so the arithmetic is scipy's, not ours:
the Wilson score interval for one proportion, and the exact (binomial) McNemar test for two runs
scored on the same targets. scipy is imported on first use, so importing this module is free.
"""

from __future__ import annotations


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
    from scipy.stats import binomtest  # scipy costs a second to import; only figures need it

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
