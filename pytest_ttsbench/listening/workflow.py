"""Workflow measures of a listening round, reported apart from every rating.

Per system and prompt: seconds from the request to the first playable audio over the attempts
(the generations) — the first decodable chunk when the reply was streamed, the whole synthesis
otherwise, and each figure says which it is. Per system: the controls its adapter offers and
the formats it can deliver, as the adapter module declares them (``CONTROLS``,
``EXPORT_FORMATS``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.engines.registry import adapter_module
from pytest_ttsbench.run_model.reader import load_runs
from pytest_ttsbench.support.record_dicts import record_dict

MEASURES = {
    "first_chunk": "first playable chunk (streamed)",
    "total": "whole synthesis (not streamed)",
}


@dataclass(frozen=True)
class FirstAudio:
    """Time to first playable audio for one prompt on one system, over its attempts."""

    system: str
    prompt: str
    measure: str  # "first_chunk", "total", or "mixed" when attempts differ
    seconds: list[float]  # one per attempt that returned audio, in generation order
    failed: int  # attempts that returned no audio

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    def to_dict(self) -> dict[str, Any]:
        figures = {
            "attempts": len(self.seconds) + self.failed,
            "median": self.median,
            "min": min(self.seconds) if self.seconds else None,
            "max": max(self.seconds) if self.seconds else None,
            "measure_label": MEASURES.get(self.measure, "mixed: some attempts streamed, some not"),
        }
        return record_dict(self, computed=figures)


@dataclass(frozen=True)
class AdapterFacts:
    system: str
    provider: str
    controls: list[str]
    export_formats: list[str]


@dataclass
class WorkflowReport:
    first_audio: list[FirstAudio] = field(default_factory=list)
    adapters: list[AdapterFacts] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


def adapter_facts(system: str, provider: str) -> AdapterFacts:
    """What an adapter type declares about its controls and formats (``not declared`` when it says nothing)."""
    module = adapter_module(provider) if provider else None
    controls = list(getattr(module, "CONTROLS", ("not declared",)))
    formats = list(getattr(module, "EXPORT_FORMATS", ("not declared",)))
    return AdapterFacts(system, provider or "unknown", controls, formats)


def workflow_report(paths: Sequence[Path], *, allow_unverified: bool = False) -> WorkflowReport:
    """Workflow measures of the runs: one row per system × prompt, one adapter entry per system."""
    report = WorkflowReport()
    for run in load_runs(list(paths), allow_unverified=allow_unverified):
        attempts: dict[str, dict[int, Any]] = {}
        provider = ""
        for row in run.rows:
            attempts.setdefault(row.id, {}).setdefault(row.repeat, row)  # targets of one clip count once
            provider = provider or str(row.generation.get("provider") or "")
        for prompt, by_repeat in sorted(attempts.items()):
            seconds: list[float] = []
            measures: set[str] = set()
            failed = 0
            for _, row in sorted(by_repeat.items()):
                if not row.returned_audio:
                    failed += 1
                    continue
                value = row.first_audio_seconds if row.first_audio_seconds is not None else row.synth_seconds
                if value is None:
                    failed += 1
                    continue
                seconds.append(value)
                measures.add(row.first_audio_measure or "total")
            measure = measures.pop() if len(measures) == 1 else ("mixed" if measures else "total")
            report.first_audio.append(FirstAudio(run.system, prompt, measure, seconds, failed))
        report.adapters.append(adapter_facts(run.system, provider))
    return report


def workflow_lines(report: WorkflowReport) -> list[str]:
    """The workflow tables as text: time to first audio, then controls and formats."""
    lines = ["Time to first playable audio (seconds, per attempt)", ""]
    header = f"{'system':<16} {'prompt':<36} {'measure':<34} {'attempts':<24} {'median':>7}"
    lines += [header, "-" * len(header)]
    for row in report.first_audio:
        data = row.to_dict()
        shown = ", ".join(f"{s:.3f}" for s in row.seconds) + (f" (+{row.failed} failed)" if row.failed else "")
        median = f"{row.median:.3f}" if row.median is not None else "-"
        lines.append(f"{row.system:<16} {row.prompt:<36} {data['measure_label']:<34} {shown:<24} {median:>7}")
    lines += ["", "Controls and export formats", ""]
    for facts in report.adapters:
        lines.append(f"{facts.system} ({facts.provider})")
        lines.append(f"  controls: {', '.join(facts.controls)}")
        lines.append(f"  formats:  {', '.join(facts.export_formats)}")
    return lines
