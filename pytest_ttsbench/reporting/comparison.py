"""A baseline comparison as text: the terminal summary, ``ttsbench compare`` and, for what changed
between the runs, the HTML report and the dashboard (the comparison itself: gating/baseline.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pytest_ttsbench.run_model.item_content import CONTENT_FIELDS

if TYPE_CHECKING:
    from pytest_ttsbench.gating.baseline import AudioChange, Change, Comparison, ContentChange


def audio_line(audio: AudioChange) -> str:
    """``audio: 4 paired clip(s), mean 1.80 s -> 1.00 s; speaking rate 10.0 -> 18.0 chars/s (1.80x)``"""
    return (
        f"audio: {audio.n} paired clip(s), mean {audio.seconds_before / audio.n:.2f} s -> "
        f"{audio.seconds_after / audio.n:.2f} s; speaking rate {audio.rate_before:.1f} -> {audio.rate_after:.1f} "
        f"chars/s ({audio.speed_ratio:.2f}x)"
    )


def content_change_line(change: ContentChange) -> str:
    """``text: 'It opened in 2026.' -> 'It opened in 1999.'; expected: … -> …``"""
    parts = []
    for name in change.fields:
        if name in CONTENT_FIELDS:
            parts.append(f"{name}: {getattr(change.before, name)!r} -> {getattr(change.after, name)!r}")
        else:
            parts.append(f"{name} differs")
    return "; ".join(parts)


def comparison_lines(comparison: Comparison, known_gaps: Iterable[str] = ()) -> list[str]:
    """The comparison as text (terminal summary and ``ttsbench compare``)."""
    gaps = set(known_gaps)
    lines = [
        f"{comparison.paired} paired target(s): {len(comparison.regressions)} regression(s), "
        f"{len(comparison.fixes)} fix(es), {comparison.unchanged} unchanged"
        + (f", {len(comparison.flaky)} flaky" if comparison.flaky else "")
        + f"; {len(comparison.new)} new, {len(comparison.missing)} missing"
        + (f", {len(comparison.changed)} changed since the baseline (not compared)" if comparison.changed else "")
        + f"; McNemar exact p = {comparison.mcnemar_p:.4g}"
    ]
    for name, category in sorted(comparison.by_category.items()):
        if category.regressions or category.fixes or category.flaky:
            lines.append(
                f"  {name}: {len(category.regressions)} regression(s), {len(category.fixes)} fix(es), "
                f"{category.unchanged} unchanged; p = {category.mcnemar_p:.4g}"
            )
    if comparison.audio is not None:
        lines.append("  " + audio_line(comparison.audio))
    for cid in [*comparison.regressions, *comparison.fixes, *comparison.flaky]:
        change = comparison.details[cid]
        label = {"regression": "regressed:", "fix": "fixed:    ", "flaky": "flaky:    "}[change.kind]
        lines.append(f"  {label} {cid}{' (known gap)' if cid in gaps else ''}")
        lines += ["    " + line for line in change_detail(change)]
    lines += [f"  new:       {cid}" for cid in comparison.new]
    lines += [f"  missing:   {cid}" for cid in comparison.missing]
    for cid in comparison.changed:
        lines.append(f"  changed since the baseline, not compared: {cid}")
        lines.append(f"    {content_change_line(comparison.changed_details[cid])}")
    return lines + provenance_lines(comparison)


def change_detail(change: Change) -> list[str]:
    """Text, before/after transcripts and clips, and the duration change of one pair."""
    lines = [f"text:   {change.text}"]
    for label, side in (("before", change.before), ("after ", change.after)):
        verdicts = f"{side.correct}/{len(side.rows)} correct"
        heard = " | ".join(str(row.transcript) for row in side.rows)
        lines.append(f"{label}: {verdicts}, heard: {heard}")
        clip = next((row.audio_path for row in side.rows if row.audio_path), None)
        if clip:
            lines.append(f"        clip: {clip}")
    ratio = change.duration_ratio
    if ratio is not None:
        lines.append(f"duration {change.before.seconds:.2f} s -> {change.after.seconds:.2f} s ({ratio:.2f}x)")
    return lines


def provenance_lines(comparison: Comparison) -> list[str]:
    """What changed between the runs, and the warning a recognizer change calls for."""
    lines = []
    if comparison.provenance_note:
        lines.append(f"note: {comparison.provenance_note}")
    if comparison.changes:
        lines.append("changed since the baseline:")
        lines += [f"  {change}" for change in comparison.changes]
    if comparison.recognizer_changes:
        lines += [f"{change}: verdict changes may be the recognizer's" for change in comparison.recognizer_changes]
    return lines
