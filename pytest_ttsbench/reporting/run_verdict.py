"""A stored run's verdict and the reasons for it, read from its gate file: what the dashboard shows.

A gate file (``results.gate.json``) keeps two verdicts: ``gate_passed``, the gate's own (floors,
baseline, snapshots ...), whose ``reasons`` say why it failed, and ``passed``, the exit status's.
A run whose gate held can still fail on its tests (an item not correct and not a known gap fails
its test, exit status 1) or stop early: ``passed: false`` with no reasons. Every page that shows a
stored run's verdict reads it here, so a FAILED is never shown without saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pytest_ttsbench.run_model.results import ItemResult

#: pytest's exit statuses, as a reader of a stored run needs them said
EXIT_MEANINGS = {
    1: "tests failed",
    2: "the run was interrupted",
    3: "pytest hit an internal error",
    4: "pytest was called wrongly (usage error)",
    5: "no tests were collected",
}
#: failing items named in full; the rest are counted
SHOWN_ITEMS = 5


@dataclass(frozen=True)
class RunVerdict:
    state: Literal["passed", "failed", "not gated"]
    #: why a failed run failed: never empty when ``state`` is "failed"
    reasons: tuple[str, ...] = ()


def _label(row: ItemResult) -> str:
    return f"{row.key} [{row.engine}]"


def failing_items(gate: Mapping[str, Any], items: Sequence[ItemResult]) -> list[str]:
    """Items whose test failed: scored, not correct, and not a known gap the run expected to fail."""
    known = gate.get("known_gaps")
    xfailed = set(known.get("xfailed") or []) if isinstance(known, Mapping) else set()
    return [
        _label(row) for row in items if row.auto_evaluable and row.verdict != "correct" and _label(row) not in xfailed
    ]


def _exit_reason(status: Any) -> str | None:
    if not isinstance(status, int) or isinstance(status, bool) or status == 0:
        return None
    meaning = EXIT_MEANINGS.get(status, "the run did not end cleanly")
    return f"pytest exit status {status}: {meaning}"


def run_verdict(gate: Mapping[str, Any] | None, items: Sequence[ItemResult]) -> RunVerdict:
    """The verdict of a stored run (``items``: its rows after the repeat policy, every engine)."""
    if gate is None:
        return RunVerdict("not gated")
    # Gate files written before ``passed`` was recorded carry the gate's own verdict only.
    passed = gate.get("passed", gate.get("gate_passed", not gate.get("reasons")))
    if passed is True:
        return RunVerdict("passed")
    # A blank reason (a gate file edited by hand) says nothing: it never stands for the why.
    reasons = [str(reason) for reason in gate.get("reasons") or [] if str(reason).strip()]
    exit_reason = _exit_reason(gate.get("exitstatus"))
    if not reasons:
        # The gate held (or said nothing): the exit status failed the run; say what failed it.
        if exit_reason:
            reasons.append(exit_reason)
        failing = failing_items(gate, items)
        if failing:
            shown = ", ".join(failing[:SHOWN_ITEMS])
            more = f" and {len(failing) - SHOWN_ITEMS} more" if len(failing) > SHOWN_ITEMS else ""
            reasons.append(f"{len(failing)} item(s) not correct and not known gaps: {shown}{more}")
    if not reasons:
        reasons.append("the gate file records the run as not passed without saying why (no reasons, no exit status)")
    return RunVerdict("failed", tuple(reasons))
