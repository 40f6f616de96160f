"""Comparing a run with an earlier one, item by item, and deciding whether the change is a regression.

Each auto-evaluable target present in both runs is a pair. A target may have several generations
(``--tts-repeats`` or a profile's ``repeats``); each side is then summarized by its *correct rate*
and its *majority verdict* (correct when more than half of the generations were), and a side
whose generations disagree is *flaky*. A pair is

* a *regression* when the majority verdict went from correct to anything else,
* a *fix* when it went from anything else to correct,
* *flaky* when the majority flipped but both sides were flaky: a coin that landed differently
  twice is not evidence either way, so it never counts as a fix or a regression on its own;
* *unchanged* otherwise (an unknown turning wrong is not a change: correctness is strict, as in
  every other figure).

With one generation per side nothing is flaky and this is the plain before/after comparison.
Targets only in the new run are *new*, only in the old one *missing*. A target whose content
changed between the runs (its text, expected value, scorer, readings target, text contract or
language: see item_content.py) is *changed since the baseline, not compared*: its verdicts
answer different questions, so it is neither a pair, nor new, nor missing. The exact two-sided
McNemar test on the discordant pairs (regressions vs fixes) says whether the difference is more
than chance, overall and per category; :class:`RegressionRule` turns that, a count and a rate
into the gate's decision.

Pairs are matched on (engine, target key). When each side holds a single engine, the engine
names are ignored, so ``espeak-1.51`` can be compared with ``espeak-1.52``.

Beside the verdicts, each changed pair carries what changed in the audio (duration, speaking
rate in characters of text per second) and what was heard before and after, so a regression
points at its cause: a voice sped up 1.8× shows as such.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, ClassVar

from pytest_ttsbench.gating.bounds import BREACHED, HELD, NOT_MEASURED, Judged, RunFacts
from pytest_ttsbench.run_model.item_content import CONTENT_FIELDS, content_changes
from pytest_ttsbench.run_model.provenance import RunHeader, differences, recognizer_changes
from pytest_ttsbench.run_model.repeats import group_generations
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.plugin_options import DEFAULT_ALPHA as DEFAULT_ALPHA
from pytest_ttsbench.support.plugin_options import DEFAULT_MAX_RATE as DEFAULT_MAX_RATE
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, record_dict
from pytest_ttsbench.support.stats import mcnemar_exact

#: The gate's defaults, measured on the stochastic fake (see README, "Regression gate").


@dataclass(frozen=True)
class Side:
    """One target on one side of a comparison: its generations, summarized."""

    rows: tuple[ItemResult, ...]

    @property
    def first(self) -> ItemResult:
        return self.rows[0]

    @property
    def correct(self) -> int:
        return sum(1 for row in self.rows if row.verdict == "correct")

    @property
    def rate(self) -> float:
        return self.correct / len(self.rows)

    @property
    def majority_correct(self) -> bool:
        return 2 * self.correct > len(self.rows)

    @property
    def flaky(self) -> bool:
        return 0 < self.correct < len(self.rows)

    @property
    def seconds(self) -> float | None:
        """Mean clip duration over the generations that have one."""
        values = [row.audio_seconds for row in self.rows if row.audio_seconds]
        return fmean(values) if values else None

    @property
    def chars_per_second(self) -> float | None:
        seconds = self.seconds
        return spoken_characters(self.first.text) / seconds if seconds else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdicts": [row.verdict for row in self.rows],
            "correct_rate": round(self.rate, 4),
            "flaky": self.flaky,
            "transcripts": [row.transcript for row in self.rows],
            "audio_paths": [row.audio_path for row in self.rows],
            "audio_seconds": _round(self.seconds),
            "chars_per_second": _round(self.chars_per_second),
        }


def spoken_characters(text: str) -> int:
    """Characters that are spoken (no spaces): a speaking-rate unit that works for every script."""
    return sum(1 for ch in text if not ch.isspace())


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


@dataclass(frozen=True)
class Change:
    """One paired target whose verdict moved (or wavered), with what was said and heard on each side."""

    id: str
    kind: str  # "regression", "fix" or "flaky"
    category: str
    text: str
    before: Side
    after: Side

    @property
    def duration_ratio(self) -> float | None:
        """After / before clip duration (0.56 for a voice sped up 1.8×)."""
        if self.before.seconds and self.after.seconds:
            return self.after.seconds / self.before.seconds
        return None

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, computed={"duration_ratio": _round(self.duration_ratio)})


@dataclass(frozen=True)
class ContentChange:
    """A target whose content changed since the baseline: not compared, shown with both sides."""

    id: str
    fields: tuple[str, ...]  # the content fields that differ (see item_content.CONTENT_FIELDS)
    before: ItemResult
    after: ItemResult

    def to_dict(self) -> dict[str, Any]:
        shown = [name for name in CONTENT_FIELDS if name in self.fields] or ["text"]
        return {
            "id": self.id,
            "fields": list(self.fields),
            "before": {name: getattr(self.before, name) for name in shown},
            "after": {name: getattr(self.after, name) for name in shown},
        }


def _content_changes(before: Side, after: Side) -> tuple[str, ...]:
    """The content fields in which any generation of one side differs from any of the other."""
    changed = {name for was in before.rows for now in after.rows for name in content_changes(was, now)}
    return tuple(name for name in (*CONTENT_FIELDS, "content_sha256") if name in changed)


#: the keys of a comparison in the files that hold one, in their order there
_CATEGORY_COMPARISON_LAYOUT = ("regressions", "fixes", "flaky", "unchanged", "mcnemar_p")
_COMPARISON_LAYOUT = (
    "regressions", "fixes", "flaky", "unchanged", "new", "missing", "mcnemar_p", "changed", "changed_details",
    "by_category", "details", "audio", "changes", "recognizer_changes", "provenance_note",
)  # fmt: skip


@dataclass
class CategoryComparison:
    """Regressions and fixes of one category."""

    regressions: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    unchanged: int = 0
    flaky: list[str] = field(default_factory=list)

    @property
    def paired(self) -> int:
        return len(self.regressions) + len(self.fixes) + len(self.flaky) + self.unchanged

    @property
    def mcnemar_p(self) -> float:
        return mcnemar_exact(len(self.regressions), len(self.fixes))

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, computed={"mcnemar_p": self.mcnemar_p}, order=_CATEGORY_COMPARISON_LAYOUT)


@dataclass(frozen=True)
class AudioChange:
    """Clip duration and speaking rate over every paired target that has a clip on both sides."""

    n: int
    seconds_before: float
    seconds_after: float
    chars: int

    @property
    def duration_ratio(self) -> float:
        return self.seconds_after / self.seconds_before

    @property
    def rate_before(self) -> float:
        return self.chars / self.seconds_before

    @property
    def rate_after(self) -> float:
        return self.chars / self.seconds_after

    @property
    def speed_ratio(self) -> float:
        """How much faster the new voice speaks (1.8 for a 1.8× speed-up)."""
        return self.seconds_before / self.seconds_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "seconds_before": round(self.seconds_before, 3),
            "seconds_after": round(self.seconds_after, 3),
            "chars_per_second_before": round(self.rate_before, 3),
            "chars_per_second_after": round(self.rate_after, 3),
            "speed_ratio": round(self.speed_ratio, 3),
        }


@dataclass
class Comparison(CategoryComparison):
    """A baseline run against a candidate run: the overall figures, plus new, missing and per category."""

    new: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: targets in both runs whose content changed: not compared (neither paired, new nor missing)
    changed: list[str] = field(default_factory=list)
    #: written as a list, in the order of ``changed``
    changed_details: dict[str, ContentChange] = field(default_factory=dict, metadata=NOT_WRITTEN)
    #: written by category name
    by_category: dict[str, CategoryComparison] = field(default_factory=dict, metadata=NOT_WRITTEN)
    #: ids are bare target keys when each side held one engine, else ``<key>@<engine>``
    single_engine: bool = field(default=True, metadata=NOT_WRITTEN)
    #: regressions, fixes and flaky pairs in detail, by id (written as a list)
    details: dict[str, Change] = field(default_factory=dict, metadata=NOT_WRITTEN)
    audio: AudioChange | None = None
    #: what differs between the two runs' headers (``field: old → new``); see provenance.differences
    changes: list[str] = field(default_factory=list)
    #: the subset that concerns the recognizer: verdict changes may then be the recognizer's
    recognizer_changes: list[str] = field(default_factory=list)
    #: None when both runs have a header; else why the runs' configurations could not be compared
    provenance_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        computed = {
            "mcnemar_p": self.mcnemar_p,
            "changed_details": [self.changed_details[cid] for cid in self.changed],
            "by_category": dict(sorted(self.by_category.items())),
            "details": list(self.details.values()),
        }
        return record_dict(self, computed=computed, order=_COMPARISON_LAYOUT)


def comparison_id(row: ItemResult, single_engine: bool) -> str:
    """How a target is named in a comparison: its key, plus ``@engine`` when engines matter."""
    return row.key if single_engine else f"{row.key}@{row.engine}"


def _sides(results: Iterable[ItemResult], single_engine: bool) -> dict[str, Side]:
    grouped = group_generations(row for row in results if row.auto_evaluable)
    return {comparison_id(rows[0], single_engine): Side(tuple(rows)) for rows in grouped.values()}


def classify(before: Side, after: Side) -> str:
    """``regression``, ``fix``, ``flaky`` or ``unchanged`` for one pair (see the module docstring)."""
    was, now = before.majority_correct, after.majority_correct
    if was == now:
        return "unchanged"
    if before.flaky and after.flaky:
        return "flaky"
    return "regression" if was else "fix"


def compare(baseline: Iterable[ItemResult], candidate: Iterable[ItemResult]) -> Comparison:
    """Classify every target of two runs; ids in each list are sorted."""
    old, new = list(baseline), list(candidate)
    single = len({r.engine for r in old}) <= 1 and len({r.engine for r in new}) <= 1
    before, after = _sides(old, single), _sides(new, single)
    result = Comparison(single_engine=single)
    clips: list[tuple[float, float, int]] = []
    for cid in sorted(before.keys() & after.keys()):
        was, now = before[cid], after[cid]
        changed = _content_changes(was, now)
        if changed:  # another question under the same id: its verdicts are not comparable
            result.changed.append(cid)
            result.changed_details[cid] = ContentChange(cid, changed, was.first, now.first)
            continue
        category = result.by_category.setdefault(now.first.category, CategoryComparison())
        kind = classify(was, now)
        if kind == "unchanged":
            result.unchanged += 1
            category.unchanged += 1
        else:
            {"regression": result.regressions, "fix": result.fixes, "flaky": result.flaky}[kind].append(cid)
            {"regression": category.regressions, "fix": category.fixes, "flaky": category.flaky}[kind].append(cid)
            result.details[cid] = Change(cid, kind, now.first.category, now.first.text, was, now)
        if was.seconds and now.seconds:
            clips.append((was.seconds, now.seconds, spoken_characters(now.first.text)))
    result.new = sorted(after.keys() - before.keys())
    result.missing = sorted(before.keys() - after.keys())
    if clips:
        result.audio = AudioChange(
            n=len(clips),
            seconds_before=sum(c[0] for c in clips),
            seconds_after=sum(c[1] for c in clips),
            chars=sum(c[2] for c in clips),
        )
    return result


def attach_provenance(comparison: Comparison, before: RunHeader | None, after: RunHeader | None) -> Comparison:
    """Record what changed between the runs' headers, and whether the recognizer did."""
    if before is None or after is None:
        which = "baseline" if before is None else "candidate"
        comparison.provenance_note = f"the {which} has no run header: cannot tell whether the recognizer changed"
        return comparison
    comparison.changes = differences(before, after)
    comparison.recognizer_changes = recognizer_changes(before, after)
    return comparison


