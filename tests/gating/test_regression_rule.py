"""The regression gate: significance (exact McNemar), a count and a rate, known gaps spared."""

from __future__ import annotations

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.baseline import RegressionRule, compare, regression_reasons
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.stats import mcnemar_exact


def _runs(regressed: int, fixed: int, steady: int, category: str = "c") -> tuple[list[ItemResult], list[ItemResult]]:
    before, after = [], []
    for k in range(regressed):
        before.append(make_result(id=f"s/r{k}", category=category, verdict="correct"))
        after.append(make_result(id=f"s/r{k}", category=category, verdict="wrong"))
    for k in range(fixed):
        before.append(make_result(id=f"s/f{k}", category=category, verdict="wrong"))
        after.append(make_result(id=f"s/f{k}", category=category, verdict="correct"))
    for k in range(steady):
        before.append(make_result(id=f"s/u{k}", category=category, verdict="correct"))
        after.append(make_result(id=f"s/u{k}", category=category, verdict="correct"))
    return before, after


def test_one_regression_in_fifty_passes_by_default_and_a_significant_shift_fails() -> None:
    comparison = compare(*_runs(regressed=1, fixed=0, steady=49))
    assert regression_reasons(comparison, comparison.regressions, RegressionRule()) == []
    comparison = compare(*_runs(regressed=8, fixed=1, steady=42))  # the degraded release of the issue: p = 0.039
    assert mcnemar_exact(8, 1) == pytest.approx(0.0391, abs=1e-4)
    (reason,) = regression_reasons(comparison, comparison.regressions, RegressionRule(max_rate=None))
    assert "significant overall (McNemar exact p = 0.0391 < alpha 0.05)" in reason
    assert "s/r0" in reason and "s/r7" in reason


def test_rate_and_count_limits_and_alpha_are_configurable() -> None:
    comparison = compare(*_runs(regressed=3, fixed=2, steady=15))  # 15 % regressed, p = 1
    assert regression_reasons(comparison, comparison.regressions, RegressionRule(max_rate=None)) == []
    (reason,) = regression_reasons(comparison, comparison.regressions, RegressionRule())
    assert "15.0% of 20 paired targets regressed (> 10.0%)" in reason
    (reason,) = regression_reasons(comparison, comparison.regressions, RegressionRule(max_count=2, max_rate=None))
    assert "more than 2 regression(s)" in reason
    shifted = compare(*_runs(regressed=5, fixed=0, steady=95))  # p = 0.0625
    assert regression_reasons(shifted, shifted.regressions, RegressionRule(max_rate=None)) == []
    assert regression_reasons(shifted, shifted.regressions, RegressionRule(alpha=0.1, max_rate=None))


def test_a_category_can_be_significant_on_its_own() -> None:
    before, after = _runs(regressed=6, fixed=0, steady=0, category="years")
    more_before, more_after = _runs(regressed=0, fixed=4, steady=90, category="dates")
    comparison = compare(before + more_before, after + more_after)
    (reason,) = regression_reasons(comparison, comparison.regressions, RegressionRule(max_rate=None))
    assert "significant in years (p = 0.0312 < alpha 0.05)" in reason
    assert "significant overall" not in reason  # 6 against 4 fixes overall is nothing


def test_known_gaps_are_not_blocking() -> None:
    comparison = compare(*_runs(regressed=3, fixed=0, steady=7))
    assert regression_reasons(comparison, [], RegressionRule()) == []
