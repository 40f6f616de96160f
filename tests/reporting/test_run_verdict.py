"""A stored run's verdict always says why it failed (issue #38 point 4), and the dashboard's
"Changes in the latest run" compares a run with the previous run of the same selection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from result_rows import make_result

from pytest_ttsbench.reporting.dashboard import previous_comparable, selected_items
from pytest_ttsbench.reporting.run_verdict import SHOWN_ITEMS, run_verdict
from pytest_ttsbench.run_model.reader import Run
from pytest_ttsbench.run_model.results import ItemResult

VERDICTS = ("correct", "wrong", "unknown", "error")


def rows(verdicts: list[str]) -> list[ItemResult]:
    return [make_result(id=f"s/item-{i}", verdict=v) for i, v in enumerate(verdicts)]


def test_gate_held_but_tests_failed_names_the_status_and_the_items() -> None:
    """The quoted family: ``gate_passed: true, passed: false``: the exit status failed the run."""
    items = rows(["correct", "wrong", "unknown"])
    gate = {"passed": False, "gate_passed": True, "reasons": [], "exitstatus": 1, "known_gaps": {"xfailed": []}}
    verdict = run_verdict(gate, items)
    assert verdict.state == "failed"
    assert verdict.reasons[0] == "pytest exit status 1: tests failed"
    assert verdict.reasons[1] == "2 item(s) not correct and not known gaps: s/item-1 [e], s/item-2 [e]"


def test_known_gaps_are_not_what_failed_the_run() -> None:
    items = rows(["wrong", "wrong"])
    gate = {"passed": False, "gate_passed": True, "exitstatus": 2, "known_gaps": {"xfailed": ["s/item-0 [e]"]}}
    verdict = run_verdict(gate, items)
    assert verdict.reasons == (
        "pytest exit status 2: the run was interrupted",
        "1 item(s) not correct and not known gaps: s/item-1 [e]",
    )


def test_the_gates_own_reasons_are_kept_and_a_pass_is_a_pass() -> None:
    gate = {"passed": False, "gate_passed": False, "reasons": ["e c: 40% below floor 60%"], "exitstatus": 1}
    assert run_verdict(gate, rows(["wrong"])).reasons == ("e c: 40% below floor 60%",)
    assert run_verdict({"passed": True, "reasons": []}, rows(["wrong"])).state == "passed"
    assert run_verdict(None, rows(["wrong"])).state == "not gated"


GAP_LABELS = [f"s/item-{i} [e]" for i in range(8)]
GATES = st.fixed_dictionaries(
    {},
    optional={
        "passed": st.booleans(),
        "gate_passed": st.booleans(),
        "reasons": st.lists(st.text(min_size=1, max_size=20), max_size=3),
        "exitstatus": st.one_of(st.none(), st.integers(-1, 6)),
        "known_gaps": st.fixed_dictionaries({"xfailed": st.lists(st.sampled_from(GAP_LABELS))}),
    },
)


@given(GATES, st.lists(st.sampled_from(VERDICTS), max_size=8))
def test_a_failed_run_always_carries_its_reasons(gate: dict[str, Any], verdicts: list[str]) -> None:
    items = rows(verdicts)
    verdict = run_verdict(gate, items)
    recorded = gate.get("passed", gate.get("gate_passed", not gate.get("reasons")))
    assert verdict.state == ("passed" if recorded is True else "failed")
    if verdict.state == "failed":
        assert verdict.reasons and all(reason.strip() for reason in verdict.reasons)
        said = [reason for reason in gate.get("reasons") or [] if reason.strip()]
        assert all(reason in verdict.reasons for reason in said)
        if not said:  # the gate said nothing: every failing item is counted
            xfailed = set(gate.get("known_gaps", {}).get("xfailed", []))
            failing = [r for r in items if r.verdict != "correct" and f"{r.key} [e]" not in xfailed]
            counted = [reason for reason in verdict.reasons if "not correct and not known gaps" in reason]
            assert counted == ([] if not failing else [counted[0]])
            if failing:
                assert counted[0].startswith(f"{len(failing)} item(s)")
                assert counted[0].count("[e]") == min(len(failing), SHOWN_ITEMS)


START = datetime(2026, 11, 1, tzinfo=UTC)


def run(night: int, items: range | list[int]) -> Run:
    made = tuple(make_result(id=f"s/item-{i:02d}") for i in items)
    return Run(f"night-{night}", Path(f"night-{night}/results.jsonl"), "e", START + timedelta(days=night), made)


def test_changes_skip_a_k_run_for_the_previous_full_one() -> None:
    """A full run after a five-item ``-k`` run is compared with the full run before it, not "46 new"."""
    full = range(51)
    runs = [run(1, full), run(2, full), run(3, range(5)), run(4, full)]
    before, why = previous_comparable(runs)
    assert before is runs[1] and why == ""


def test_without_the_same_selection_the_closest_one_is_taken_and_said() -> None:
    runs = [run(1, range(5)), run(2, range(50)), run(3, range(3)), run(4, range(51))]
    before, why = previous_comparable(runs)
    assert before is runs[1]
    assert "No earlier run selected the same 51 item(s)" in why and "night-2" in why
    assert previous_comparable(runs[:1]) == (None, "")


SELECTIONS = st.lists(st.sets(st.integers(0, 12), min_size=1), min_size=2, max_size=6)


@given(SELECTIONS)
def test_the_compared_run_is_the_latest_of_the_closest_selection(selections: list[set[int]]) -> None:
    runs = [run(night, sorted(items)) for night, items in enumerate(selections)]
    before, why = previous_comparable(runs)
    assert before is not None and before in runs[:-1]
    latest = selected_items(runs[-1])

    def overlap(r: Run) -> float:
        return len(latest & selected_items(r)) / len(latest | selected_items(r))

    assert overlap(before) == max(overlap(r) for r in runs[:-1])
    later = runs[runs.index(before) + 1 : -1]
    assert all(overlap(r) < overlap(before) for r in later)  # of equal overlaps, the latest
    assert (why == "") == (selected_items(before) == latest)