@dataclass(frozen=True)
class Blame:
    """Which of a comparison's regressions the regression rule counts against the voice; the gate and
    ``ttsbench compare --fail-on-regression`` both ask :func:`blame`, so they count the same ones."""

    known_gap_ids: frozenset[str]  # targets that are known gaps: their changes are never counted
    blocking: tuple[str, ...]  # the regressions the rule counts
    unattributed: tuple[str, ...]  # not blamed on the voice: another recognizer or decoding mode


def blame(comparison: Comparison, known_gap_rows: Iterable[ItemResult], allow_asr_change: bool) -> Blame:
    """A known gap's regression is expected; with another recognizer or decoding mode, a verdict change
    is not evidence against the voice unless ``allow_asr_change`` says to count it."""
    gaps = frozenset(comparison_id(row, comparison.single_engine) for row in known_gap_rows)
    counted = tuple(c for c in comparison.regressions if c not in gaps)
    if comparison.recognizer_changes and not allow_asr_change:
        return Blame(gaps, (), counted)
    return Blame(gaps, counted, ())


@dataclass(frozen=True)
class RegressionRule:
    """When regressions against a baseline fail the gate.

    Any of: the regressions outnumber the fixes and the exact McNemar p-value is below ``alpha``
    (overall, or in one category); more than ``max_count`` regressions; more than ``max_rate`` of
    the paired targets regressed. ``None`` switches a count or rate rule off.
    """

    alpha: float = DEFAULT_ALPHA
    max_count: int | None = None
    max_rate: float | None = DEFAULT_MAX_RATE
    kind: ClassVar[str] = "regression rule"

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)

    def judge(self, run: RunFacts) -> list[Judged]:
        """The rule as one bound over the baseline's targets (``run.comparison``, and the regressions
        that count, ``run.blocking_regressions``: known gaps and changes another recognizer may explain
        left out).

        ``breached`` when the regressions meet the rule; else ``not measured`` when a target of the
        baseline has no row in the candidate (deselected with ``-k``, another engine, a shard cut
        short): whether it still works is not known, so it fails like every bound that judged
        nothing unless the run allows unmeasured bounds; else ``held``.
        """
        comparison: Comparison | None = run.comparison
        assert comparison is not None, "the regression rule is asked only of a run compared with a baseline"
        reasons = tuple(regression_reasons(comparison, run.blocking_regressions, self))
        missing = comparison.missing
        status = BREACHED if reasons else NOT_MEASURED if missing else HELD
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        detail = f"{len(missing)} target(s) of the baseline not run: {shown}" if missing else ""
        return [Judged(self.kind, "against the baseline", "--tts-fail-on-regression", status, None, detail, reasons)]


