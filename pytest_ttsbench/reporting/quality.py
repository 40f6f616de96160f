"""Quality measures as tables (header, rows): the compact summary, the quality gate and spreads across repeats.

The terminal (``terminal.py``) and the HTML report lay these rows out; this module formats figures only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.quality.summary import MeasureSummary, measures_present, summarize_quality
from pytest_ttsbench.run_model.results import ItemResult

if TYPE_CHECKING:
    from pytest_ttsbench.gating.gate import GateOutcome
    from pytest_ttsbench.gating.quality import QualityCheck

#: Short column titles, so the table of every chosen measure stays narrow.
SHORT_NAMES = {
    "dnsmos_ovrl": "ovrl",
    "dnsmos_sig": "sig",
    "dnsmos_bak": "bak",
    "dnsmos_p808": "p808",
    "clipping_ratio": "clip",
    "peak_dbfs": "peak dB",
    "loudness_lufs": "LUFS",
    "leading_silence_s": "lead s",
    "trailing_silence_s": "trail s",
    "longest_pause_s": "pause s",
    "speaking_rate": "chars/s",
    "speaker_similarity": "spk sim",
}


def figure(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def _cell(summary: MeasureSummary) -> str:
    """``mean ±half-width`` of the bootstrap interval (or the mean alone)."""
    if summary.mean is None:
        return "-"
    if summary.ci95 is None:
        return figure(summary.mean)
    return f"{figure(summary.mean)}±{figure((summary.ci95[1] - summary.ci95[0]) / 2)}"


Table = tuple[tuple[str, ...], list[list[Any]], int]  # header, rows, how many trailing columns are figures


def summary_table(results: Sequence[ItemResult], breakdown: Sequence[str] = ()) -> Table | None:
    """Mean ± half the bootstrap 95% interval per engine × suite × category (and facet), one column per measure.

    Medians and 10th percentiles are in the gate file and the HTML report; the terminal keeps one
    compact table.
    """
    names = measures_present(results)
    if not names:
        return None
    header = ("engine", "suite", "slice", "clips", *(SHORT_NAMES[n] for n in names))
    rows: list[list[Any]] = []
    groupings = [("category", ["engine", "suite", "category"])]
    groupings += [(facet, ["engine", "suite", f"facet:{facet}"]) for facet in breakdown]
    totals = summarize_quality(results, ["engine", "suite"], names)
    for label, by in groupings:
        for key, figures in summarize_quality(results, by, names).items():
            slice_name = key[2] if label == "category" else f"{label}={key[2]}"
            rows.append([key[0], key[1], slice_name, max(f.n for f in figures.values()), *map(_cell, figures.values())])
    for key, figures in totals.items():
        rows.append([key[0], key[1], "(all)", max(f.n for f in figures.values()), *map(_cell, figures.values())])
    return header, rows, len(names) + 1


#: The gate column for checks that were not judged, by :attr:`QualityCheck.status`.
UNJUDGED_LABELS = {"no figures": "no figures", "no baseline figure": "no baseline", "not comparable": "not comparable"}


def gate_label(check: QualityCheck) -> str:
    """``ok`` / ``FAIL``, ``no figures``, ``no baseline``, ``not comparable``; a tolerance over other models says so."""
    if not check.judged:
        return UNJUDGED_LABELS[check.status]
    label = "FAIL" if check.breached else "ok"
    return f"{label}, models differ" if check.models_differ else label


def gate_row(check: QualityCheck) -> list[Any]:
    """One quality-gate check as a table row; the terminal and the HTML report share it."""
    return [
        gate_label(check),
        check.engine,
        check.suite,
        check.category,
        check.measure,
        check.kind,
        figure(check.figure),
        figure(check.limit),
        figure(check.baseline),
        check.n,
    ]


def gate_table(outcome: GateOutcome) -> Table | None:
    """The quality gate (floors, ceilings, tolerance), one row per bucket × measure × bound."""
    if not outcome.quality_checks:
        return None
    rows: list[list[Any]] = [gate_row(check) for check in outcome.quality_checks]
    header = ("gate", "engine", "suite", "category", "measure", "kind", "mean", "limit", "baseline", "clips")
    return header, rows, 4


def model_change_lines(outcome: GateOutcome) -> list[str]:
    """What was measured differently from the baseline, said once per measure set under the gate table."""
    from pytest_ttsbench.gating.quality import ALLOW_MODEL_CHANGE_OPTION, model_changes

    lines = []
    for change in model_changes(outcome.quality_checks):
        verdict = f"judged anyway ({ALLOW_MODEL_CHANGE_OPTION})" if change.judged else "not comparable, not judged"
        lines.append(f"{change.describe()}: {verdict}")
    return lines


def spread_table(outcome: GateOutcome) -> Table | None:
    """Each measure's spread (max − min) across an item's generations, and similarity between them."""
    if not outcome.quality_spreads:
        return None
    names = sorted({name for s in outcome.quality_spreads for name in s.spread}, key=list(SHORT_NAMES).index)
    header = ("engine", "item", "gens", *(SHORT_NAMES[n] for n in names), "spk gen")
    rows = [
        [
            s.engine,
            s.key,
            s.generations,
            *(figure(s.spread.get(n)) for n in names),
            figure(s.speaker_similarity),
        ]
        for s in outcome.quality_spreads
    ]
    return header, rows, len(names) + 2
