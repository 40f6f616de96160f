"""The release gate: everything decided once, at the end of a session, from the recorded results.

The plugin calls :func:`evaluate_gate` on the controller (the only process that holds every
result under pytest-xdist) and :func:`final_status` to turn the outcome into the exit status;
the terminal summary and the ``<results>.gate.json`` sidecar print the same outcome, so the
three never disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.gating.baseline import Comparison, RegressionRule, compare, comparison_id, regression_reasons
from pytest_ttsbench.gating.known_gaps import unmatched_ids, updated_gaps, write_known_gaps
from pytest_ttsbench.gating.repeats import RepeatedItem, aggregate, nondeterministic_engines
from pytest_ttsbench.gating.snapshots import (
    SnapshotCheck,
    check_snapshots,
    received_snapshots,
    snapshot_path,
    update_snapshots,
)
from pytest_ttsbench.gating.thresholds import FloorCheck, breaches
from pytest_ttsbench.gating.thresholds import evaluate as evaluate_floors
from pytest_ttsbench.results import ItemResult

if TYPE_CHECKING:
    from pytest_ttsbench.session import BenchSession


@dataclass
class GateOutcome:
    """What the gate found; :attr:`reasons` non-empty means the run fails."""

    items: list[ItemResult]  # one row per target and engine, verdict after the repeat policy
    repeats: int = 1
    repeat_policy: str = "all"
    repeated: list[RepeatedItem] = field(default_factory=list)
    checks: list[FloorCheck] = field(default_factory=list)
    xfailed: list[str] = field(default_factory=list)  # "<key> [<engine>]" of known gaps still failing
    fixed_gaps: list[str] = field(default_factory=list)  # known gaps now correct (XPASS)
    unmatched_gaps: dict[str, list[str]] = field(default_factory=dict)  # engine → ids matching nothing
    updated_gap_files: list[str] = field(default_factory=list)
    comparison: Comparison | None = None
    baseline_path: str | None = None
    known_gap_ids: set[str] = field(default_factory=set)  # comparison ids that are known gaps
    blocking_regressions: list[str] = field(default_factory=list)
    regression_rule: RegressionRule = field(default_factory=RegressionRule)
    #: engine → (items whose identical requests gave different audio, items checked)
    nondeterministic: dict[str, tuple[int, int]] = field(default_factory=dict)
    excused: list[str] = field(default_factory=list)  # failed generations of items correct by the policy
    snapshot_mode: str = "off"
    snapshots: list[SnapshotCheck] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    exitstatus: int | None = None

    @property
    def breaches(self) -> list[FloorCheck]:
        return breaches(self.checks)

    @property
    def inconsistent(self) -> list[RepeatedItem]:
        return [item for item in self.repeated if not item.consistent]

    @property
    def flaky(self) -> list[RepeatedItem]:
        """Items whose generations disagree on correctness."""
        return [item for item in self.repeated if item.flaky]

    def nondeterminism_lines(self) -> list[str]:
        """What the run saw of engines that answer identical requests with different audio."""
        lines = []
        for engine, (varied, checked) in sorted(self.nondeterministic.items()):
            advice = (
                "set `repeats: 3` in its profile (or --tts-repeats 3) so verdicts are rates, not single draws"
                if self.repeats < 2
                else f"each item's verdict is taken over {self.repeats} generations"
            )
            lines.append(
                f"{engine} is not deterministic: identical requests gave different audio "
                f"({varied} of {checked} checked); {advice}"
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "exitstatus": self.exitstatus,
            "passed": not self.reasons,
            "reasons": list(self.reasons),
            "thresholds": [check.to_dict() for check in self.checks],
            "known_gaps": {
                "xfailed": list(self.xfailed),
                "fixed": list(self.fixed_gaps),
                "unmatched": {k: list(v) for k, v in self.unmatched_gaps.items()},
                "updated_files": list(self.updated_gap_files),
            },
            "repeats": {
                "n": self.repeats,
                "policy": self.repeat_policy,
                "items": [item.to_dict() for item in self.repeated] if self.repeats > 1 else [],
                "inconsistent": [f"{i.key} [{i.engine}]" for i in self.inconsistent] if self.repeats > 1 else [],
                "flaky": [f"{i.key} [{i.engine}]" for i in self.flaky],
                "excused_failures": list(self.excused),
            },
            "nondeterministic": {
                engine: {"varied": varied, "checked": checked}
                for engine, (varied, checked) in sorted(self.nondeterministic.items())
            },
        }
        if self.snapshot_mode != "off":
            data["snapshots"] = {"mode": self.snapshot_mode, "engines": [c.to_dict() for c in self.snapshots]}
        if self.comparison is not None:
            data["baseline"] = {
                "path": self.baseline_path,
                **self.comparison.to_dict(),
                "blocking_regressions": list(self.blocking_regressions),
                "rule": self.regression_rule.to_dict(),
            }
        return data


def _label(row: ItemResult) -> str:
    return f"{row.key} [{row.engine}]"


def evaluate_gate(bench: BenchSession) -> GateOutcome:
    """Apply the repeat policy, the floors, the known gaps and the baseline to the session's results."""
    items, repeated = aggregate(bench.results, bench.repeat_policy)
    repeats = max((row.repeat + 1 for row in bench.results), default=1)
    outcome = GateOutcome(items=items, repeats=repeats, repeat_policy=bench.repeat_policy, repeated=repeated)
    outcome.nondeterministic = nondeterministic_engines(repeated)
    for row in bench.results:  # the one-generation probe: the same request sent twice (see pipeline)
        if row.audio_varies is not None and row.engine not in outcome.nondeterministic and row.audio_varies:
            outcome.nondeterministic[row.engine] = (1, 1)
    outcome.checks = evaluate_floors(items, bench.suite_thresholds, bench.floor_layers)
    for check in outcome.breaches:
        outcome.reasons.append(
            f"{check.engine} {check.suite}/{check.category}: strict accuracy {check.accuracy:.1%} below floor "
            f"{check.floor:.1%}"
        )

    gap_rows: list[ItemResult] = []
    for row in items:
        gaps = bench.known_gaps.get(row.engine)
        if gaps is None or not row.auto_evaluable or gaps.match(row.id, row.key) is None:
            continue
        gap_rows.append(row)
        (outcome.fixed_gaps if row.verdict == "correct" else outcome.xfailed).append(_label(row))
    for engine, gaps in bench.known_gaps.items():
        collected = [gap_id for name, gap_id in bench.collected_ids if name == engine]
        collected += [gap_id for row in bench.results if row.engine == engine for gap_id in (row.id, row.key)]
        missing = unmatched_ids(gaps, collected)
        if missing:
            outcome.unmatched_gaps[engine] = missing
        if bench.update_known_gaps:
            verdicts = {(r.id, r.key): r.verdict for r in items if r.engine == engine and r.auto_evaluable}
            write_known_gaps(gaps.path, engine, updated_gaps(gaps, verdicts))
            outcome.updated_gap_files.append(str(gaps.path))

    if bench.baseline is not None:
        comparison = compare(bench.baseline, bench.results)
        outcome.comparison = comparison
        outcome.baseline_path = str(bench.baseline_path) if bench.baseline_path else None
        outcome.known_gap_ids = {comparison_id(row, comparison.single_engine) for row in gap_rows}
        outcome.blocking_regressions = [c for c in comparison.regressions if c not in outcome.known_gap_ids]
        outcome.regression_rule = bench.regression_rule
        if bench.fail_on_regression:
            outcome.reasons += regression_reasons(comparison, outcome.blocking_regressions, bench.regression_rule)

    if bench.snapshot_mode != "off":
        outcome.snapshot_mode = bench.snapshot_mode
        for engine in bench.engine_names:
            _check_engine_snapshots(bench, engine, outcome)

    if repeats > 1 and bench.repeat_policy != "all":
        # Failed generations read XFAIL (see collect.py): the items the policy judges not correct fail here.
        gap_keys = {(row.engine, row.key) for row in gap_rows}
        failing = [
            _label(row)
            for row in items
            if row.auto_evaluable and row.verdict != "correct" and (row.engine, row.key) not in gap_keys
        ]
        if failing:
            outcome.reasons.append(
                f"{len(failing)} item(s) not correct under the {bench.repeat_policy!r} repeat policy: "
                + ", ".join(failing)
            )
    if repeats > 1 and bench.repeat_policy != "all" and bench.other_failures == 0:
        verdict_of = {(row.engine, row.key): row.verdict for row in items}
        if bench.verdict_failures and all(verdict_of.get(k) == "correct" for k in bench.verdict_failures):
            outcome.excused = sorted(f"{key} [{engine}]" for engine, key in bench.verdict_failures)
    return outcome