def regression_reasons(comparison: Comparison, blocking: Sequence[str], rule: RegressionRule) -> list[str]:
    """Why the regressions fail the gate (empty: they do not). ``blocking`` excludes known gaps."""
    if not blocking:
        return []
    blocked = set(blocking)
    named = ", ".join(blocking)
    why: list[str] = []
    n_fixes = len(comparison.fixes)
    if len(blocking) > n_fixes:
        p = mcnemar_exact(len(blocking), n_fixes)
        if p < rule.alpha:
            why.append(f"significant overall (McNemar exact p = {p:.3g} < alpha {rule.alpha:g})")
    for name, category in sorted(comparison.by_category.items()):
        count = sum(1 for cid in category.regressions if cid in blocked)
        if count > len(category.fixes):
            p = mcnemar_exact(count, len(category.fixes))
            if p < rule.alpha:
                why.append(f"significant in {name} (p = {p:.3g} < alpha {rule.alpha:g})")
    if rule.max_count is not None and len(blocking) > rule.max_count:
        why.append(f"more than {rule.max_count} regression(s)")
    paired = comparison.paired
    if rule.max_rate is not None and paired and len(blocking) / paired > rule.max_rate:
        why.append(f"{len(blocking) / paired:.1%} of {paired} paired targets regressed (> {rule.max_rate:.1%})")
    if not why:
        return []
    return [f"{len(blocking)} regression(s) against the baseline ({'; '.join(why)}): {named}"]
