"""The exit status and the snapshot judgement each have one seam, for pytest and ``ttsbench gate`` alike.

* A gate's exit status is set by ``gating.gate.final_status`` (pytest's model, or the gate alone
  under ``gate_decides_exit``), so the two front ends cannot give one run two statuses. The package's
  source is parsed (ast): every assignment to an ``exitstatus`` attribute calls it, copies an
  outcome's, or is named below with its reason.
* An item's transcripts are judged against their snapshot by ``gating.snapshots.judge_snapshot``
  alone: ``compare_snapshots`` (which calls it) is called only by the gate, and the stored wordings
  and the heard ones are read nowhere else.
* Bounds are judged by the gate alone. Every reader of a verdict (the terminal, the HTML report,
  the job summary and annotations, the gate file, the dashboard) reads ``GateOutcome.judged`` and
  what it derives from it: outside ``gating/``, only the front ends that run the gate (the pytest
  session, ``ttsbench gate``, and ``ttsbench compare``'s regression rule) call a bound's ``judge``,
  ``judge_all``, ``gate_reasons``, ``evaluate_gate`` or the settling of floors and quality bounds.
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


#: what judges a bound or settles which bound is in force
JUDGING = frozenset(
    {"judge_all", "gate_reasons", "evaluate_gate", "gate_bounds", "scoped_bounds", "settle_floors", "settle_quality"}
)
#: the front ends that run the gate, each for its own reason
GATE_RUNNERS = {
    "session/benchmark.py": "the pytest session gates what it ran",
    "cli/gate.py": "ttsbench gate gates a run on disk",
    "cli/compare.py": "ttsbench compare --fail-on-regression judges the regression rule, as the gate does",
}


def judging_used(tree: ast.Module) -> set[str]:
    """The judging names a module uses, and ``.judge`` for any call of a bound's judge."""
    used = _names_used(tree) & JUDGING
    calls = (node.func for node in ast.walk(tree) if isinstance(node, ast.Call))
    used |= {".judge" for func in calls if isinstance(func, ast.Attribute) and func.attr == "judge"}
    return used


def test_the_finder_sees_a_reader_judging() -> None:
    tree = ast.parse("from g import gate_reasons\nreasons = gate_reasons(floor.judge(run), False)\n")
    assert judging_used(tree) == {"gate_reasons", ".judge"}
    assert judging_used(ast.parse("lines = [j.status for j in outcome.judged]\n")) == set()


def test_only_the_gate_and_its_front_ends_judge_bounds() -> None:
    judging = {
        module: judging_used(tree)
        for module, tree in _modules()
        if not module.startswith("gating/") and judging_used(tree)
    }
    assert set(judging) == set(GATE_RUNNERS), (
        "a reader of the gate judges bounds itself instead of reading GateOutcome.judged: "
        + ", ".join(f"{m} ({', '.join(sorted(u))})" for m, u in judging.items() if m not in GATE_RUNNERS)
    )
