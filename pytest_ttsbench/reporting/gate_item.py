"""The release gate as a test of its own, ``ttsbench::gate``, so every test report shows it.

The gate is decided once, at the end of the session, on the process that holds every result
(the controller under pytest-xdist), after the last benchmark test ran; it is not a collected
item. Its verdict is handed to pytest as the reports of a test that ran there (setup, call,
teardown), through the same ``pytest_runtest_logreport`` hook real tests use, so the terminal's
counts, JUnit XML (``--junitxml``), pytest-html and any other report plugin show a blocked release
as a failed test whose message is the gate's reasons, instead of a green report and a bare exit
status. Flaky items, non-deterministic engines and the regression test's figures travel as the
test's properties (JUnit ``<properties>``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from _pytest.reports import TestReport

from pytest_ttsbench.reporting.terminal import nondeterminism_lines

if TYPE_CHECKING:
    from pytest_ttsbench.gating.gate import GateOutcome

GATE_NODEID = "ttsbench::gate"


def gate_is_armed(outcome: GateOutcome) -> bool:
    """Whether ``ttsbench::gate`` is reported: always when it fails; when it passes, if the run compared
    with a baseline, held strict snapshots, or has flaky items or a non-deterministic engine to list.
    Floors alone that hold add no test (every item already reports its own verdict)."""
    return bool(
        outcome.reasons
        or outcome.comparison is not None
        or outcome.snapshot_mode == "strict"
        or outcome.flaky
        or outcome.nondeterministic
    )


def gate_message(outcome: GateOutcome) -> str:
    """The failure message: one gate reason per line."""
    return "release gate FAILED:\n" + "\n".join(f"  {reason}" for reason in outcome.reasons)


def gate_properties(outcome: GateOutcome) -> list[tuple[str, object]]:
    """What a CI system should see besides pass/fail: flaky items, non-determinism, the regression test."""
    properties: list[tuple[str, object]] = []
    properties += [("reason", reason) for reason in outcome.reasons]
    properties += [
        ("flaky", f"{item.key} [{item.engine}]: {item.correct_count}/{len(item.verdicts)} correct")
        for item in outcome.flaky
    ]
    properties += [("nondeterministic", line) for line in nondeterminism_lines(outcome)]
    comparison = outcome.comparison
    if comparison is not None:
        properties.append(("baseline_regressions", len(comparison.regressions)))
        properties.append(("baseline_fixes", len(comparison.fixes)))
        properties.append(("baseline_mcnemar_p", f"{comparison.mcnemar_p:.4g}"))
    properties += [("known_gap_xfail", label) for label in outcome.xfailed]
    return properties


def gate_test_status(report: TestReport, announcing: bool) -> tuple[str, str, str] | None:
    """What pytest's terminal makes of a ``ttsbench::gate`` report while it is announced (``announcing``):
    counted in the totals, but no letter or word in the progress line. It is not one of the collected
    tests, so a letter there would read ``F [125%]`` after ``[100%]``; the gate has its own section of
    the summary. Afterwards (the short summary's "FAILED ttsbench::gate - …"), and for any other
    test: None, pytest's own status."""
    if not announcing or report.nodeid != GATE_NODEID:
        return None
    return (report.outcome if report.when == "call" else "", "", "")


def gate_reports(outcome: GateOutcome) -> list[TestReport]:
    """Setup, call and teardown reports of ``ttsbench::gate``, as a test that just ran would send."""
    location = ("ttsbench", None, "gate")
    keywords: dict[str, Literal[1]] = {"gate": 1, "ttsbench": 1}
    failed = bool(outcome.reasons)
    properties = gate_properties(outcome)

    def report(when: Literal["setup", "call", "teardown"], passed: bool = True) -> TestReport:
        return TestReport(
            nodeid=GATE_NODEID,
            location=location,
            keywords=keywords,
            outcome="passed" if passed else "failed",
            longrepr=None if passed else gate_message(outcome),
            when=when,
            user_properties=properties if when != "setup" else [],
        )

    return [report("setup"), report("call", passed=not failed), report("teardown")]
