"""Both protocols' figures side by side, and the targets that differ, by rule and direction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_ttsbench.figures.summary import overall
from pytest_ttsbench.protocols import PROTOCOLS, difference_tally, has_both, items_by_protocol, under_protocol
from pytest_ttsbench.run_model.reader import Run
from pytest_ttsbench.run_model.results import ItemResult


def figures_by_protocol(run: Run) -> dict[str, dict[str, Any]]:
    """Correct/wrong/unknown and the rates under each protocol every row of the run records."""
    return {protocol: _figures(items) for protocol, items in items_by_protocol(run).items()}


def _figures(items: Sequence[ItemResult]) -> dict[str, Any]:
    bucket = overall(items)
    return {
        "correct": bucket.correct,
        "wrong": bucket.wrong,
        "unknown": bucket.unknown,
        "strict_accuracy": bucket.strict_accuracy,
        "resolved_accuracy": bucket.resolved_accuracy,
        "coverage": bucket.coverage,
    }


def figures_text(figures: dict[str, Any] | None) -> str:
    """``468/61/463 (47.18%)``: correct/wrong/unknown and strict accuracy; '—' when not recorded."""
    if not figures:
        return "—"
    accuracy = figures.get("strict_accuracy")
    shown = "—" if accuracy is None else f"{100 * accuracy:.2f}%"
    return f"{figures['correct']}/{figures['wrong']}/{figures['unknown']} ({shown})"


def tally_lines(items: Sequence[ItemResult], system: str | None = None, examples: int = 2) -> list[str]:
    """For rows of one generation each (a rescore): both figures, then each rule that moves
    targets ('  scores read with 至: 189 unknown → wrong') with examples."""
    if not items or not has_both(items):
        return []
    figures = {p: _figures([under_protocol(r, p) for r in items]) for p in PROTOCOLS}
    head = f"{system}: " if system else ""
    lines = [
        f"{head}published {figures_text(figures['published'])}, strict {figures_text(figures['strict'])} "
        "(correct/wrong/unknown, strict accuracy)"
    ]
    differences = difference_tally(items, examples)
    if not differences:
        lines.append("  no target differs between the protocols")
    for difference in differences:
        lines.append(f"  {difference}")
        lines.extend(f"    e.g. {example}" for example in difference.examples)
    return lines
