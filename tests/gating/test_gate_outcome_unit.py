"""The gate outcome's own pieces as plain functions: what it writes, says and decides (mutation-tested)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.bounds import fails
from pytest_ttsbench.gating.coverage import EngineCoverage, unfinished_reason
from pytest_ttsbench.gating.gate import Collected, GateConfig, GateOutcome, evaluate_gate
from pytest_ttsbench.gating.snapshots import received_snapshots
from pytest_ttsbench.gating.thresholds import FloorSettings, ThresholdError, config_floors, parse_cli_thresholds
from pytest_ttsbench.reporting.gate_file import gate_document, write_gate
from pytest_ttsbench.reporting.terminal import nondeterminism_lines
from pytest_ttsbench.run_model.known_gaps import Gap, KnownGaps


def row(item: str, verdict: str = "correct", engine: str = "e", heard: str = "x", **fields):  # type: ignore[no-untyped-def]
    return make_result(
        engine=engine, id=f"s/{item}", category="years", verdict=verdict, transcripts={"r": heard}, **fields
    )


@pytest.mark.parametrize("status", [2, 3, 4])
def test_a_session_that_did_not_finish_never_passes(status: int) -> None:
    assert unfinished_reason(status, False) == (
        f"the session did not finish (pytest exit status {status}): an interrupted run never passes"
    )


def test_a_session_stopped_early_says_why() -> None:
    assert unfinished_reason(0, False) is None and unfinished_reason(1, "") is None
    assert unfinished_reason(1, "stopping after 1 failures") == (
        "the session stopped before running every selected target (stopping after 1 failures)"
    )
    assert unfinished_reason(1, True) == "the session stopped before running every selected target (stopped early)"


def test_coverage_of_an_unknown_selection_names_no_total() -> None:
    assert EngineCoverage("e", None, 2).describe() == "e: 2 selected target(s) produced a verdict"


def test_nondeterministic_engines_are_told_what_to_do() -> None:
    outcome = GateOutcome(items=[], nondeterministic={"b": (2, 3), "a": (1, 1)})
    assert nondeterminism_lines(outcome) == [
        "a is not deterministic: identical requests gave different audio (1 of 1 checked); set `repeats: 3` in "
        "its profile (or --tts-repeats 3) so verdicts are rates, not single draws",
        "b is not deterministic: identical requests gave different audio (2 of 3 checked); set `repeats: 3` in "
        "its profile (or --tts-repeats 3) so verdicts are rates, not single draws",
    ]
    outcome.repeats = 3
    assert nondeterminism_lines(outcome)[0].endswith(
        "(1 of 1 checked); each item's verdict is taken over 3 generations"
    )


def test_the_one_generation_probe_marks_an_engine_not_deterministic() -> None:
    outcome = evaluate_gate([row("a", audio_varies=True), row("b")], GateConfig(engines=("e",)), Collected())
    assert outcome.nondeterministic == {"e": (1, 1)}
    assert evaluate_gate([row("a")], GateConfig(engines=("e",)), Collected()).nondeterministic == {}


def test_the_gate_file_is_the_outcome_as_json_written_whole(tmp_path: Path) -> None:
    outcome = evaluate_gate([row("a", heard="ça")], GateConfig(engines=("e",)), Collected(selected={"e": 1}))
    outcome.exitstatus = 0
    outcome.judged.append(fails("é"))  # written as it is, not escaped
    assert outcome.reasons == ["é"] and gate_document(outcome)["bounds"][-1]["detail"] == "é"
    path = tmp_path / "deep" / "er" / "results.gate.json"
    write_gate(path, outcome)
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == gate_document(outcome) and text.endswith("}\n") and '"é"' in text
    assert text.startswith('{\n  "exitstatus": 0,')  # indented, in the outcome's order
    assert [p.name for p in path.parent.iterdir()] == ["results.gate.json"]  # no temporary file left


def test_the_baseline_comparison_is_recorded_and_only_fails_when_asked() -> None:
    baseline = (row("a"), row("b"), row("c", "wrong"))
    results = [row("a", "wrong"), row("b", "wrong"), row("c")]
    gaps = KnownGaps("e", Path("e.yaml"), [Gap("s/b")])
    config = GateConfig(engines=("e",), known_gaps={"e": gaps}, baseline=baseline, baseline_path=Path("/b/r.jsonl"))
    outcome = evaluate_gate(results, config, Collected())
    assert outcome.comparison is not None and outcome.reasons == []
    assert outcome.baseline_path == "/b/r.jsonl" and outcome.known_gap_ids == {"s/b"}
    assert outcome.blocking_regressions == ["s/a"] and outcome.regression_rule == config.regression_rule
    data = gate_document(outcome)["baseline"]
    assert data["path"] == "/b/r.jsonl" and data["blocking_regressions"] == ["s/a"]
    assert evaluate_gate(results, GateConfig(engines=("e",), baseline=baseline), Collected()).baseline_path is None
    failing = evaluate_gate(
        results, GateConfig(engines=("e",), baseline=baseline, fail_on_regression=True), Collected()
    )
    rule = next(b for b in failing.judged if b.kind == "regression rule")
    assert rule.status == "breached" and failing.reasons
    held = evaluate_gate(baseline, GateConfig(engines=("e",), baseline=baseline, fail_on_regression=True), Collected())
    assert next(b for b in held.judged if b.kind == "regression rule").status == "held" and held.reasons == []


def test_a_baseline_target_the_candidate_did_not_run_leaves_the_regression_rule_not_measured() -> None:
    from pytest_ttsbench.gating.baseline import RegressionRule, compare
    from pytest_ttsbench.gating.bounds import (
        ALLOW_UNMEASURED_OPTION,
        BREACHED,
        HELD,
        NOT_MEASURED,
        RunFacts,
        gate_reasons,
    )

    baseline = (row("a"), row("b"), row("c"))
    config = GateConfig(engines=("e",), baseline=baseline, fail_on_regression=True)
    narrowed = [row("a"), row("b")]  # -k left s/c out: whether it still works is not known
    outcome = evaluate_gate(narrowed, config, Collected(selected={"e": 2}))
    [rule] = [b for b in outcome.judged if b.kind == "regression rule"]
    assert (rule.status, rule.detail) == (NOT_MEASURED, "1 target(s) of the baseline not run: s/c")
    assert outcome.reasons == [
        f"1 bound(s) not measured ({ALLOW_UNMEASURED_OPTION} allows a partial run): regression rule against the "
        "baseline (--tts-fail-on-regression): 1 target(s) of the baseline not run: s/c"
    ]
    allowed = evaluate_gate(narrowed, replace(config, allow_unmeasured_bounds=True), Collected(selected={"e": 2}))
    assert allowed.reasons == [] and [b.status for b in allowed.judged if b.kind == "regression rule"] == [NOT_MEASURED]
    # A regression among the targets that ran is breached, whatever is missing, and not excused by the option.
    regressed = [row("a", "wrong"), row("b")]
    breached = evaluate_gate(regressed, replace(config, allow_unmeasured_bounds=True), Collected(selected={"e": 2}))
    assert [b.status for b in breached.judged if b.kind == "regression rule"] == [BREACHED]
    assert breached.reasons and breached.reasons[0].startswith("1 regression(s) against the baseline")
    # Without --tts-fail-on-regression the rule is not a bound of the run.
    report = evaluate_gate(narrowed, replace(config, fail_on_regression=False), Collected(selected={"e": 2}))
    assert not [b for b in report.judged if b.kind == "regression rule"] and report.reasons == []
    # ttsbench compare judges the same rule the same way (cli/compare.py): six targets, none missing, held.
    many = tuple(row(f"i{i}") for i in range(6))
    comparison = compare(many, many[:5])
    facts = RunFacts((), (), (), comparison=comparison)
    [judged] = RegressionRule().judge(facts)
    assert judged.status == NOT_MEASURED and judged.detail == "1 target(s) of the baseline not run: s/i5"
    assert gate_reasons([judged], allow_unmeasured=False) and not gate_reasons([judged], allow_unmeasured=True)
    full = RunFacts((), (), (), comparison=compare(many, many))
    assert [j.status for j in RegressionRule().judge(full)] == [HELD]
    seven = tuple(row(f"j{i}") for i in range(7))
    cut = compare(seven, seven[:1])
    [shown] = RegressionRule().judge(RunFacts((), (), (), comparison=cut))
    assert shown.detail == "6 target(s) of the baseline not run: s/j1, s/j2, s/j3, s/j4, s/j5 and 1 more"


def test_strict_snapshots_fail_with_the_counts_and_the_file(tmp_path: Path) -> None:
    path = tmp_path / "e.ambr"
    stored = {name: r.data for name, r in received_snapshots([row("a", heard="one")], "e").items()}
    results = [row("a", heard="two"), row("b", heard="new")]
    config = GateConfig(engines=("e", "f"), snapshot_mode="strict", snapshots={"e": (path, stored)})
    outcome = evaluate_gate(results, config, Collected(selected={"e": 2, "f": 0}))
    assert outcome.reasons == [
        f"e: 1 transcript(s) differ from their snapshot and 1 have none in {path} (--snapshot-update records them)"
    ]
    assert [check.engine for check in outcome.snapshots] == ["e"]  # f has neither rows nor a file
    assert outcome.snapshot_mode == "strict" and gate_document(outcome)["snapshots"]["mode"] == "strict"
    matched = evaluate_gate([row("a", heard="one")], config, Collected(selected={"e": 1, "f": 0}))
    assert matched.reasons == [] and matched.snapshots[0].matched == ["s/a"]
    off = evaluate_gate(results, GateConfig(engines=("e",), snapshot_mode="off"), Collected())
    assert off.snapshots == [] and "snapshots" not in gate_document(off)


def test_floor_settings_name_their_source() -> None:
    with pytest.raises(
        ThresholdError,
        match=r"^cfg: field thresholds.floor_on: floor_on must be one of point, lower, "
        r"got 'upper'$",
    ):
        config_floors({"floor_on": "upper"}, "cfg")
    with pytest.raises(ThresholdError, match=r"^--tts-floor-on: floor_on must be one of point, lower, got 'x'$"):
        FloorSettings.checked(None, "x", ("--tts-min-n", "--tts-floor-on"))
    assert config_floors({"floor_on": "lower", "min_n": 2}, "cfg") == ([], FloorSettings(2, "lower"))
    assert FloorSettings.checked(None, None, ("a", "b")) == FloorSettings()


def test_floor_values_and_slice_keys_are_checked_where_they_are_written() -> None:
    with pytest.raises(
        ThresholdError, match=r"^cfg: field thresholds.years: a floor must be a number in \[0, 1\], got True$"
    ):
        config_floors({"years": True}, "cfg")
    with pytest.raises(ThresholdError, match=r"^cfg: field thresholds.form=: a slice is FIELD=VALUE"):
        config_floors({"form=": 0.5}, "cfg")
    with pytest.raises(ThresholdError, match=r"^cfg: field thresholds.s.years: a floor must be a number"):
        config_floors({"s": {"years": float("nan")}}, "cfg")
    # the field is what comes before the first "=", each side stripped
    assert [floor.key for floor in config_floors({" form = a=b": 0.5}, "cfg")[0]] == ["form=a=b"]
    assert [(f.suite, f.key, f.floor) for f in config_floors({"s": {"years": 0.5}, "x": 1}, "cfg")[0]] == [
        ("s", "years", 0.5),
        (None, "x", 1.0),
    ]


def test_a_breach_names_the_figure_compared() -> None:
    def gate(thresholds: dict) -> GateOutcome:
        floors, settings = config_floors(thresholds)
        config = GateConfig(engines=("e",), floors=tuple(floors), floor_settings=(settings,))
        return evaluate_gate(rows, config, Collected(selected={"e": 10}))

    rows = [row(f"i{i}", "correct" if i < 9 else "wrong") for i in range(10)]
    point = gate({"years": 0.95, "min_n": 1})
    assert point.reasons == ["e s/years: strict accuracy 90.0% (9/10) below floor 95.0%"]
    outcome = gate({"years": 0.8, "min_n": 1, "floor_on": "lower"})
    assert outcome.reasons == ["e s/years: Wilson 95% lower bound 59.6% (9/10) below floor 80.0%"]
    (lower,) = outcome.checks
    assert lower == {
        "engine": "e",
        "suite": "s",
        "category": "years",
        "n": 10,
        "correct": 9,
        "strict_accuracy": 0.9,
        "floor": 0.8,
        "floor_on": "lower",
        "measured": lower["ci95"][0],
        "min_n": 1,
        "ci95": lower["ci95"],
        "status": "breached",
        "breached": True,
    }


def test_the_closest_names_are_three_at_most_and_the_known_ones_twelve() -> None:
    from pytest_ttsbench.gating.bounds import SuiteScope
    from pytest_ttsbench.gating.quality import QualityLimit
    from pytest_ttsbench.quality.bounds import QualityBound

    def quality_scope_problem(scope: tuple[str, ...], scopes: dict[str, SuiteScope]) -> str | None:
        return QualityLimit(QualityBound("floor", "dnsmos_ovrl", 3.0, scope)).scope_problem(scopes, [])

    close = {"s": SuiteScope.of([(f"years{i}", "en", {}) for i in range(5)])}
    assert quality_scope_problem(("years",), close) == (
        "no engine, suite or category 'years' (closest: years4, years3, years2)"
    )
    far = {"s": SuiteScope.of([(f"{chr(97 + i)}{chr(97 + i)}{chr(97 + i)}", "en", {}) for i in range(14)])}
    problem = quality_scope_problem(("zzzzzz", "qqqqqq"), far)
    assert problem is not None and problem.count(";") == 1
    first = problem.split("; ")[0]
    assert (
        first
        == "no engine, suite or category 'zzzzzz' (known: " + ", ".join(sorted(far["s"].categories | {"s"})[:12]) + ")"
    )


def test_nondeterminism_advice_changes_at_two_generations() -> None:
    outcome = GateOutcome(items=[], nondeterministic={"a": (1, 2)}, repeats=2)
    assert nondeterminism_lines(outcome)[0].endswith("each item's verdict is taken over 2 generations")


def test_a_recognizer_change_keeps_regressions_off_the_voice_unless_asked() -> None:
    from pytest_ttsbench.run_model.provenance import RunHeader

    def header(model: str) -> RunHeader:
        return RunHeader(engines={"e": {}}, asr={"e": [{"name": "whisper", "type": "whisper", "model": model}]})

    baseline, results = (row("a"),), [row("a", "wrong")]
    config = GateConfig(
        engines=("e",),
        baseline=baseline,
        fail_on_regression=True,
        baseline_header=header("base"),
        regression_rule=GateConfig().regression_rule,
    )
    changed = evaluate_gate(results, config, Collected(header=header("small")))
    assert changed.comparison is not None and changed.comparison.recognizer_changes
    assert changed.unattributed_regressions == ["s/a"] and changed.blocking_regressions == [] and not changed.reasons
    counted = evaluate_gate(results, replace(config, allow_asr_change=True), Collected(header=header("small")))
    assert counted.unattributed_regressions == [] and counted.blocking_regressions == ["s/a"] and counted.reasons
    same = evaluate_gate(results, config, Collected(header=header("base")))
    assert same.comparison is not None and same.comparison.recognizer_changes == []
    assert same.blocking_regressions == ["s/a"]
    unknown = evaluate_gate(results, replace(config, baseline_header=None), Collected(header=header("small")))
    assert unknown.comparison is not None and "baseline has no run header" in str(unknown.comparison.provenance_note)
    candidate = evaluate_gate(results, config, Collected())
    assert candidate.comparison is not None
    assert "candidate has no run header" in str(candidate.comparison.provenance_note)


def test_regression_reasons_add_to_the_others() -> None:
    baseline, results = (row("a"),), [row("a", "wrong")]
    config = GateConfig(
        engines=("e",),
        baseline=baseline,
        fail_on_regression=True,
        floors=tuple(config_floors({"years": 0.5})[0]),
        floor_settings=(config_floors({"min_n": 1})[1],),
    )
    outcome = evaluate_gate(results, config, Collected())
    assert outcome.reasons[0].startswith("e s/years: strict accuracy 0.0%") and len(outcome.reasons) == 2


def test_strict_snapshots_fail_on_a_change_alone_and_skip_engines_without_rows(tmp_path: Path) -> None:
    path = tmp_path / "e.ambr"
    stored = {name: r.data for name, r in received_snapshots([row("a", heard="one")], "e").items()}
    config = GateConfig(
        engines=("e", "f"), snapshot_mode="strict", snapshots={"e": (path, stored), "f": (tmp_path / "f.ambr", {})}
    )
    outcome = evaluate_gate([row("a", heard="two")], config, Collected(selected={"e": 1, "f": 0}))
    assert [check.engine for check in outcome.snapshots] == ["e"] and outcome.snapshots[0].path == path
    assert outcome.reasons == [
        f"e: 1 transcript(s) differ from their snapshot and 0 have none in {path} (--snapshot-update records them)"
    ]


def test_the_gate_file_creates_its_folders(tmp_path: Path) -> None:
    outcome = GateOutcome(items=[])
    write_gate(tmp_path / "a" / "b" / "g.json", outcome)
    assert json.loads((tmp_path / "a" / "b" / "g.json").read_text(encoding="utf-8"))["passed"] is True


def test_the_gate_file_holds_every_section() -> None:
    from pytest_ttsbench.gating.latency import LatencyBudget, SlowdownRule

    baseline = (row("a"), row("b"))
    results = [row("a", repeat=0), row("a", "wrong", repeat=1), row("b", repeat=0), row("b", repeat=1)]
    gaps = KnownGaps("e", Path("e.yaml"), [Gap("s/b"), Gap("s/zz")])
    config = GateConfig(
        engines=("e",),
        repeats=2,
        repeat_policy="majority",
        known_gaps={"e": gaps},
        update_known_gaps=True,
        baseline=baseline,
        latency_budgets=(LatencyBudget("e", "p95", 1.0),),
        latency_compare_fail=(SlowdownRule("p95", 0.2),),
        snapshot_mode="report",
    )
    outcome = evaluate_gate(results, config, Collected(selected={"e": 4}))
    outcome.exitstatus = 1
    data = gate_document(outcome)
    assert list(data) == [
        "exitstatus",
        "passed",
        "gate_passed",
        "reasons",
        "gate_decides_exit",
        "failed_items",
        "exit_reasons",
        "coverage",
        "missing_shards",
        "unverified",
        "bounds",
        "thresholds",
        "known_gaps",
        "repeats",
        "nondeterministic",
        "cache",
        "latency",
        "snapshots",
        "baseline",
    ]
    assert data["exitstatus"] == 1 and data["passed"] is False and data["reasons"] == outcome.reasons
    assert data["known_gaps"] == {
        "xfailed": [],
        "fixed": ["s/b [e]"],
        "unmatched": {"e": ["s/zz"]},
        "updated_files": ["e.yaml"],
    }
    repeats = data["repeats"]
    assert repeats["n"] == 2 and repeats["policy"] == "majority"
    assert [item["key"] for item in repeats["items"]] == ["s/a", "s/b"]
    assert repeats["inconsistent"] == ["s/a [e]"] and repeats["flaky"] == ["s/a [e]"]
    assert repeats["excused_failures"] == []
    assert data["latency"]["budgets"] == [check.to_dict() for check in outcome.latency]
    assert data["latency"]["baseline"] == [change.to_dict() for change in outcome.latency_changes]
    assert data["snapshots"] == {"mode": "report", "engines": []}
    assert data["baseline"]["rule"] == config.regression_rule.to_dict()
    assert data["baseline"]["unattributed_regressions"] == [] and data["baseline"]["path"] is None
    assert data["coverage"] == [c.to_dict() for c in outcome.coverage]
    assert data["bounds"] == [b.to_dict() for b in outcome.judged]
    assert data["thresholds"] == outcome.checks
    single = gate_document(GateOutcome(items=[], nondeterministic={"e": (1, 2)}))
    assert single["repeats"] == {
        "n": 1,
        "policy": "all",
        "items": [],
        "inconsistent": [],
        "flaky": [],
        "excused_failures": [],
    }
    assert single["nondeterministic"] == {"e": {"varied": 1, "checked": 2}}
    assert "latency" not in single and "baseline" not in single and "quality" not in single


def test_the_repeat_policy_fails_items_it_judges_not_correct_and_excuses_the_others() -> None:
    results = [row("a", repeat=0), row("a", "wrong", repeat=1), row("a", repeat=2)]
    results += [row("b", "wrong", repeat=r) for r in range(3)] + [row("c", "wrong", repeat=r) for r in range(3)]
    gaps = KnownGaps("e", Path("e.yaml"), [Gap("s/c")])
    config = GateConfig(engines=("e",), repeats=3, repeat_policy="majority", known_gaps={"e": gaps})
    collected = Collected(selected={"e": 9}, verdict_failures={("e", "s/a")})
    outcome = evaluate_gate(results, config, collected)
    assert outcome.repeats == 3
    assert outcome.reasons == ["1 item(s) not correct under the 'majority' repeat policy: s/b [e]"]
    assert outcome.excused == ["s/a [e]"]  # a failed generation of an item the policy judges correct
    only_a = Collected(selected={"e": 9}, verdict_failures={("e", "s/a")})
    passing = [row("a", repeat=0), row("a", "wrong", repeat=1), row("a", repeat=2)]
    excused = evaluate_gate(passing, replace(config, known_gaps={}), only_a)
    assert excused.excused == ["s/a [e]"] and not [r for r in excused.reasons if "policy" in r]
    other = Collected(selected={"e": 3}, verdict_failures={("e", "s/a")}, other_failures=1)
    assert evaluate_gate(passing, replace(config, known_gaps={}), other).excused == []
    everything = evaluate_gate(passing, replace(config, known_gaps={}, repeat_policy="all"), only_a)
    assert everything.excused == [] and not [r for r in everything.reasons if "policy" in r]
    one = evaluate_gate([row("a", "wrong")], replace(config, repeats=1), Collected(selected={"e": 1}))
    assert one.repeats == 1 and not [r for r in one.reasons if "policy" in r]
    assert evaluate_gate([], GateConfig(), Collected()).repeats == 1


def test_the_gate_file_holds_the_quality_section_whenever_models_measured() -> None:
    outcome = GateOutcome(items=[], quality_models={"signal": "v1"})
    assert gate_document(outcome)["quality"] == {"models": {"signal": "v1"}, "summary": [], "gates": [], "repeats": []}
    repeated = GateOutcome(items=[], repeats=1, repeated=[])
    assert gate_document(repeated)["repeats"]["items"] == []


def test_latency_is_compared_only_with_a_baseline_and_snapshots_only_when_on(tmp_path: Path) -> None:
    from pytest_ttsbench.gating.latency import SlowdownRule

    config = GateConfig(
        engines=("e",),
        latency_compare_fail=(SlowdownRule("p95", 0.2),),
        snapshot_mode="off",
        snapshots={"e": (tmp_path / "e.ambr", {"s/a": "old"})},
    )
    outcome = evaluate_gate([row("a")], config, Collected(selected={"e": 1}))
    assert outcome.latency_changes == [] and outcome.snapshots == [] and outcome.snapshot_mode == "off"


def test_an_allowed_unavailable_engine_does_not_fail_the_gate() -> None:
    config = GateConfig(engines=("e", "cloud"), allow_unavailable=True)
    collected = Collected(selected={"e": 1, "cloud": 1}, unavailable={"cloud": "no key"})
    assert evaluate_gate([row("a")], config, collected).reasons == []
    assert evaluate_gate([row("a")], replace(config, allow_unavailable=False), collected).reasons


def test_a_run_recorded_without_scopes_is_judged_on_its_rows_and_its_suites() -> None:
    from pytest_ttsbench.gating.bounds import SuiteScope
    from pytest_ttsbench.gating.gate import scopes_of

    assert scopes_of([row("a")], Collected(suite_thresholds={"other": {}})) == {
        "s": SuiteScope.of([("years", "en", {})]),
        "other": SuiteScope(),
    }
    kept = {"x": SuiteScope.of([("c", "en", {})])}
    assert scopes_of([row("a")], Collected(suite_scopes=kept)) == kept


def _quality_run() -> tuple[list[Any], GateConfig, tuple[Any, ...]]:
    from quality_rows import rows as quality_rows

    from pytest_ttsbench.quality.bounds import QualityBound

    results = quality_rows("e", "years", {"dnsmos_ovrl": [3.5, 3.7]}) + quality_rows("e", "dates", {"snr_db": [1.0]})
    layer = (
        QualityBound("floor", "dnsmos_ovrl", 3.0, (), "--tts-quality-floor"),
        QualityBound("ceiling", "dnsmos_ovrl", 3.1, ("years",), "--tts-quality-ceiling"),
        QualityBound("floor", "dnsmos_ovrl", 1.0, ("yeras",), "--tts-quality-floor"),
    )
    return results, GateConfig(engines=("e",), engine_profiles=("e", "other"), quality_layers=(layer,)), layer


def test_quality_bounds_are_listed_with_the_gates_statuses_and_typos_are_refused() -> None:
    from pytest_ttsbench.gating.bounds import BREACHED, HELD, MATCHES_NOTHING, NOT_JUDGED, NOT_MEASURED, scope_errors
    from pytest_ttsbench.gating.gate import scoped_bounds, scopes_of
    from pytest_ttsbench.quality.bounds import QualityBound

    results, config, layer = _quality_run()
    outcome = evaluate_gate(results, config, Collected(selected={"e": 3}))
    quality = [
        (b.kind, b.name, b.engine, b.status, b.detail, b.source)
        for b in outcome.judged
        if "quality" in b.kind and b.status != MATCHES_NOTHING  # the typo: see the test below
    ]
    assert quality == [
        # a bucket without figures for a bound that judged elsewhere is shown, and neither passes nor fails
        ("quality floor", "s/dates/dnsmos_ovrl=3", "e", NOT_JUDGED, "no figures", "--tts-quality-floor"),
        ("quality floor", "s/years/dnsmos_ovrl=3", "e", HELD, "", "--tts-quality-floor"),
        ("quality ceiling", "s/years/dnsmos_ovrl=3.1", "e", BREACHED, "", "--tts-quality-ceiling"),
    ]
    assert [check.status for check in outcome.quality_checks] == ["no figures", "ok", "breached"]
    assert [r for r in outcome.reasons if r.startswith("quality:")] == [
        f"quality: {outcome.quality_checks[2].describe()}"
    ]
    # The typo is refused before anything runs, by the very bounds the gate judges, with the closest name.
    collected = Collected(selected={"e": 3})
    engines = list(config.engine_profiles)
    assert scope_errors(scoped_bounds(config, collected), engines, scopes_of(results, collected)) == [
        "quality floor yeras/dnsmos_ovrl=1 (--tts-quality-floor) matches nothing: no engine, suite or category "
        "'yeras' (closest: years)"
    ]
    held = evaluate_gate(results[:2], replace(config, quality_layers=(layer[:1],)), Collected(selected={"e": 2}))
    assert [(b.status, b.detail) for b in held.judged if "quality" in b.kind] == [(HELD, "")]
    # A bound that applies to the run's buckets and judges none of them is not measured, and says why.
    none = evaluate_gate(results[2:], replace(config, quality_layers=(layer[:1],)), Collected(selected={"e": 1}))
    [unmeasured] = [b for b in none.judged if "quality" in b.kind and b.engine is None]
    assert unmeasured.status == NOT_MEASURED and unmeasured.reasons and unmeasured.reasons[0] in none.reasons
    # The bounds of the case files' own quality sections are checked as well.
    case = evaluate_gate(
        results[:2],
        GateConfig(engines=("e",)),
        Collected(selected={"e": 2}, suite_quality={"s": {"floors": {"dnsmos_ovrl": 3.0}}}),
    )
    assert [b.status for b in case.judged if "quality" in b.kind] == [HELD]
    # A quality bound naming a configured engine that did not run is not a typo.
    other = replace(config, quality_layers=((QualityBound("floor", "dnsmos_ovrl", 3.0, ("other",), "cli"),),))
    assert scope_errors(scoped_bounds(other, collected), engines, scopes_of(results, collected)) == []
    assert not [b for b in evaluate_gate(results, other, collected).judged if b.status == MATCHES_NOTHING]


def test_a_quality_bound_whose_scope_matches_nothing_is_listed_and_fails_the_gate() -> None:
    from pytest_ttsbench.gating.bounds import MATCHES_NOTHING

    results, config, _ = _quality_run()
    outcome = evaluate_gate(results, config, Collected(selected={"e": 3}))
    [typo] = [b for b in outcome.judged if b.status == MATCHES_NOTHING]
    assert (typo.kind, typo.engine, typo.detail) == (
        "quality floor",
        None,
        "no engine, suite or category 'yeras' (closest: years)",
    )
    assert "yeras" in typo.name and typo.failing
    assert any("yeras" in reason for reason in outcome.reasons)


def test_case_file_floors_through_the_gate_name_their_file_and_are_asked_where_the_engine_ran() -> None:
    from pytest_ttsbench.gating.bounds import NOT_MEASURED, NOT_SELECTED, SuiteScope

    scopes = {
        "s": SuiteScope.of([("years", "en", {}), ("times", "en", {})]),
        "t": SuiteScope.of([("x", "en", {}), ("y", "en", {})]),
    }
    collected = Collected(
        selected={"e": 1, "f": 0},
        suite_thresholds={"s": {"times": 0.9}, "t": {"x": 0.9, "y": 0.9}},
        suite_scopes=scopes,
        suite_sources={"s": "cases/s.yaml", "t": "cases/t.yaml"},
        unavailable={"f": "no key"},
    )
    config = GateConfig(engines=("e", "f"), allow_unavailable=True, floors=tuple(parse_cli_thresholds(["t/x=0.5"])))
    outcome = evaluate_gate([row("a")], config, collected)
    floors = [(b.name, b.engine, b.status, b.source) for b in outcome.judged if b.kind == "floor"]
    assert floors == [
        ("t/x=0.5", "e", NOT_MEASURED, "--tts-threshold"),
        ("s/times=0.9", "e", NOT_SELECTED, "cases/s.yaml"),
    ]  # f is allowed to be unavailable: not asked; t's own floor is not asked of e, which ran nothing of t;
    # s's own floor on times, which the run did not select, is not selected (and does not fail)
    assert not any("s/times" in reason for reason in outcome.reasons)
    strict = evaluate_gate([row("a")], replace(config, allow_unavailable=False), collected)
    assert ("t/x=0.5", "f") in {(b.name, b.engine) for b in strict.judged if b.kind == "floor"}


def test_latency_budgets_and_slowdowns_are_bounds_with_their_figures() -> None:
    from pytest_ttsbench.gating.bounds import BREACHED, HELD, NOT_MEASURED
    from pytest_ttsbench.gating.latency import LatencyBudget, SlowdownRule

    def timed(item: str, seconds: float):  # type: ignore[no-untyped-def]
        return row(item, synth_seconds=seconds, audio_sha256="ab", audio_path="a.wav")

    results = [timed("a", 0.5), timed("b", 0.5)]
    baseline = (timed("a", 0.2), timed("b", 0.2))
    budgets = (LatencyBudget("e", "p95", 0.6), LatencyBudget("e", "p50", 0.4), LatencyBudget("e", "first_audio_p95", 1))
    config = GateConfig(
        engines=("e",), latency_budgets=budgets, baseline=baseline, latency_compare_fail=(SlowdownRule("p95", 0.2),)
    )
    outcome = evaluate_gate(results, config, Collected(selected={"e": 2}))
    latency = [(b.kind, b.name, b.source, b.status, b.engine) for b in outcome.judged if "latency" in b.kind]
    assert latency == [
        ("latency budget", "p95<=600ms", "--tts-latency-budget / latency_budgets", HELD, "e"),
        ("latency budget", "p50<=400ms", "--tts-latency-budget / latency_budgets", BREACHED, "e"),
        ("latency budget", "first_audio_p95<=1000ms", "--tts-latency-budget / latency_budgets", NOT_MEASURED, "e"),
        ("latency slowdown", "p95<=+20%", "--tts-latency-compare-fail", BREACHED, "e"),
    ]
    steady = evaluate_gate(baseline, config, Collected(selected={"e": 2}))
    assert [b.status for b in steady.judged if b.kind == "latency slowdown"] == [HELD]
