"""The bounds' statuses, scope checks and error accounting as plain functions (gating/bounds.py, coverage.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.bounds import (
    ALLOW_UNMEASURED_OPTION,
    BREACHED,
    CLI_SOURCE,
    HELD,
    MATCHES_NOTHING,
    NOT_JUDGED,
    NOT_MEASURED,
    NOT_SELECTED,
    TOO_FEW,
    Judged,
    RunFacts,
    SuiteScope,
    case_file_source,
    fails,
    gate_reasons,
    judge_all,
    scope_errors,
)
from pytest_ttsbench.gating.coverage import Coverage, EngineCoverage, ErrorRateLimit, engine_coverage, error_rate_reason
from pytest_ttsbench.gating.gate import Collected, GateConfig, GateOutcome, evaluate_gate, final_status
from pytest_ttsbench.gating.quality import QualityLimit
from pytest_ttsbench.gating.thresholds import (
    CASE_FILE_RANK,
    CONFIG_RANK,
    Floor,
    FloorPolicy,
    FloorSettings,
    config_floors,
    parse_cli_thresholds,
    settle_floors,
)
from pytest_ttsbench.quality.bounds import QualityBound
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.run_model.results import ItemResult

SCOPES = {
    "r3": SuiteScope.of([("years", "en-US", {"form": "western"}), ("times", "en", {"form": "spelled"})]),
    "ar": SuiteScope.of([("years", "ar", {"form": "arabic_indic"})]),
}


def rows(
    suite: str = "r3", category: str = "years", n: int = 2, verdict: str = "correct", engine: str = "e"
) -> list[ItemResult]:
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
    floor = Floor(suite, key, 0.9, "x")
    assert floor.scope_problem(SCOPES) == problem
    # The gate judges the same object: a floor whose scope matches nothing is listed so, with the problem.
    if problem is not None:
        [entry] = floor.judge(RunFacts((), (), ("e",), SCOPES))
        assert (entry.status, entry.engine, entry.detail) == (MATCHES_NOTHING, None, problem)
        assert entry.reasons == (f"floor {floor.name} (x) matches nothing: {problem}",)


def test_quality_scopes_name_engines_suites_or_categories() -> None:
    def problem(*scope: str) -> str | None:
        return QualityLimit(QualityBound("floor", "dnsmos_ovrl", 3.0, scope)).scope_problem(SCOPES, ["e"])

    assert problem("e", "r3", "years") is None
    assert problem("yeras") == "no engine, suite or category 'yeras' (closest: years)"


def _settled() -> list[Floor]:
    cli = parse_cli_thresholds(["years=0.9", "r3/times=0.8"])
    config, config_settings = config_floors({"default": 0.5, "ar": {"years": 0.7}}, "ttsbench.yaml")
    case = {"r3": {"years": 0.6, "min_n": 3, "floor_on": "lower"}}
    return settle_floors([*cli, *config], [FloorSettings(), config_settings], case, {"r3": "c.yaml"})


def test_floors_are_settled_in_precedence_order_with_their_sources_and_rivals() -> None:
    found = _settled()
    assert found == [
        Floor(None, "years", 0.9, CLI_SOURCE),
        Floor("r3", "times", 0.8, CLI_SOURCE),
        Floor(None, "default", 0.5, "ttsbench.yaml", rank=CONFIG_RANK),
        Floor("ar", "years", 0.7, "ttsbench.yaml", rank=CONFIG_RANK),
        Floor("r3", "years", 0.6, "c.yaml", inherited=True, rank=CASE_FILE_RANK),  # brought by a case file
    ]
    assert found[1].name == "r3/times=0.8" and found[0].name == "years=0.9"
    assert found[0].title == "floor years=0.9 (--tts-threshold)"
    assert found[0].from_command_line and not found[2].from_command_line
    # each knows every other floor of the run, and every source's settings
    assert all(sorted(map(repr, floor.rivals)) == sorted(repr(f) for f in found if f != floor) for floor in found)
    assert found[0].policies.of("r3") == FloorPolicy(3, "lower") and found[0].policies.of("ar") == FloorPolicy()
    [fallback] = settle_floors([], [], {"s": {"x": 0.5}})
    assert fallback.source == "the case file of suite s"


@pytest.mark.parametrize(
    ("suite", "key", "in_force"),
    [
        ("r3", "years", "years=0.9"),  # the command line's own key before the case file's
        ("ar", "years", "years=0.9"),  # the command line before the configuration's suite-specific floor
        ("r3", "times", "r3/times=0.8"),
        ("ar", "times", "default=0.5"),  # no source names times for ar: the configuration's default
        ("r3", "dates", "default=0.5"),
        # across suites (asked where no played suite defines it) only a general floor on the very category
        ("*", "years", "years=0.9"),
        ("*", "times", None),  # never a default, never a suite's own floor
        ("r3", "form=western", None),  # a default is no floor on a slice
    ],
)
def test_one_floor_is_in_force_on_a_bucket(suite: str, key: str, in_force: str | None) -> None:
    assert [floor.name for floor in _settled() if floor.in_force(suite, key)] == ([in_force] if in_force else [])


def test_a_case_files_own_key_outranks_a_general_default_and_a_suites_floor_a_general_one() -> None:
    config, settings = config_floors({"default": 0.7, "r3": {"times": 0.4}, "times": 0.3}, "cfg")
    floors = settle_floors(config, [settings], {"r3": {"years": 0.9, "default": 0.1}})
    assert [f.name for f in floors if f.in_force("r3", "years")] == ["r3/years=0.9"]  # own key before default
    assert [f.name for f in floors if f.in_force("r3", "dates")] == ["default=0.7"]  # cfg's default before r3's
    assert [f.name for f in floors if f.in_force("r3", "times")] == ["r3/times=0.4"]  # suite-specific first
    assert [f.name for f in floors if f.in_force("ar", "times")] == ["times=0.3"]


def test_scope_errors_name_the_bound_its_source_and_the_problem_once() -> None:
    floors = [Floor(None, "yeras", 0.9, CLI_SOURCE)] * 2 + [Floor("r3", "years", 0.9, "x")]
    typo = QualityBound("floor", "dnsmos_ovrl", 3.0, ("yeras",), "--tts-quality-floor")
    assert scope_errors(floors, ["e"], SCOPES) == [
        "floor yeras=0.9 (--tts-threshold) matches nothing: no category 'yeras' in any loaded case file "
        "(closest: years)"
    ]
    assert scope_errors([QualityLimit(typo)], ["e"], SCOPES) == [
        "quality floor yeras/dnsmos_ovrl=3 (--tts-quality-floor) matches nothing: no engine, suite or "
        "category 'yeras' (closest: years)"
    ]


def _floor_statuses(judged: list[Judged]) -> dict[str, str]:
    return {f"{b.name} [{b.engine}]": b.status for b in judged}


def _judge_floors(
    results: list[ItemResult], overrides: list[Floor], thresholds: dict, engines: tuple[str, ...] = ("e",)
) -> list[Judged]:
    floors = settle_floors(overrides, [], thresholds, {suite: f"{suite}.yaml" for suite in thresholds})
    return judge_all(floors, RunFacts(tuple(results), tuple(results), engines, SCOPES))


CLI_FLOORS = ["years=0.9", "r3/times=0.5", "form=spelled=0.5", "language=ar=0.5", "yeras=1"]


def test_floors_give_each_bucket_one_status() -> None:
    results = rows("r3", "years", 5) + rows("r3", "times", 2, "wrong")
    judged = _judge_floors(results, parse_cli_thresholds(CLI_FLOORS), {"r3": {"years": 0.2}}, ("e", "f"))
    statuses = _floor_statuses(judged)
    assert {k: v for k, v in statuses.items() if not k.endswith("[f]")} == {
        "r3/years=0.9 [e]": HELD,  # the command line's years, not the case file's
        "r3/times=0.5 [e]": TOO_FEW,  # 2 targets, min_n 5
        "form=spelled=0.5 [e]": NOT_MEASURED,  # the run's rows are all western
        "language=ar=0.5 [e]": NOT_MEASURED,
        "yeras=1 [None]": MATCHES_NOTHING,
    }  # and no "ar/years" for e: a general floor is asked in the suites the engine ran
    # f ran nothing: each command-line floor on its bucket says so
    assert {k: v for k, v in statuses.items() if k.endswith("[f]")}.items() >= {
        "r3/times=0.5 [f]": NOT_MEASURED,
        "form=spelled=0.5 [f]": NOT_MEASURED,
        "language=ar=0.5 [f]": NOT_MEASURED,
    }.items()
    held = next(b for b in judged if b.status == HELD)
    assert held.source == CLI_SOURCE and held.detail == "5/5" and held.reasons == ()
    assert held.measured["floor"] == 0.9 and held.measured["n"] == 5 and held.measured["status"] == "passed"
    too_few = next(b for b in judged if b.status == TOO_FEW)
    assert too_few.detail == "0/2, fewer than min_n 5" and too_few.reasons == ()
    assert too_few.measured["status"] == "too few to gate" and too_few.measured["breached"] is False
    assert gate_reasons(judged, allow_unmeasured=True) == [
        "floor yeras=1 (--tts-threshold) matches nothing: no category 'yeras' in any loaded case file (closest: years)"
    ]


def test_an_engine_that_ran_nothing_is_asked_every_command_line_floor() -> None:
    results = rows("r3", "years", 5)
    judged = _judge_floors(results, parse_cli_thresholds(["years=0.9"]), {}, ("e", "f"))
    assert _floor_statuses(judged) == {"r3/years=0.9 [e]": HELD, "years=0.9 [f]": NOT_MEASURED}
    assert gate_reasons(judged, allow_unmeasured=False)


def test_case_file_floors_are_asked_only_where_the_engine_ran_the_suite() -> None:
    results = rows("r3", "years", 5)
    thresholds = {"r3": {"times": 0.9}, "ar": {"years": 0.9}}
    # The case file's floor on a category the selection left out is not selected (it does not fail);
    # ar's own floor is not asked of an engine that ran nothing of ar.
    judged = _judge_floors(results, [], thresholds)
    assert _floor_statuses(judged) == {"r3/times=0.9 [e]": NOT_SELECTED}
    assert [(b.source, b.detail) for b in judged] == [("r3.yaml", "the run's selection left its scope out")]
    assert gate_reasons(judged, allow_unmeasured=False) == []
    # Once the engine ran ar, ar's floor is asked of it.
    ran_ar = _judge_floors(results + rows("ar", "years", 5, "wrong"), [], thresholds)
    assert _floor_statuses(ran_ar) == {"r3/times=0.9 [e]": NOT_SELECTED, "ar/years=0.9 [e]": BREACHED}
    # One the user named stays not measured (it fails).
    named = _judge_floors(results, parse_cli_thresholds(["r3/times=0.9"]), {})
    assert _floor_statuses(named) == {"r3/times=0.9 [e]": NOT_MEASURED}
    assert gate_reasons(named, allow_unmeasured=False) and not gate_reasons(named, allow_unmeasured=True)
    # A category that ran but judged nothing (its one row not auto-evaluable) is not measured, selected.
    unjudged = [replace(row, auto_evaluable=False) for row in rows("r3", "times", 1)]
    statuses = _floor_statuses(_judge_floors(results + unjudged, [], thresholds))
    assert statuses == {"r3/times=0.9 [e]": NOT_MEASURED}


def test_a_breached_floor_is_breached_and_defaults_are_listed_where_they_judged() -> None:
    results = rows("r3", "years", 5, "wrong")
    floors, settings = config_floors({"default": 0.5}, "cfg")
    judged = judge_all(settle_floors(floors, [settings], {}), RunFacts(tuple(results), tuple(results), ("e",), SCOPES))
    assert [(b.name, b.status, b.source) for b in judged] == [("r3/years=0.5", BREACHED, "cfg")]
    assert judged[0].reasons == ("e r3/years: strict accuracy 0.0% (0/5) below floor 50.0%",)
    assert gate_reasons(judged, allow_unmeasured=True) == list(judged[0].reasons)


def test_unmeasured_entries_fail_unless_opted_in_and_never_excuse_a_typo() -> None:
    typo = Judged(
        "floor", "yeras=0.9", CLI_SOURCE, MATCHES_NOTHING, None, "no category", ("floor yeras=0.9 matches nothing",)
    )
    gap = Judged("floor", "r3/times=0.9", CLI_SOURCE, NOT_MEASURED, "e", "nothing judged")
    held = Judged("floor", "r3/years=0.9", CLI_SOURCE, HELD, "e")
    quiet = [
        Judged("floor", "r3/dates=0.9", "c.yaml", status, "e", "x") for status in (TOO_FEW, NOT_SELECTED, NOT_JUDGED)
    ]
    assert gate_reasons([held, *quiet], False) == []
    assert gate_reasons([gap, held], True) == []
    assert gate_reasons([gap], False) == [
        f"1 bound(s) not measured ({ALLOW_UNMEASURED_OPTION} allows a partial run): "
        "floor r3/times=0.9 [e] (--tts-threshold): nothing judged"
    ]
    assert gate_reasons([typo, typo], True) == ["floor yeras=0.9 matches nothing"]  # said once
    # an entry that gives no reason of its own is described
    assert gate_reasons([replace(typo, reasons=())], True) == ["floor yeras=0.9 (--tts-threshold): no category"]
    # a bound that says in its own words why it judged nothing says it, and is not counted
    worded = Judged("quality floor", "dnsmos_ovrl=3", "cfg", NOT_MEASURED, None, "no figures", ("quality: no figures",))
    assert gate_reasons([worded, gap], False)[0] == "quality: no figures"
    assert gate_reasons([worded, gap], False)[1].startswith("1 bound(s) not measured")
    assert gate_reasons([worded], True) == []
    assert typo.failing and not gap.failing and not held.failing and not any(q.failing for q in quiet)
    assert held.to_dict() == {
        "kind": "floor",
        "name": "r3/years=0.9",
        "source": "--tts-threshold",
        "engine": "e",
        "status": "held",
        "detail": "",
    }
    assert Judged("shard", "2/2", "merge", NOT_MEASURED).describe() == "shard 2/2 (merge)"
    unfinished = fails("the session did not finish")
    assert unfinished.failing and gate_reasons([unfinished], True) == ["the session did not finish"]


def test_case_file_sources_are_relative_to_the_project(tmp_path: Path) -> None:
    assert case_file_source(tmp_path / "cases" / "a.yaml", tmp_path) == "cases/a.yaml"
    assert case_file_source("/elsewhere/a.yaml", tmp_path) == "/elsewhere/a.yaml"


# --- errors are not measurements (coverage.py) ---


def _run(results: list[ItemResult], engines: tuple[str, ...] = ("e",)) -> RunFacts:
    return RunFacts(tuple(results), tuple(results), engines)


def test_error_rows_are_counted_apart_from_verdicts() -> None:
    results = rows(n=3) + rows(category="times", n=1, verdict="error")
    [coverage] = engine_coverage(["e"], {"e": 4}, results, {})
    assert (coverage.measured, coverage.errors, coverage.error_rate) == (3, 1, 0.25)
    assert coverage.describe() == "e: 3 of 4 selected target(s) produced a verdict (1 ended in error)"
    assert coverage.to_dict() == {"engine": "e", "selected": 4, "measured": 3, "errors": 1, "unavailable": None}
    [covered] = Coverage(("e",), {"e": 4}, {}).judge(_run(results))  # an error row is a row that ran
    assert (covered.status, covered.detail, covered.measured) == (HELD, coverage.describe(), coverage)
    [limit] = ErrorRateLimit(("e",), 0.0).judge(_run(results))
    assert (limit.status, limit.detail, limit.reasons) == (BREACHED, "1 of 4", (error_rate_reason(coverage, 0.0),))
    assert error_rate_reason(coverage, 0.0) == (
        "e: 1 of 4 target(s) ended in error (25.0%; no error is allowed, --tts-max-error-rate)"
    )
    [tolerant] = ErrorRateLimit(("e",), 0.25).judge(_run(results))
    assert (tolerant.status, tolerant.reasons) == (HELD, ())
    [strict] = ErrorRateLimit(("e",), 0.1).judge(_run(results))
    assert "at most 10.0% allowed" in strict.reasons[0]
    assert ErrorRateLimit(("e", "f"), 0.0).judge(_run(results, ("e", "f")))[1:] == []  # f had no rows: coverage's
    assert EngineCoverage("e", 0, 0).error_rate == 0.0


def test_an_engine_whose_every_row_is_an_error_measured_nothing_even_if_unavailable_is_allowed() -> None:
    failed = rows(engine="cloud", n=2, verdict="error")
    [entry] = Coverage(("cloud",), {"cloud": 2}, {"cloud": "no key"}, allow_unavailable=True).judge(_run(failed))
    assert (entry.status, entry.reasons) == (
        BREACHED,
        ("cloud: 0 of 2 selected target(s) produced a verdict (2 ended in error): the run measured nothing for it",),
    )
    [skipped] = Coverage(("cloud",), {"cloud": 2}, {"cloud": "no key"}, allow_unavailable=True).judge(_run([]))
    assert (skipped.status, skipped.reasons) == (NOT_SELECTED, ())
    [refused] = Coverage(("cloud",), {"cloud": 2}, {"cloud": "no key"}).judge(_run([]))
    assert refused.status == BREACHED and "no key (--tts-allow-unavailable skips" in refused.reasons[0]
    [short] = Coverage(("e",), {"e": 3}, {}).judge(_run(rows(n=2)))
    assert (short.status, short.reasons) == (
        BREACHED,
        ("e: 2 of 3 selected target(s) produced a verdict: the run is incomplete",),
    )
    [full] = Coverage(("e",), {"e": 3}, {}).judge(_run(rows(n=2) + rows(category="times", n=1, verdict="error")))
    assert full.status == HELD
    [empty] = Coverage(("e",), {"e": 0}, {}).judge(_run([]))
    assert empty.status == HELD
    [unknown] = Coverage(("e",), None, {}).judge(_run([]))  # no worker reported its selection: nothing ran
    assert unknown.status == BREACHED


def test_the_gate_files_verdict_is_the_exit_statuss() -> None:
    config = GateConfig(engines=("e",))
    outcome = evaluate_gate(rows(n=2), config, Collected(selected={"e": 2}))
    assert outcome.reasons == [] and outcome.passed and gate_document(outcome)["passed"] is True
    outcome.exitstatus = final_status(outcome, 1)  # an item test failed
    assert gate_document(outcome)["passed"] is False and gate_document(outcome)["gate_passed"] is True
    assert GateOutcome(items=[], judged=[fails("x")]).passed is False


def test_the_gate_lists_error_rate_latency_regression_and_shards_as_bounds() -> None:
    from pytest_ttsbench.gating.latency import LatencyBudget

    config = GateConfig(engines=("e",), latency_budgets=(LatencyBudget("e", "first_audio_p95", 0.3),))
    collected = Collected(selected={"e": 3}, missing_shards=["2/3"])
    outcome = evaluate_gate(rows(n=2) + rows(category="times", n=1, verdict="error"), config, collected)
    kinds = {(b.kind, b.status) for b in outcome.judged}
    assert ("error rate", BREACHED) in kinds and ("shard", NOT_MEASURED) in kinds
    assert ("latency budget", NOT_MEASURED) in kinds  # transcripts rows have no first-audio figure
    assert outcome.missing_shards == ["2/3"] and gate_document(outcome)["missing_shards"] == ["2/3"]
    assert any("2 bound(s) not measured" in reason for reason in outcome.reasons)
    partial = Collected(selected={"e": 2}, missing_shards=["2/3"])
    allowed = evaluate_gate(rows(n=2), GateConfig(engines=("e",), allow_unmeasured_bounds=True), partial)
    assert allowed.reasons == [] and any(b.kind == "shard" for b in allowed.judged)
    tolerant = evaluate_gate(
        rows(n=2) + rows(category="times", n=1, verdict="error"),
        GateConfig(engines=("e",), max_error_rate=0.5),
        Collected(selected={"e": 3}),
    )
    assert tolerant.reasons == []
    assert next(b for b in tolerant.judged if b.kind == "error rate").status == HELD
