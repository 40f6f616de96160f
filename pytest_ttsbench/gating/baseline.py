"""Comparing a run with an earlier one, target by target.

Each auto-evaluable target present in both runs is a pair: a *regression* went from correct
to anything else, a *fix* from anything else to correct, and everything else is *unchanged*
(strict correctness, as in every other figure: an unknown turning wrong is not a change).
Targets only in the new run are *new*, only in the old one *missing*. The exact two-sided
McNemar test on the discordant pairs (regressions vs fixes) says whether the difference is
more than chance, overall and per category.

Pairs are matched on (engine, target key). When each side holds a single engine, the engine
names are ignored, so ``espeak-1.51`` can be compared with ``espeak-1.52``. Several generations
of one item (``--tts-repeats``) are first reduced to one verdict per item by the repeat policy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_ttsbench.gating.repeats import aggregate
from pytest_ttsbench.provenance import RunHeader, differences, recognizer_changes
from pytest_ttsbench.results import ItemResult
from pytest_ttsbench.stats import mcnemar_exact


@dataclass
class CategoryComparison:
    """Regressions and fixes of one category."""

    regressions: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def mcnemar_p(self) -> float:
        return mcnemar_exact(len(self.regressions), len(self.fixes))

    def to_dict(self) -> dict[str, Any]:
        return {
            "regressions": list(self.regressions),
            "fixes": list(self.fixes),
            "unchanged": self.unchanged,
            "mcnemar_p": self.mcnemar_p,
        }


@dataclass
class Comparison(CategoryComparison):
    """A baseline run against a candidate run: the overall figures, plus new, missing and per category."""

    new: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    by_category: dict[str, CategoryComparison] = field(default_factory=dict)
    #: ids are bare target keys when each side held one engine, else ``<key>@<engine>``
    single_engine: bool = True
    #: what differs between the two runs' headers (``field: old → new``); see provenance.differences
    changes: list[str] = field(default_factory=list)
    #: the subset that concerns the recognizer: verdict changes may then be the recognizer's
    recognizer_changes: list[str] = field(default_factory=list)
    #: None when both runs have a header; else why the runs' configurations could not be compared
    provenance_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        mcnemar_p = data.pop("mcnemar_p")
        data.update(new=list(self.new), missing=list(self.missing), mcnemar_p=mcnemar_p)
        data.update(
            changes=list(self.changes),
            recognizer_changes=list(self.recognizer_changes),
            provenance_note=self.provenance_note,
        )
        data["by_category"] = {name: cat.to_dict() for name, cat in sorted(self.by_category.items())}
        return data


def comparison_id(row: ItemResult, single_engine: bool) -> str:
    """How a target is named in a comparison: its key, plus ``@engine`` when engines matter."""
    return row.key if single_engine else f"{row.key}@{row.engine}"


def _keyed(results: list[ItemResult], single_engine: bool) -> dict[str, ItemResult]:
    return {comparison_id(row, single_engine): row for row in results if row.auto_evaluable}


def compare(baseline: Iterable[ItemResult], candidate: Iterable[ItemResult], repeat_policy: str = "all") -> Comparison:
    """Classify every target of two runs; ids in each list are sorted."""
    old, _ = aggregate(baseline, repeat_policy)
    new, _ = aggregate(candidate, repeat_policy)
    single = len({r.engine for r in old}) <= 1 and len({r.engine for r in new}) <= 1
    before, after = _keyed(old, single), _keyed(new, single)
    result = Comparison(single_engine=single)
    for cid in sorted(before.keys() & after.keys()):
        was, now = before[cid].verdict == "correct", after[cid].verdict == "correct"
        category = result.by_category.setdefault(after[cid].category, CategoryComparison())
        if was and not now:
            result.regressions.append(cid)
            category.regressions.append(cid)
        elif now and not was:
            result.fixes.append(cid)
            category.fixes.append(cid)
        else:
            result.unchanged += 1
            category.unchanged += 1
    result.new = sorted(after.keys() - before.keys())
    result.missing = sorted(before.keys() - after.keys())
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


def comparison_lines(comparison: Comparison, known_gaps: Iterable[str] = ()) -> list[str]:
    """The comparison as text (terminal summary and ``ttsbench compare``)."""
    gaps = set(known_gaps)
    paired = len(comparison.regressions) + len(comparison.fixes) + comparison.unchanged
    lines = [
        f"{paired} paired target(s): {len(comparison.regressions)} regression(s), {len(comparison.fixes)} fix(es), "
        f"{comparison.unchanged} unchanged; {len(comparison.new)} new, {len(comparison.missing)} missing; "
        f"McNemar exact p = {comparison.mcnemar_p:.4g}"
    ]
    for name, category in sorted(comparison.by_category.items()):
        if category.regressions or category.fixes:
            lines.append(
                f"  {name}: {len(category.regressions)} regression(s), {len(category.fixes)} fix(es), "
                f"{category.unchanged} unchanged; p = {category.mcnemar_p:.4g}"
            )
    lines += [f"  regressed: {cid}{' (known gap)' if cid in gaps else ''}" for cid in comparison.regressions]
    lines += [f"  fixed:     {cid}" for cid in comparison.fixes]
    lines += [f"  new:       {cid}" for cid in comparison.new]
    lines += [f"  missing:   {cid}" for cid in comparison.missing]
    return lines + provenance_lines(comparison)
