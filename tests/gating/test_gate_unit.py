"""The gate as a pure function: results, a frozen configuration and what was collected in, an outcome out.

No pytest run: each test builds rows and a :class:`GateConfig` and checks the outcome, and that
nothing is written until :func:`write_gate_updates` is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from result_rows import make_result

from pytest_ttsbench.gating.gate import Collected, GateConfig, evaluate_gate, final_status, write_gate_updates
from pytest_ttsbench.gating.snapshots import received_snapshots
from pytest_ttsbench.gating.thresholds import config_floors
from pytest_ttsbench.run_model.known_gaps import Gap, KnownGaps, load_known_gaps
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.run_model.snapshot_files import read_snapshots


def row(item: str, verdict: str, repeat: int = 0, engine: str = "e", heard: str = "x") -> ItemResult:
    return make_result(
        engine=engine, id=f"s/{item}", category="years", verdict=verdict, repeat=repeat, transcripts={"r": heard}
    )


def floors(**by_category: float) -> dict[str, Any]:
    """A :class:`GateConfig`'s floors and settings as the configuration's ``thresholds`` give them."""
    # These buckets hold a few rows: gate them all (the default min_n of 5 would call them too few).
    found, settings = config_floors({**by_category, "min_n": 1})
    return {"floors": tuple(found), "floor_settings": (settings,)}


def test_a_category_below_its_floor_fails_with_the_figures() -> None:
    results = [row("a", "correct"), row("b", "wrong"), row("c", "wrong")]
    outcome = evaluate_gate(results, GateConfig(engines=("e",), **floors(years=0.5)), Collected())
    (check,) = outcome.checks
    assert (check["n"], check["correct"], check["breached"], check["min_n"]) == (3, 1, True, 1)
    assert outcome.reasons == ["e s/years: strict accuracy 33.3% (1/3) below floor 50.0%"]
    (floor,) = [entry for entry in outcome.judged if entry.kind == "floor"]
    assert (floor.name, floor.status, floor.source, floor.measured) == (
        "s/years=0.5",
        "breached",
        "configuration",
        check,
    )
    assert final_status(outcome, 0) == 1


def test_a_suite_floor_collected_from_its_case_file_applies() -> None:
    collected = Collected(suite_thresholds={"s": {"years": 0.2}})
    outcome = evaluate_gate([row("a", "correct"), row("b", "wrong")], GateConfig(engines=("e",)), collected)
    # two targets: too few to gate under the default min_n of 5, and said so (never a pass)
    assert [(c["floor"], c["breached"], c["status"]) for c in outcome.checks] == [(0.2, False, "too few to gate")]
    assert [(b.status, b.source) for b in outcome.judged if b.kind == "floor"] == [
        ("too few", "the case file of suite s")
    ]
    assert outcome.reasons == [] and final_status(outcome, 0) == 0
    # the case file's own min_n lets it gate: held at 0.2, breached at 0.6
    gated = Collected(suite_thresholds={"s": {"years": 0.2, "min_n": 1}})
    held = evaluate_gate([row("a", "correct"), row("b", "wrong")], GateConfig(engines=("e",)), gated)
    assert [(c["status"], c["min_n"]) for c in held.checks] == [("passed", 1)] and held.reasons == []
    gated = Collected(suite_thresholds={"s": {"years": 0.6, "min_n": 1}})
    breached = evaluate_gate([row("a", "correct"), row("b", "wrong")], GateConfig(engines=("e",)), gated)
    assert breached.reasons == ["e s/years: strict accuracy 50.0% (1/2) below floor 60.0%"]
    assert final_status(breached, 0) == 1


def test_repeats_count_once_and_a_policy_excuses_failed_generations() -> None:
    results = [row("a", "correct", 0), row("a", "wrong", 1), row("a", "correct", 2)]
    config = GateConfig(engines=("e",), repeats=3, repeat_policy="majority", **floors(years=1.0))
    collected = Collected(verdict_failures={("e", "s/a")})
    outcome = evaluate_gate(results, config, collected)
    assert [(r.key, r.verdict) for r in outcome.items] == [("s/a", "correct")]
    assert outcome.excused == ["s/a [e]"] and outcome.reasons == []
    assert [(c["n"], c["correct"], c["status"]) for c in outcome.checks] == [(1, 1, "passed")]  # one item, once
    assert final_status(outcome, 1) == 0
    strict = evaluate_gate(results, GateConfig(engines=("e",), repeats=3, repeat_policy="all"), collected)
    assert strict.excused == [] and final_status(strict, 1) == 1
    other = evaluate_gate(results, config, Collected(verdict_failures={("e", "s/a")}, other_failures=1))
    assert other.excused == []  # any other failure is never excused


def test_known_gaps_are_sorted_and_rewritten_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "known_gaps" / "e.yaml"
    gaps = KnownGaps("e", path, [Gap("s/a", "reads years as digits"), Gap("s/fixed", "was wrong"), Gap("s/typo")])
    results = [row("a", "wrong"), row("fixed", "correct"), row("new", "wrong")]
    config = GateConfig(engines=("e",), known_gaps={"e": gaps}, update_known_gaps=True)
    outcome = evaluate_gate(results, config, Collected(ids={("e", "s/a"), ("e", "s/fixed"), ("e", "s/new")}))
    assert (outcome.xfailed, outcome.fixed_gaps) == (["s/a [e]"], ["s/fixed [e]"])
    assert outcome.unmatched_gaps == {"e": ["s/typo"]}
    assert not path.exists()  # the gate decides; writing is apart
    write_gate_updates(outcome)
    assert load_known_gaps(path, "e").ids() == ["s/a", "s/typo", "s/new"]


def test_a_regression_blocks_unless_it_is_a_known_gap() -> None:
    baseline = (row("a", "correct"), row("b", "correct"), row("c", "wrong"))
    results = [row("a", "wrong"), row("b", "wrong"), row("c", "correct")]
    gaps = KnownGaps("e", Path("e.yaml"), [Gap("s/b")])
    config = GateConfig(engines=("e",), known_gaps={"e": gaps}, baseline=baseline, fail_on_regression=True)
    outcome = evaluate_gate(results, config, Collected())
    assert outcome.comparison is not None
    assert (outcome.comparison.regressions, outcome.comparison.fixes) == (["s/a", "s/b"], ["s/c"])
    assert outcome.blocking_regressions == ["s/a"]
    # 1 of 3 paired targets is above the default rate (10 %); s/b, a known gap, is not counted
    assert outcome.reasons == [
        "1 regression(s) against the baseline (33.3% of 3 paired targets regressed (> 10.0%)): s/a"
    ]


@pytest.mark.parametrize(("mode", "fails"), [("report", False), ("strict", True)])
def test_changed_transcripts_against_stored_snapshots(tmp_path: Path, mode: str, fails: bool) -> None:
    path = tmp_path / "__tts_snapshots__" / "e.ambr"
    stored = {
        name: r.data for name, r in received_snapshots([row("a", "correct", heard="twenty twenty-six")], "e").items()
    }
    results = [row("a", "correct", heard="two thousand twenty-six"), row("b", "correct", heard="new")]
    config = GateConfig(engines=("e",), snapshot_mode=mode, snapshots={"e": (path, stored)})
    outcome = evaluate_gate(results, config, Collected())
    (check,) = outcome.snapshots
    assert ([name for name, _, _ in check.changed], check.new) == (["s/a"], ["s/b"])
    assert bool(outcome.reasons) is fails


def test_snapshot_update_is_planned_then_written(tmp_path: Path) -> None:
    path = tmp_path / "__tts_snapshots__" / "e.ambr"
    config = GateConfig(engines=("e",), snapshot_mode="strict", update_snapshots=True, snapshots={"e": (path, {})})
    outcome = evaluate_gate([row("a", "correct", heard="in 2026")], config, Collected())
    assert outcome.reasons == [] and outcome.snapshots[0].updated
    assert not path.exists()
    write_gate_updates(outcome)
    assert set(read_snapshots(path)) == {"s/a"}
