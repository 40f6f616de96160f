"""Property: the one rule that turns a session's status and the gate into the exit status (``final_status``),
and the gate file's account of it, over every combination of what failed.

pytest's model by default (each item a test, the gate a test): a failed item fails the run. With
``gate_decides_exit`` a run whose only failures are items' verdicts is decided by the gate alone;
anything else that failed still fails it; an interrupted, internal or usage error keeps its status.
Whenever the gate passed and the run did not, the gate file says why.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_ttsbench.gating.bounds import fails
from pytest_ttsbench.gating.gate import GateOutcome, final_status
from pytest_ttsbench.reporting.gate_file import gate_document

labels = st.lists(st.sampled_from(["s/a [e]", "s/b [e]", "s/c [f]"]), unique=True, max_size=3)


@given(
    status=st.sampled_from([0, 1, 2, 3, 4, 5]),
    reasons=st.lists(st.just("s/a: strict accuracy 0% below the floor 90%"), max_size=1),
    failed_items=labels,
    excused=labels,
    other_failures=st.integers(0, 2),
    decides=st.booleans(),
)
def test_the_exit_status_and_why_it_is_not_the_gates(
    status: int, reasons: list[str], failed_items: list[str], excused: list[str], other_failures: int, decides: bool
) -> None:
    outcome = GateOutcome(
        items=[],
        judged=[fails(reason, "floor") for reason in reasons],
        failed_items=list(failed_items),
        excused=list(excused),
        other_failures=other_failures,
        gate_decides_exit=decides,
    )
    exitstatus = final_status(outcome, status)
    outcome.exitstatus = exitstatus
    if status not in (0, 1):
        assert exitstatus == status  # interrupted, internal error, usage error: pytest's own
    elif reasons:
        assert exitstatus == 1  # the gate failed: the run fails, in every mode
    elif status == 0:
        assert exitstatus == 0
    else:
        left_to_gate = other_failures == 0 and bool(excused or (decides and failed_items))
        assert exitstatus == (0 if left_to_gate else 1)
        if decides and other_failures:
            assert exitstatus == 1  # a failure that is not an item's verdict is never left to the gate

    data = gate_document(outcome)
    assert data["passed"] is (exitstatus == 0) and data["gate_passed"] is (not reasons)
    assert data["gate_decides_exit"] is decides and data["failed_items"] == failed_items
    # gate_passed true, passed false: the file always says why
    assert bool(data["exit_reasons"]) == (data["gate_passed"] and not data["passed"])
    if data["exit_reasons"] and failed_items and not decides and exitstatus == 1:
        assert data["exit_reasons"][0].startswith(f"{len(failed_items)} item test(s) failed")
