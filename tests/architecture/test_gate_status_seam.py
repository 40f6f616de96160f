"""The exit status and the snapshot judgement each have one seam, for pytest and ``ttsbench gate`` alike.

* A gate's exit status is set by ``gating.gate.final_status`` (pytest's model, or the gate alone
  under ``gate_decides_exit``), so the two front ends cannot give one run two statuses. The package's
  source is parsed (ast): every assignment to an ``exitstatus`` attribute calls it, copies an
  outcome's, or is named below with its reason.
* An item's transcripts are judged against their snapshot by ``gating.snapshots.judge_snapshot``
  alone: ``compare_snapshots`` (which calls it) is called only by the gate, and the stored wordings
  and the heard ones are read nowhere else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent

#: assignments of an exit status that do not go through final_status, and why
EXEMPT_STATUS = {
    # a bound matching nothing, found by the xdist workers (which ran nothing): pytest's usage error
    ("session/benchmark.py", "int(pytest.ExitCode.USAGE_ERROR)"),
    # a write of the run's own outputs the file system refused once the run started (a full disk):
    # pytest's internal error, whatever the gate said (session/output_failures.py)
    ("session/benchmark.py", "INTERNAL_ERROR"),
}
SNAPSHOT_SEAM = "gating/snapshots.py"
SNAPSHOT_CALLERS = {"gating/gate.py"}


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def status_assignments(module: str, tree: ast.Module) -> list[tuple[str, str]]:
    """(module, source) of each value assigned to an ``exitstatus`` attribute other than by the seam."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        if not any(isinstance(t, ast.Attribute) and t.attr == "exitstatus" for t in node.targets):
            continue
        value = node.value
        through_seam = (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "final_status"
        )
        copied = isinstance(value, ast.Attribute) and value.attr == "exitstatus"  # session.exitstatus = outcome's
        if not (through_seam or copied):
            found.append((module, ast.unparse(value)))
    return found


def test_the_finder_sees_a_status_set_by_hand() -> None:
    tree = ast.parse("o.exitstatus = 1\no.exitstatus = final_status(o, 1)\ns.exitstatus = o.exitstatus\n")
    assert status_assignments("m.py", tree) == [("m.py", "1")]


def test_every_exit_status_goes_through_final_status() -> None:
    found = {entry for module, tree in _modules() for entry in status_assignments(module, tree)}
    assert found == EXEMPT_STATUS


def _names_used(tree: ast.Module) -> set[str]:
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    return names


def test_snapshots_are_judged_in_one_place() -> None:
    callers = {module for module, tree in _modules() if "compare_snapshots" in _names_used(tree)}
    assert callers - {SNAPSHOT_SEAM} == SNAPSHOT_CALLERS
    for module, tree in _modules():
        if module != SNAPSHOT_SEAM:
            used = _names_used(tree) & {"judge_snapshot", "_stored_variants", "Received"}
            assert not used, f"{module} judges snapshots itself ({', '.join(sorted(used))})"
