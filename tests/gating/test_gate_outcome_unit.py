"""The gate outcome's own pieces as plain functions: what it writes, says and decides (mutation-tested)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.coverage import EngineCoverage, unfinished_reason
from pytest_ttsbench.gating.gate import Collected, GateConfig, GateOutcome, evaluate_gate, write_gate
from pytest_ttsbench.gating.known_gaps import Gap, KnownGaps
from pytest_ttsbench.gating.snapshots import received_snapshots
from pytest_ttsbench.gating.thresholds import ThresholdError, config_layer, parse_cli_thresholds


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
    assert outcome.nondeterminism_lines() == [
        "a is not deterministic: identical requests gave different audio (1 of 1 checked); set `repeats: 3` in "
        "its profile (or --tts-repeats 3) so verdicts are rates, not single draws",
        "b is not deterministic: identical requests gave different audio (2 of 3 checked); set `repeats: 3` in "
        "its profile (or --tts-repeats 3) so verdicts are rates, not single draws",
    ]
    outcome.repeats = 3
    assert outcome.nondeterminism_lines()[0].endswith(
        "(1 of 1 checked); each item's verdict is taken over 3 generations"
    )


def test_the_one_generation_probe_marks_an_engine_not_deterministic() -> None:
    outcome = evaluate_gate([row("a", audio_varies=True), row("b")], GateConfig(engines=("e",)), Collected())
    assert outcome.nondeterministic == {"e": (1, 1)}
    assert evaluate_gate([row("a")], GateConfig(engines=("e",)), Collected()).nondeterministic == {}


def test_the_gate_file_is_the_outcome_as_json_written_whole(tmp_path: Path) -> None:
    outcome = evaluate_gate([row("a", heard="ça")], GateConfig(engines=("e",)), Collected(selected={"e": 1}))
    outcome.exitstatus = 0
    outcome.reasons = ["é"]  # written as it is, not escaped
    path = tmp_path / "deep" / "results.gate.json"
    write_gate(path, outcome)
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == outcome.to_dict() and text.endswith("}\n") and '"é"' in text
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
    data = outcome.to_dict()["baseline"]
    assert data["path"] == "/b/r.jsonl" and data["blocking_regressions"] == ["s/a"]
    assert evaluate_gate(results, GateConfig(engines=("e",), baseline=baseline), Collected()).baseline_path is None
    failing = evaluate_gate(
        results, GateConfig(engines=("e",), baseline=baseline, fail_on_regression=True), Collected()
    )
    rule = next(b for b in failing.bounds if b.kind == "regression rule")
    assert rule.status == "breached" and failing.reasons
    held = evaluate_gate(baseline, GateConfig(engines=("e",), baseline=baseline, fail_on_regression=True), Collected())
    assert next(b for b in held.bounds if b.kind == "regression rule").status == "held" and held.reasons == []


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
    assert outcome.snapshot_mode == "strict" and outcome.to_dict()["snapshots"]["mode"] == "strict"
    matched = evaluate_gate([row("a", heard="one")], config, Collected(selected={"e": 1, "f": 0}))
    assert matched.reasons == [] and matched.snapshots[0].matched == ["s/a"]
    off = evaluate_gate(results, GateConfig(engines=("e",), snapshot_mode="off"), Collected())
    assert off.snapshots == [] and "snapshots" not in off.to_dict()


def test_floor_settings_name_their_source() -> None:
    with pytest.raises(
        ThresholdError,
        match=r"^cfg: field thresholds.floor_on: floor_on must be one of point, lower, "
        r"got 'upper'$",
    ):
        config_layer({"floor_on": "upper"}, "cfg")
    with pytest.raises(ThresholdError, match=r"^--tts-floor-on: floor_on must be one of point, lower, got 'x'$"):
        parse_cli_thresholds([], floor_on="x")
    assert config_layer({"floor_on": "lower", "min_n": 2}, "cfg").floor_on == "lower"


def test_floor_values_and_slice_keys_are_checked_where_they_are_written() -> None:
    with pytest.raises(
        ThresholdError, match=r"^cfg: field thresholds.years: a floor must be a number between 0 and 1, got True$"
    ):
        config_layer({"years": True}, "cfg")
    with pytest.raises(ThresholdError, match=r"^cfg: field thresholds.form=: a slice is FIELD=VALUE"):
        config_layer({"form=": 0.5}, "cfg")
    # the field is what comes before the first "=", each side stripped
    assert set(config_layer({" form = a=b": 0.5}, "cfg").general) == {"form=a=b"}


def test_a_breach_names_the_figure_compared() -> None:
    from pytest_ttsbench.gating.thresholds import breach_reason, evaluate

    rows = [row(f"i{i}", "correct" if i < 9 else "wrong") for i in range(10)]
    (point,) = evaluate(rows, {}, [config_layer({"years": 0.95, "min_n": 1})])
    assert breach_reason(point) == "e s/years: strict accuracy 90.0% (9/10) below floor 95.0%"
    (lower,) = evaluate(rows, {}, [config_layer({"years": 0.8, "min_n": 1, "floor_on": "lower"})])
    assert breach_reason(lower) == "e s/years: Wilson 95% lower bound 59.6% (9/10) below floor 80.0%"
    assert lower.to_dict() == {
        "engine": "e",
        "suite": "s",
        "category": "years",
        "n": 10,
        "correct": 9,
        "strict_accuracy": 0.9,
        "floor": 0.8,
        "floor_on": "lower",
        "measured": lower.ci95[0],
        "min_n": 1,
        "ci95": list(lower.ci95),
        "status": "breached",
        "breached": True,
    }


def test_the_closest_names_are_three_at_most_and_the_known_ones_twelve() -> None:
    from pytest_ttsbench.gating.bounds import SuiteScope, quality_scope_problem

    close = {"s": SuiteScope.of([(f"years{i}", "en", {}) for i in range(5)])}
    assert quality_scope_problem(("years",), [], close) == (
        "no engine, suite or category 'years' (closest: years4, years3, years2)"
    )
    far = {"s": SuiteScope.of([(f"{chr(97 + i)}{chr(97 + i)}{chr(97 + i)}", "en", {}) for i in range(14)])}
    problem = quality_scope_problem(("zzzzzz", "qqqqqq"), [], far)
    assert problem is not None and problem.count(";") == 1
    first = problem.split("; ")[0]
    assert (
        first
        == "no engine, suite or category 'zzzzzz' (known: " + ", ".join(sorted(far["s"].categories | {"s"})[:12]) + ")"
    )
