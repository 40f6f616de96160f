"""The gate file (``<results>.gate.json``): the judged list and what it rests on, written once per gate.

Both front ends write it (the plugin's session and ``ttsbench gate``), from the same
:class:`~pytest_ttsbench.gating.gate.GateOutcome`: ``bounds`` is the judged list, ``reasons`` and
``gate_passed`` are read off it, ``passed`` is the exit status's verdict. Every figure table
(``thresholds``, ``quality.gates``, ``latency``, ``coverage``) is the judged entries' own figures.
:mod:`~pytest_ttsbench.reporting.run_verdict` is its one reader of the verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.plugin_options import GATE_DECIDES_EXIT_OPTION

if TYPE_CHECKING:
    from pytest_ttsbench.gating.gate import GateOutcome


def write_gate(path: Path, outcome: GateOutcome) -> None:
    """Write the gate file atomically: a reader never sees half a verdict."""
    text = dump_json(gate_document(outcome), null_non_finite=True, ensure_ascii=False, indent=2)
    write_atomically(path, text + "\n")


def gate_document(outcome: GateOutcome) -> dict[str, Any]:
    """The gate file's JSON object: the judged list and what it rests on, as :func:`write_gate` writes it."""
    data: dict[str, Any] = {
        "exitstatus": outcome.exitstatus,
        # the exit status's verdict: a dashboard reading this file is never told a failed run passed
        "passed": outcome.passed,
        "gate_passed": not outcome.reasons,
        "reasons": outcome.reasons,
        # what set the exit status: pytest's model (each item a test) or the gate alone
        "gate_decides_exit": outcome.gate_decides_exit,
        "failed_items": list(outcome.failed_items),
        "exit_reasons": exit_reasons(outcome),
        "coverage": [engine.to_dict() for engine in outcome.coverage],
        "missing_shards": list(outcome.missing_shards),
        "unverified": list(outcome.unverified),
        "bounds": [entry.to_dict() for entry in outcome.judged],
        "thresholds": outcome.checks,
        "known_gaps": {
            "xfailed": list(outcome.xfailed),
            "fixed": list(outcome.fixed_gaps),
            "unmatched": {k: list(v) for k, v in outcome.unmatched_gaps.items()},
            "updated_files": list(outcome.updated_gap_files),
        },
        "repeats": _repeats(outcome),
        "nondeterministic": {
            engine: {"varied": varied, "checked": checked}
            for engine, (varied, checked) in sorted(outcome.nondeterministic.items())
        },
        "cache": outcome.cache.to_dict(),
    }
    return data | _sections(outcome)


def _repeats(outcome: GateOutcome) -> dict[str, Any]:
    several = outcome.repeats > 1
    return {
        "n": outcome.repeats,
        "policy": outcome.repeat_policy,
        "items": [item.to_dict() for item in outcome.repeated] if several else [],
        "inconsistent": [f"{i.key} [{i.engine}]" for i in outcome.inconsistent] if several else [],
        "flaky": [f"{i.key} [{i.engine}]" for i in outcome.flaky],
        "excused_failures": list(outcome.excused),
    }


def _sections(outcome: GateOutcome) -> dict[str, Any]:
    """The gate file's sections a run has only when it used them: quality, latency, snapshots, baseline."""
    quality, latency, changes = outcome.quality_checks, outcome.latency, outcome.latency_changes
    sections: dict[str, Any] = {}
    if outcome.quality_models or quality:
        sections["quality"] = {
            "models": dict(outcome.quality_models),
            "summary": list(outcome.quality_summary),
            "gates": [check.to_dict() for check in quality],
            "repeats": [spread.to_dict() for spread in outcome.quality_spreads],
        }
    if latency or changes:
        sections["latency"] = {
            "budgets": [c.to_dict() for c in latency],
            "baseline": [c.to_dict() for c in changes],
        }
    if outcome.snapshot_mode != "off":
        sections["snapshots"] = {"mode": outcome.snapshot_mode, "engines": [c.to_dict() for c in outcome.snapshots]}
    if outcome.comparison is not None:
        sections["baseline"] = {
            "path": outcome.baseline_path,
            **outcome.comparison.to_dict(),
            "blocking_regressions": list(outcome.blocking_regressions),
            "rule": outcome.regression_rule.to_dict(),
            "unattributed_regressions": list(outcome.unattributed_regressions),
        }
    return sections


def exit_reasons(outcome: GateOutcome) -> list[str]:
    """Why the exit status fails a run whose gate passed (empty when they agree), so a reader of the
    gate file that sees ``gate_passed: true, passed: false`` is told what failed it."""
    if outcome.exitstatus in (None, 0) or outcome.reasons:
        return []
    if outcome.exitstatus != 1:
        return [f"pytest exit status {outcome.exitstatus}: the session itself failed (see its own output)"]
    reasons = []
    if outcome.failed_items and not outcome.gate_decides_exit:
        reasons.append(
            f"{len(outcome.failed_items)} item test(s) failed: {', '.join(outcome.failed_items)} (each item is a "
            f"test and fails the run, as in any pytest run; {GATE_DECIDES_EXIT_OPTION} or gate_decides_exit: "
            "true leaves the exit status to the gate)"
        )
    if outcome.other_failures:
        reasons.append(
            f"{outcome.other_failures} other test(s) failed: not an item's verdict (a case file that failed to "
            "collect, a test of the project's own, a known gap passing under --tts-strict-xfail)"
        )
    return reasons or ["the session failed (pytest exit status 1)"]
