"""The summary table printed at the end of a pytest run (and by ``ttsbench rescore``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_ttsbench.figures.summary import Bucket, summarize
from pytest_ttsbench.figures.workflow import workflow_figures
from pytest_ttsbench.gating.bounds import BREACHED, HELD, STATUSES, TOO_FEW
from pytest_ttsbench.gating.snapshots import DRAW, FIXED, KNOWN_GAP
from pytest_ttsbench.reporting.comparison import comparison_lines
from pytest_ttsbench.reporting.gate_file import exit_reasons
from pytest_ttsbench.run_model.pinned_recognizer import recognizer_mismatches
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.text import shown_path

if TYPE_CHECKING:
    from pytest_ttsbench.gating.gate import GateOutcome
    from pytest_ttsbench.gating.snapshots import SnapshotCheck


@dataclass(frozen=True)
class SessionSummary:
    """What the reports show of a finished session: its items (after the repeat policy), breakdown
    facets and gate; the terminal summary and the HTML report read the same one."""

    items: Sequence[ItemResult]
    breakdown: Sequence[str] = ()
    gate: GateOutcome | None = None  # None when nothing was gated
    #: every generation's row, for the quality summary (``items`` holds one row per item)
    results: Sequence[ItemResult] = ()


class _Writer(Protocol):
    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None: ...
    def write_line(self, line: str, **markup: bool) -> None: ...


def one_line(serialized: str) -> str:
    """A serialized transcript folded onto one line."""
    return " ".join(serialized.split())


def percent(value: float | None, missing: str = "-") -> str:
    """A rate as every human-facing table shows it (``74.5%``): summary, gate, HTML and leaderboard."""
    return missing if value is None else f"{100 * value:.1f}%"


def _pct(value: float | None) -> str:
    return percent(value).rjust(6)


def _interval(bucket: Bucket) -> str:
    ci = bucket.ci95
    return "-" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]], figures: int = 7) -> list[str]:
    """A plain aligned text table (left-aligned labels, right-aligned figures: the last ``figures`` columns)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for index, row in enumerate(cells):
        parts = [
            cell.ljust(widths[i]) if i < len(header) - figures else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append("  ".join(parts).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


FIGURE_HEADER = ("n", "correct", "wrong", "unknown", "error", "strict acc", "95% CI")


def bucket_row(labels: Sequence[str], bucket: Bucket) -> list[Any]:
    return [
        *labels,
        bucket.n,
        bucket.correct,
        bucket.wrong,
        bucket.unknown,
        bucket.error,
        _pct(bucket.strict_accuracy),
        _interval(bucket),
    ]


def summary_lines(results: Sequence[ItemResult], breakdown: Sequence[str] = ()) -> list[str]:
    """The category table per engine × suite, then the engine totals and any facet breakdowns."""
    lines: list[str] = []
    by_category = summarize(results, ["engine", "suite", "category"])
    totals = summarize(results, ["engine", "suite"])
    rows: list[list[Any]] = []
    for key in sorted(by_category):
        rows.append(bucket_row(key, by_category[key]))
    for key in sorted(totals):
        rows.append(bucket_row([key[0], key[1], "(all)"], totals[key]))
    lines += format_table(("engine", "suite", "category", *FIGURE_HEADER), rows)
    for facet in breakdown:
        grouped = summarize(results, ["engine", "suite", f"facet:{facet}"])
        lines.append("")
        lines.append(f"by facet {facet!r}:")
        lines += format_table(
            ("engine", "suite", facet, *FIGURE_HEADER), [bucket_row(k, grouped[k]) for k in sorted(grouped)]
        )
    excluded = sum(b.excluded for b in totals.values())
    if excluded:
        lines.append(f"{excluded} target(s) not auto-evaluable: recorded, excluded from accuracy")
    lines += [mismatch.line() for mismatch in recognizer_mismatches(results)]
    return lines


def write_summary(
    writer: _Writer,
    results: Sequence[ItemResult],
    breakdown: Sequence[str],
    results_path: Path | None,
    notes: Sequence[str] = (),
    base: Path | None = None,
) -> None:
    """Print the summary section of a pytest run; ``notes`` come first (e.g. items left out by language).

    Paths are shown relative to ``base`` (the invocation directory) when inside it.
    """
    writer.write_sep("=", "ttsbench summary")
    for line in notes:
        writer.write_line(line)
    for line in summary_lines(results, breakdown):
        writer.write_line(line)
    flagged = [r for r in results if r.asr_flags]
    if flagged:
        writer.write_line(f"{len(flagged)} transcript(s) flagged by ASR guards (see asr_flags in the results)")
    if results_path is not None:
        writer.write_line(f"results: {shown_path(results_path, base)}")


def write_run_sections(
    writer: _Writer,
    finished: SessionSummary | None,
    notes: Sequence[str],
    *,
    synth_only: bool,
    results_path: Path | None,
    base: Path | None,
) -> None:
    """The benchmark's sections of a pytest run's terminal output, decisions first: the summary
    (after ``notes``, such as items left out by language), the gate, then the figures apart from
    accuracy (timing, audio quality). ``finished`` None: nothing ran."""
    if finished is None:
        if notes:  # everything selected was left out: say why
            writer.write_sep("=", "ttsbench summary")
            for line in notes:
                writer.write_line(line)
        return
    if synth_only:
        write_synth_only_summary(writer, finished.items, results_path)
    else:
        write_summary(writer, finished.items, finished.breakdown, results_path, notes, base)
        if finished.gate is not None:
            write_gate_summary(writer, finished.gate, base)
    write_figures_apart(writer, finished)


def write_figures_apart(writer: _Writer, finished: SessionSummary) -> None:
    """Timing per synthesis request and quality per clip: figures apart from accuracy, after the decision."""
    timing = workflow_lines(finished.results or finished.items)
    quality = quality_summary_lines(finished.results, finished.breakdown)
    if not (timing or quality):
        return
    writer.write_sep("=", "ttsbench timing and quality (apart from accuracy)")
    for line in [*timing, *([""] if timing and quality else []), *quality]:
        writer.write_line(line)


def write_synth_only_summary(writer: _Writer, results: Sequence[ItemResult], results_path: Path | None) -> None:
    """What a synthesize-only run left: clips per engine, the failed ones, and how to score them."""
    writer.write_sep("=", "ttsbench summary (synthesize-only: no ASR, no verdicts)")
    clips = {(r.engine, r.id): r for r in results}
    for engine in sorted({engine for engine, _ in clips}):
        rows = [r for (name, _), r in clips.items() if name == engine]
        failed = [r for r in rows if r.verdict == "error"]
        writer.write_line(f"{engine}: {len(rows) - len(failed)} clip(s) written, {len(failed)} failed")
    if results_path is not None:
        writer.write_line(f"results: {results_path}")
        profile = f"{{type: audio-dir, path: {results_path.parent}}}"
        writer.write_line(f"score them later: an engine profile {profile} and --tts-engine=NAME")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{1000 * value:.0f} ms"


def workflow_lines(results: Sequence[ItemResult]) -> list[str]:
    """Time to first audio byte and synthesis time per request, p50/p95 per engine (apart from accuracy)."""
    figures = workflow_figures(results)
    rows = [
        [engine, f.requests, _ms(f.first_byte.p50), _ms(f.first_byte.p95), _ms(f.synthesis.p50), _ms(f.synthesis.p95)]
        for engine, f in figures.items()
        if f.synthesis.n
    ]
    if not rows:
        return []
    header = ("engine", "requests", "first byte p50", "first byte p95", "synthesis p50", "synthesis p95")
    return ["workflow (per synthesis request):", *format_table(header, rows, figures=5)]


def _ci(interval: Sequence[float]) -> str:
    return f"[{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def floor_rows(outcome: GateOutcome) -> list[list[str]]:
    """One row per gated category: gate mark, engine, suite, category, correct/n, accuracy, floor, interval."""
    return [
        [
            {"breached": "FAIL", "passed": "ok"}.get(c["status"], "too few"),
            c["engine"],
            c["suite"],
            c["category"],
            f"{c['correct']}/{c['n']}",
            _pct(c["strict_accuracy"]),
            _pct(c["floor"]) + (" (lower)" if c["floor_on"] == "lower" else ""),
            _ci(c["ci95"]),
        ]
        for c in outcome.checks
    ]


GATE_HEADER = ("gate", "engine", "suite", "category", "correct/n", "strict acc", "floor", "95% CI")


def nondeterminism_lines(outcome: GateOutcome) -> list[str]:
    """What the run saw of engines that answer identical requests with different audio."""
    lines = []
    for engine, (varied, checked) in sorted(outcome.nondeterministic.items()):
        advice = (
            "set `repeats: 3` in its profile (or --tts-repeats 3) so verdicts are rates, not single draws"
            if outcome.repeats < 2
            else f"each item's verdict is taken over {outcome.repeats} generations"
        )
        lines.append(
            f"{engine} is not deterministic: identical requests gave different audio "
            f"({varied} of {checked} checked); {advice}"
        )
    return lines


def gate_lines(outcome: GateOutcome, base: Path | None = None) -> list[str]:
    """The release gate (a :class:`~pytest_ttsbench.gating.gate.GateOutcome`) as text lines.

    Each thing is said once: the floors as one table whose first column is each category's
    verdict, what else the gate looked at, then one line of outcome. Paths relative to ``base``.
    """
    lines: list[str] = list(outcome.unverified)
    if outcome.checks:
        lines += format_table(GATE_HEADER, floor_rows(outcome), figures=4)
    lines += known_gap_lines(outcome, base) + baseline_lines(outcome, base) + latency_lines(outcome)
    lines += snapshot_lines(outcome, base) + nondeterminism_lines(outcome) + repeat_lines(outcome)
    lines += quality_gate_lines(outcome)
    if outcome.coverage:
        lines.append("coverage: " + "; ".join(engine.describe() for engine in outcome.coverage))
    if outcome.missing_shards:
        lines.append(f"coverage: shard(s) {', '.join(outcome.missing_shards)} never ran (merged with --allow-partial)")
    lines += bound_lines(outcome)
    lines += [line for line in (outcome.cache.line(), outcome_line(outcome)) if line is not None]
    return lines


def known_gap_lines(outcome: GateOutcome, base: Path | None = None) -> list[str]:
    """Known gaps still failing and fixed, ids matching nothing, files rewritten."""
    if not (outcome.xfailed or outcome.fixed_gaps or outcome.unmatched_gaps or outcome.updated_gap_files):
        return []
    lines = [f"known gaps: {len(outcome.xfailed)} still failing (XFAIL), {len(outcome.fixed_gaps)} fixed (XPASS)"]
    lines += [f"  fixed known gap: {label}" for label in outcome.fixed_gaps]
    for engine, ids in sorted(outcome.unmatched_gaps.items()):
        lines += [f"  known gap matches no collected item ({engine}): {gap_id}" for gap_id in ids]
    return lines + [f"  rewrote {shown_path(path, base)}" for path in outcome.updated_gap_files]


def baseline_lines(outcome: GateOutcome, base: Path | None = None) -> list[str]:
    """What changed against the baseline, and regressions not blamed on the voice."""
    if outcome.comparison is None:
        return []
    lines = [f"baseline {shown_path(outcome.baseline_path or '', base)}:"]
    lines += ["  " + line for line in comparison_lines(outcome.comparison, outcome.known_gap_ids)]
    if outcome.unattributed_regressions:
        lines.append(
            f"  {len(outcome.unattributed_regressions)} regression(s) not blamed on the voice: the recognizer "
            "changed (--tts-allow-asr-change counts them)"
        )
    return lines


def latency_lines(outcome: GateOutcome) -> list[str]:
    """Each latency budget and slowdown rule with its figures."""
    lines = []
    for check in outcome.latency:
        measured = "-" if check.measured is None else f"{1000 * check.measured:.0f} ms"
        lines.append(
            f"latency {check.engine} {check.metric}: {measured} against a budget of {1000 * check.budget:.0f} ms "
            f"over {check.n} request(s): {check.status}"
        )
    return lines + [
        f"latency {change.engine} {change.metric}: {1000 * change.candidate:.0f} ms, baseline "
        f"{1000 * change.baseline:.0f} ms ({change.ratio:.2f}x, tolerance +{100 * change.tolerance:.0f}%)"
        for change in outcome.latency_changes
    ]


def repeat_lines(outcome: GateOutcome) -> list[str]:
    """Flaky items, and each item's generations when there were several."""
    lines = []
    if outcome.flaky:
        lines.append(f"flaky items ({len(outcome.flaky)}): generations disagree, the verdict is a rate")
        lines += [f"  {i.correct_count}/{len(i.verdicts)} correct  {i.key} [{i.engine}]" for i in outcome.flaky]
    if outcome.repeats < 2:
        return lines
    lines.append(
        f"repeats: {outcome.repeats} generations per item, policy {outcome.repeat_policy!r}; "
        f"{len(outcome.inconsistent)} of {len(outcome.repeated)} item(s) differed across generations"
    )
    lines += [
        f"  {item.verdict:<8} {item.correct_count}/{len(item.verdicts)} correct  "
        f"{item.key} [{item.engine}]: {', '.join(item.verdicts)}{'' if item.consistent else '  (differs)'}"
        for item in outcome.repeated
    ]
    if outcome.excused:
        lines.append(
            f"  {len(outcome.excused)} failed generation(s) belong to items correct under the policy: "
            "they do not fail the run"
        )
    return lines


#: bounds the terminal already shows with their status in a table or line of their own
_SHOWN_ELSEWHERE = ("latency budget", "latency slowdown", "snapshots", "coverage")


def bound_lines(outcome: GateOutcome) -> list[str]:
    """Every bound the gate enforced, counted by status (see gating/bounds.py), then one line per bound
    not already shown with its status above: the floors' and quality tables and the latency lines
    hold the measured ones, so each thing is said once."""
    bounds = outcome.judged
    if not bounds:
        return []
    counts = Counter(bound.status for bound in bounds)
    summary = ", ".join(f"{counts[status]} {status}" for status in STATUSES if counts[status])
    lines = [f"bounds: {summary}"]
    for bound in bounds:
        in_table = bound.kind == "floor" or bound.kind.startswith("quality") or bound.kind in _SHOWN_ELSEWHERE
        if in_table and bound.status in (HELD, BREACHED, TOO_FEW):
            continue
        lines.append(f"  {bound.status:<15} {bound.describe()}")
    return lines


def quality_summary_lines(results: Sequence[ItemResult], breakdown: Sequence[str] = ()) -> list[str]:
    """The one compact quality table (every generation's clip counts); empty when no row has quality figures."""
    from pytest_ttsbench.reporting import quality as quality_tables  # numpy and scipy: only for a run

    table = quality_tables.summary_table(results, breakdown)
    if table is None:
        return []
    header, rows, figures = table
    title = "quality per clip (mean ± half the bootstrap 95% interval; apart from accuracy):"
    return [title, *format_table(header, rows, figures=figures)]


def quality_gate_lines(outcome: GateOutcome) -> list[str]:
    """The quality gate table and the spread of each measure across generations."""
    from pytest_ttsbench.reporting import quality as quality_tables  # numpy and scipy: only for a run

    lines: list[str] = []
    table = quality_tables.gate_table(outcome)
    if table is not None:
        lines.append("quality gates (mean per engine × suite × category; apart from accuracy):")
        lines += format_table(*table[:2], figures=table[2])
        lines += ["  " + line for line in quality_tables.model_change_lines(outcome)]
    table = quality_tables.spread_table(outcome)
    if table is not None:
        lines.append("quality across generations (max − min per item; spk gen: similarity between generations):")
        lines += format_table(*table[:2], figures=table[2])
    return lines


def outcome_line(outcome: GateOutcome) -> str | None:
    """The gate's decision in one line (None when nothing was gated): the floors' table above holds
    the figures, so breached floors are counted here, not repeated."""
    unchecked = len(outcome.too_few)
    too_few = f"{unchecked} floor(s) with fewer targets than min_n not checked" if unchecked else ""
    if outcome.reasons:
        return "gate FAILED: " + "; ".join([*_failed_parts(outcome), *([too_few] if too_few else [])])
    if not (outcome.judged or outcome.comparison is not None or outcome.snapshots):
        return None
    passed = "gate passed" + (f" ({too_few})" if too_few else "")
    if outcome.exitstatus not in (None, 0):
        why = "; ".join(exit_reasons(outcome))
        return f"{passed}, but the run's failed tests fail it (exit status {outcome.exitstatus}): {why}"
    if outcome.gate_decides_exit and outcome.failed_items:
        return f"{passed}; the gate decides the exit status: {len(outcome.failed_items)} failed item(s) reported above"
    return passed


def _failed_parts(outcome: GateOutcome) -> list[str]:
    """Floors and quality gates have their tables above, verdict first: here they are counted; every
    other reason is said here only."""
    breached, quality = outcome.breaches, outcome.quality_breaches
    tabled = [e for e in outcome.judged if e.status == BREACHED and (e.kind == "floor" or e.kind.startswith("quality"))]
    in_tables = {reason for entry in tabled for reason in entry.reasons}
    parts = [f"{len(breached)} of {len(outcome.checks)} floors breached"] if breached else []
    if quality:
        parts.append(f"{len(quality)} of {len(outcome.quality_checks)} quality gates breached")
    return parts + [r for r in outcome.reasons if r not in in_tables]


#: what a changed snapshot that fails no run is, by the item's standing (gating/snapshots.py)
_EXCUSED = {
    FIXED: "now correct (a fix, not a failure)",
    KNOWN_GAP: "a known gap still failing (not a failure)",
    DRAW: "correct, the voice is not reproducible (a draw, not a failure)",
}


def snapshot_lines(outcome: GateOutcome, base: Path | None = None) -> list[str]:
    """Transcript snapshots, only where there is something to say.

    Reporting against snapshots nobody has recorded yet would list every transcript as new: that
    is one line saying how to start. Recorded snapshots, strict mode and an update are reported
    in full.
    """
    unrecorded = [
        check.engine
        for check in outcome.snapshots
        if outcome.snapshot_mode == "report"
        and not check.updated
        and not (check.matched or check.changed or check.unused)
    ]
    lines: list[str] = []
    if unrecorded:
        lines.append(
            f"snapshots: none recorded yet for {', '.join(unrecorded)}; --snapshot-update records this run's "
            "transcripts, later runs then report what changed"
        )
    for check in outcome.snapshots:
        if check.engine not in unrecorded:
            lines += _engine_snapshot_lines(check, outcome.snapshot_mode, base)
    return lines


def _engine_snapshot_lines(check: SnapshotCheck, mode: str, base: Path | None) -> list[str]:
    """One engine's snapshots: what changed (was, now), what has none yet."""
    lines = [
        f"snapshots ({mode}) {check.engine}: {check.summary()}"
        f"{'; updated' if check.updated else ''} [{shown_path(check.path, base)}]"
    ]
    changes = [(f"changed: {name}", was, now) for name, was, now in check.changed]
    changes += [(f"changed, {_EXCUSED[standing]}: {name}", was, now) for name, standing, was, now in check.excused]
    for title, stored, received in changes:
        lines += [f"  {title}", f"    was: {one_line(stored)}", f"    now: {one_line(received)}"]
    lines += [f"  no snapshot: {name}" for name in check.new[:10]]
    if len(check.new) > 10:
        lines.append(f"  ... and {len(check.new) - 10} more without a snapshot (record with --snapshot-update)")
    return lines


def write_gate_summary(writer: _Writer, outcome: GateOutcome, base: Path | None = None) -> None:
    """Print the release-gate section after the summary table."""
    lines = gate_lines(outcome, base)
    if not lines:
        return
    writer.write_sep("=", "ttsbench gate (strict accuracy against each floor)" if outcome.checks else "ttsbench gate")
    for line in lines:
        writer.write_line(line)