def _check_engine_snapshots(bench: BenchSession, engine: str, outcome: GateOutcome) -> None:
    received = received_snapshots(bench.results, engine)
    if not received:
        return
    path = snapshot_path(bench.settings.base_dir, engine)
    check = check_snapshots(path, engine, received)
    if bench.update_snapshots:
        update_snapshots(path, received)
        check.updated = True
    elif bench.snapshot_mode == "strict" and (check.changed or check.new):
        outcome.reasons.append(
            f"{engine}: {len(check.changed)} transcript(s) differ from their snapshot and {len(check.new)} have "
            f"none in {path} (--snapshot-update records them)"
        )
    outcome.snapshots.append(check)


def final_status(outcome: GateOutcome, status: int) -> int:
    """The session's exit status once the gate has spoken.

    Only a clean (0) or failed (1) run is touched: a gate failure turns 0 into 1, and a run whose
    only failures are generations of items the repeat policy judges correct turns 1 into 0.
    Interrupted runs, usage and internal errors keep their own status.
    """
    if status not in (0, 1):
        return status
    failed = status == 1 and not outcome.excused
    return 1 if failed or outcome.reasons else 0


def gate_path(results_path: Path) -> Path:
    """``results.jsonl`` → ``results.gate.json`` beside it."""
    return results_path.with_name(f"{results_path.stem}.gate.json")


def write_gate(path: Path, outcome: GateOutcome) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(outcome.to_dict(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
