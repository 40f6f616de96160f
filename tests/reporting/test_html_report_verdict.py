"""The HTML report's verdict box reads the run's verdict where every other reader does (#38 point 4).

A gate whose floors held on a run whose item tests failed (``gate_passed: true, passed: false``)
said "Gate passed" at the top of the report while the terminal, the gate file and the dashboard
said the run failed. The box now renders :func:`~pytest_ttsbench.reporting.run_verdict.run_verdict`
of the gate the report shows, so it cannot disagree with them: checked over drawn gate outcomes,
and end to end on a pytest run whose floor holds while an item fails.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_helpers import write_project
from result_rows import make_result

from pytest_ttsbench.gating.bounds import BREACHED, HELD, Judged, fails
from pytest_ttsbench.gating.gate import GateOutcome
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.reporting.html import verdict_section_html
from pytest_ttsbench.reporting.run_verdict import run_verdict
from pytest_ttsbench.run_model.results import ItemResult

VERDICT = re.compile(r'<p class="ttsbench-gate-(?:passed|failed)">([^<]*)</p>')
SHOWN = {"failed": "FAILED", "passed": "Passed"}


def box(page: str) -> tuple[str | None, list[str]]:
    """The verdict box's word and its reasons, as a reader of the page sees them."""
    section = page[page.index('id="ttsbench-verdict"') :].split("</section>", 1)[0]
    found = VERDICT.search(section)
    reasons = [html.unescape(r) for r in re.findall(r"<li>(.*?)</li>", section.split("<h4>", 1)[0])]
    return (found.group(1) if found else None), reasons


def _floor(holds: bool) -> Judged:
    """A floor on one bucket, held or breached, with the bucket figures the floors table reads."""
    bucket = {"engine": "e", "suite": "s", "category": "c", "n": 4, "breached": not holds}
    bucket["status"] = "ok" if holds else "FAIL"
    reasons = () if holds else ("floor s/c=0.5 [e]: 25% below 50%",)
    return Judged("floor", "s/c=0.5", "s.yaml", HELD if holds else BREACHED, "e", "", reasons, bucket)


@given(
    verdicts=st.lists(st.sampled_from(["correct", "wrong", "unknown", "error"]), max_size=6),
    failures=st.lists(st.sampled_from(["baseline: 2 regressions", "the session did not finish"]), max_size=2),
    exitstatus=st.sampled_from([None, 0, 1, 2, 4]),
    floor_holds=st.booleans(),
)
def test_the_box_says_what_run_verdict_says(
    verdicts: list[str], failures: list[str], exitstatus: int | None, floor_holds: bool
) -> None:
    items: list[ItemResult] = [make_result(id=f"s/item-{i}", verdict=v) for i, v in enumerate(verdicts)]
    judged = [_floor(floor_holds), *(fails(reason) for reason in failures)]
    outcome = GateOutcome(items=items, judged=judged, exitstatus=exitstatus)
    outcome.failed_items = [f"{row.key} [{row.engine}]" for row in items if row.verdict != "correct"]
    expected = run_verdict(gate_document(outcome), items)
    word, shown_reasons = box(str(verdict_section_html(outcome, items)))
    assert word == SHOWN[expected.state]
    assert shown_reasons == (list(expected.reasons) if expected.state == "failed" else [])
    if not outcome.passed:  # the exit status's verdict, which the gate file calls ``passed``
        assert word == "FAILED" and shown_reasons, "a failed run is never shown passed, nor FAILED without why"


def test_floors_held_but_an_item_failed_reads_failed_with_the_item(pytester: pytest.Pytester) -> None:
    """The quoted case, end to end: every floor holds (0), one item is wrong, pytest exits 1."""
    write_project(pytester)
    for case_file in (pytester.path / "cases").glob("*.yaml"):
        text = case_file.read_text(encoding="utf-8")
        case_file.write_text(re.sub(r"default: [0-9.]+", "default: 0.0", text), encoding="utf-8")
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--html=report/r.html", "-p", "no:xdist"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["gate_passed"] is True and gate["passed"] is False  # the family's gate file
    word, reasons = box((pytester.path / "report" / "r.html").read_text(encoding="utf-8"))
    assert word == "FAILED"
    assert reasons[0] == "pytest exit status 1: tests failed"
    assert any("not correct and not known gaps" in reason and "pct-45" in reason for reason in reasons), reasons
