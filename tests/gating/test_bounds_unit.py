"""The bounds' statuses, scope checks and error accounting as plain functions (gating/bounds.py, coverage.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.bounds import (
    ALLOW_UNMEASURED_OPTION,
    BREACHED,
    HELD,
    MATCHES_NOTHING,
    NOT_MEASURED,
    NOT_SELECTED,
    TOO_FEW,
    Bound,
    DeclaredFloor,
    SuiteScope,
    case_file_source,
    declared_floors,
    floor_bounds,
    floor_scope_problem,
    quality_scope_problem,
    scope_errors,
    unmeasured_reasons,
)
from pytest_ttsbench.gating.coverage import EngineCoverage, coverage_reasons, engine_coverage, error_rate_reason
from pytest_ttsbench.gating.gate import Collected, GateConfig, GateOutcome, evaluate_gate, final_status
from pytest_ttsbench.gating.thresholds import config_layer, evaluate, parse_cli_thresholds

SCOPES = {
    "r3": SuiteScope.of([("years", "en-US", {"form": "western"}), ("times", "en", {"form": "spelled"})]),
    "ar": SuiteScope.of([("years", "ar", {"form": "arabic_indic"})]),
}


def rows(suite: str = "r3", category: str = "years", n: int = 2, verdict: str = "correct", engine: str = "e"):
    return [
        make_result(
            engine=engine,
            suite=suite,
            id=f"{suite}/{category}{i}",
            category=category,
            verdict=verdict,
            facets={"form": "western"},
            language="en",
        )
        for i in range(n)
    ]


def test_a_suite_scope_round_trips_and_collects_every_name() -> None:
    scope = SCOPES["r3"]
    assert scope.categories == {"years", "times"} and scope.languages == {"en-US", "en"}
    assert scope.facets == {"form": {"western", "spelled"}}
    assert SuiteScope.from_dict(scope.to_dict()) == scope
    assert scope.to_dict() == {
        "categories": ["times", "years"],
        "languages": ["en", "en-US"],
        "facets": {"form": ["spelled", "western"]},
    }
    assert SuiteScope.from_dict({}) == SuiteScope()


@pytest.mark.parametrize(
    ("suite", "key", "problem"),
    [
        (None, "years", None),
        (None, "default", None),
        ("r3", "default", None),
        ("r3", "times", None),
        ("ar", "times", "no category 'times' in suite 'ar' (known: years)"),
        (None, "yeras", "no category 'yeras' in any loaded case file (closest: years)"),
        ("r4", "years", "no loaded case file defines suite 'r4' (closest: r3, ar)"),
        ("zz", "default", "no loaded case file defines suite 'zz' (known: ar, r3)"),
        (None, "form=western", None),
        ("ar", "form=arabic_indic", None),
        ("ar", "form=western", "no form 'western' in suite 'ar' (known: arabic_indic)"),
        (None, "fomr=western", "no facet 'fomr' in any loaded case file (closest: form)"),
        (None, "language=en", None),
        (None, "language=ar", None),
        ("r3", "language=ar", "no language 'ar' in suite 'r3' (known: en, en-US)"),
        (None, "suite=ar", None),
        (None, "suite=r5", "no suite 'r5' in any loaded case file (closest: r3, ar)"),
        (None, "category=times", None),
        ("ar", "category=times", "no category 'times' in suite 'ar' (known: years)"),
    ],
)
def test_a_floor_scope_names_what_it_lacks_and_the_closest_names(suite, key, problem) -> None:  # type: ignore[no-untyped-def]
    assert floor_scope_problem(DeclaredFloor(suite, key, 0.9, "x"), SCOPES) == problem


def test_quality_scopes_name_engines_suites_or_categories() -> None:
    assert quality_scope_problem(("e", "r3", "years"), ["e"], SCOPES) is None
    assert quality_scope_problem(("yeras",), ["e"], SCOPES) == "no engine, suite or category 'yeras' (closest: years)"


def test_declared_floors_come_in_precedence_order_with_their_sources() -> None:
    cli = parse_cli_thresholds(["years=0.9", "r3/times=0.8"])
    config = config_layer({"default": 0.5, "ar": {"years": 0.7}}, "ttsbench.yaml")
    found = declared_floors({"r3": {"years": 0.6, "min_n": 3, "floor_on": "lower"}}, [cli, config], {"r3": "c.yaml"})
    assert found == [
        DeclaredFloor(None, "years", 0.9, "--tts-threshold"),
        DeclaredFloor("r3", "times", 0.8, "--tts-threshold"),
        DeclaredFloor(None, "default", 0.5, "ttsbench.yaml"),
        DeclaredFloor("ar", "years", 0.7, "ttsbench.yaml"),
        DeclaredFloor("r3", "years", 0.6, "c.yaml", inherited=True),  # brought by a case file
    ]
    assert found[1].name == "r3/times=0.8" and found[0].name == "years=0.9"
    assert declared_floors({"s": {"x": 0.5}}, [])[0].source == "the case file of suite s"


def test_scope_errors_name_the_bound_its_source_and_the_problem_once() -> None:
    floors = [DeclaredFloor(None, "yeras", 0.9, "--tts-threshold")] * 2 + [DeclaredFloor("r3", "years", 0.9, "x")]
    assert scope_errors(floors, [], ["e"], SCOPES) == [
        "floor yeras=0.9 (--tts-threshold) matches nothing: no category 'yeras' in any loaded case file "
        "(closest: years)"
    ]


def _floor_statuses(bounds: list[Bound]) -> dict[str, str]:
    return {f"{b.name} [{b.engine}]": b.status for b in bounds}


def test_floor_bounds_give_each_floor_one_status() -> None:
    results = rows("r3", "years", 5) + rows("r3", "times", 2, "wrong")
    cli = parse_cli_thresholds(["years=0.9", "r3/times=0.5", "form=spelled=0.5", "language=ar=0.5", "yeras=1"])
    layers = [cli]
    checks = evaluate(results, {"r3": {"years": 0.2}}, layers)
    floors = declared_floors({"r3": {"years": 0.2}}, layers, {"r3": "r3.yaml"})
    bounds = floor_bounds(checks, floors, ["e", "f"], SCOPES, {"e": {"r3"}})
    assert _floor_statuses(bounds) == {
        "r3/years=0.9 [e]": HELD,
        "r3/times=0.5 [e]": TOO_FEW,  # 2 targets, min_n 5
        "form=spelled=0.5 [e]": NOT_MEASURED,  # the run's rows are all western
        "language=ar=0.5 [e]": NOT_MEASURED,
        "yeras=1 [None]": MATCHES_NOTHING,
        # f ran nothing: each command-line floor says so once (the general one across suites)
        "years=0.9 [f]": NOT_MEASURED,
        "r3/times=0.5 [f]": NOT_MEASURED,
        "form=spelled=0.5 [f]": NOT_MEASURED,
        "language=ar=0.5 [f]": NOT_MEASURED,
    }  # and no "ar/years" for e: a general floor is asked in the suites the engine ran
    held = next(b for b in bounds if b.status == HELD)
    assert held.source == "--tts-threshold" and held.detail == "5/5"
    too_few = next(b for b in bounds if b.status == TOO_FEW)
    assert too_few.detail == "0/2, fewer than min_n 5"


def test_case_file_floors_are_asked_only_where_the_engine_ran_the_suite() -> None:
    results = rows("r3", "years", 5)
    thresholds = {"r3": {"times": 0.9}, "ar": {"years": 0.9}}
    checks = evaluate(results, thresholds, [])
    floors = declared_floors(thresholds, [], {"r3": "r3.yaml", "ar": "ar.yaml"})
    statuses = _floor_statuses(floor_bounds(checks, floors, ["e"], SCOPES, {"e": {"r3"}}))
    assert statuses == {"r3/times=0.9 [e]": NOT_MEASURED}
    assert _floor_statuses(floor_bounds(checks, floors, ["e"], SCOPES, None)) == {
        "r3/times=0.9 [e]": NOT_MEASURED,
        "ar/years=0.9 [e]": NOT_MEASURED,
    }
    # Knowing what ran: the case file's floor on a category the selection left out is not selected
    # (it does not fail), while one the user named stays not measured (it does).
    ran = {"e": results}
    assert _floor_statuses(floor_bounds(checks, floors, ["e"], SCOPES, {"e": {"r3"}}, ran)) == {
        "r3/times=0.9 [e]": NOT_SELECTED
    }
    named = declared_floors({}, [parse_cli_thresholds(["r3/times=0.9"])])
    assert _floor_statuses(floor_bounds(checks, named, ["e"], SCOPES, {"e": {"r3"}}, ran)) == {
        "r3/times=0.9 [e]": NOT_MEASURED
    }
    # A category that ran but judged nothing (its one row not auto-evaluable) is not measured, selected.
    unjudged = rows("r3", "times", 1)
    unjudged = [replace(row, auto_evaluable=False) for row in unjudged]
    statuses = _floor_statuses(floor_bounds(checks, floors, ["e"], SCOPES, {"e": {"r3"}}, {"e": results + unjudged}))
    assert statuses == {"r3/times=0.9 [e]": NOT_MEASURED}


def test_a_breached_floor_is_breached_and_defaults_are_listed_where_they_judged() -> None:
    results = rows("r3", "years", 5, "wrong")
    layers = [config_layer({"default": 0.5}, "cfg")]
    bounds = floor_bounds(evaluate(results, {}, layers), declared_floors({}, layers), ["e"], SCOPES, {"e": {"r3"}})
    assert [(b.name, b.status, b.source) for b in bounds] == [("r3/years=0.5", BREACHED, "cfg")]


def test_unmeasured_reasons_fail_unless_opted_in_and_never_excuse_a_typo() -> None:
    typo = Bound("floor", "yeras=0.9", "--tts-threshold", MATCHES_NOTHING, None, "no category")
    gap = Bound("floor", "r3/times=0.9", "--tts-threshold", NOT_MEASURED, "e", "nothing judged")
    held = Bound("floor", "r3/years=0.9", "--tts-threshold", HELD, "e")
    assert unmeasured_reasons([held], False) == []
    assert unmeasured_reasons([gap, held], True) == []
    assert unmeasured_reasons([gap], False) == [
        f"1 bound(s) not measured ({ALLOW_UNMEASURED_OPTION} allows a partial run): "
        "floor r3/times=0.9 [e] (--tts-threshold): nothing judged"
    ]
    assert unmeasured_reasons([typo], True) == ["floor yeras=0.9 (--tts-threshold) matches nothing: no category"]
    assert typo.failing and gap.failing and not held.failing and gap.unmeasured and not typo.unmeasured
    assert held.to_dict() == {
        "kind": "floor",
        "name": "r3/years=0.9",
        "source": "--tts-threshold",
        "engine": "e",
        "status": "held",
        "detail": "",
    }
    assert Bound("shard", "2/2", "merge", NOT_MEASURED).describe() == "shard 2/2 (merge)"


def test_case_file_sources_are_relative_to_the_project(tmp_path: Path) -> None:
    assert case_file_source(tmp_path / "cases" / "a.yaml", tmp_path) == "cases/a.yaml"
    assert case_file_source("/elsewhere/a.yaml", tmp_path) == "/elsewhere/a.yaml"


# --- errors are not measurements (coverage.py) ---


def test_error_rows_are_counted_apart_from_verdicts() -> None:
    results = rows(n=3) + rows(category="times", n=1, verdict="error")
    [coverage] = engine_coverage(["e"], {"e": 4}, results, {})
    assert (coverage.measured, coverage.errors, coverage.error_rate) == (3, 1, 0.25)
    assert coverage.describe() == "e: 3 of 4 selected target(s) produced a verdict (1 ended in error)"
    assert coverage.to_dict() == {"engine": "e", "selected": 4, "measured": 3, "errors": 1, "unavailable": None}
    assert coverage_reasons([coverage], False) == [error_rate_reason(coverage, 0.0)]
    assert error_rate_reason(coverage, 0.0) == (
        "e: 1 of 4 target(s) ended in error (25.0%; no error is allowed, --tts-max-error-rate)"
    )
    assert coverage_reasons([coverage], False, 0.25) == []
    assert "at most 10.0% allowed" in coverage_reasons([coverage], False, 0.1)[0]
    assert EngineCoverage("e", 0, 0).error_rate == 0.0


def test_an_engine_whose_every_row_is_an_error_measured_nothing_even_if_unavailable_is_allowed() -> None:
    coverage = EngineCoverage("cloud", 2, 0, "no key", errors=2)
    assert coverage_reasons([coverage], True) == [
        "cloud: 0 of 2 selected target(s) produced a verdict (2 ended in error): the run measured nothing for it"
    ]
    assert coverage_reasons([EngineCoverage("cloud", 2, 0, "no key")], True) == []
    assert coverage_reasons([EngineCoverage("e", 3, 2)], False, 1.0) == [
        "e: 2 of 3 selected target(s) produced a verdict: the run is incomplete"
    ]
    assert coverage_reasons([EngineCoverage("e", 3, 2, errors=1)], False, 1.0) == []
    assert coverage_reasons([EngineCoverage("e", 0, 0)], False) == []


def test_the_gate_files_verdict_is_the_exit_statuss() -> None:
    config = GateConfig(engines=("e",))
    outcome = evaluate_gate(rows(n=2), config, Collected(selected={"e": 2}))
    assert outcome.reasons == [] and outcome.passed and outcome.to_dict()["passed"] is True
    outcome.exitstatus = final_status(outcome, 1)  # an item test failed
    assert outcome.to_dict()["passed"] is False and outcome.to_dict()["gate_passed"] is True
    assert GateOutcome(items=[], reasons=["x"]).passed is False


def test_the_gate_lists_error_rate_latency_regression_and_shards_as_bounds() -> None:
    from pytest_ttsbench.gating.latency import LatencyBudget

    config = GateConfig(engines=("e",), latency_budgets=(LatencyBudget("e", "first_audio_p95", 0.3),))
    collected = Collected(selected={"e": 3}, missing_shards=["2/3"])
    outcome = evaluate_gate(rows(n=2) + rows(category="times", n=1, verdict="error"), config, collected)
    kinds = {(b.kind, b.status) for b in outcome.bounds}
    assert ("error rate", BREACHED) in kinds and ("shard", NOT_MEASURED) in kinds
    assert ("latency budget", NOT_MEASURED) in kinds  # transcripts rows have no first-audio figure
    assert outcome.missing_shards == ["2/3"] and outcome.to_dict()["missing_shards"] == ["2/3"]
    assert any("2 bound(s) not measured" in reason for reason in outcome.reasons)
    partial = Collected(selected={"e": 2}, missing_shards=["2/3"])
    allowed = evaluate_gate(rows(n=2), GateConfig(engines=("e",), allow_unmeasured_bounds=True), partial)
    assert allowed.reasons == [] and any(b.kind == "shard" for b in allowed.bounds)
    tolerant = evaluate_gate(
        rows(n=2) + rows(category="times", n=1, verdict="error"),
        GateConfig(engines=("e",), max_error_rate=0.5),
        Collected(selected={"e": 3}),
    )
    assert tolerant.reasons == []
    assert next(b for b in tolerant.bounds if b.kind == "error rate").status == HELD
