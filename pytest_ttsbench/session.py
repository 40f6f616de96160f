"""The state of one benchmark session: settings, selected engines, the evaluator and the results.

The plugin creates one :class:`BenchSession` per pytest process. Under pytest-xdist the
controller owns the results file and the summary (it receives every report); workers only
evaluate items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ttsbench.config import EngineProfile, Settings
from pytest_ttsbench.results import ItemResult, ResultsWriter

if TYPE_CHECKING:  # the pipeline and the gate are imported when a run needs them, not by an idle pytest
    from pytest_ttsbench.gating.gate import GateOutcome
    from pytest_ttsbench.gating.known_gaps import KnownGaps
    from pytest_ttsbench.gating.thresholds import FloorLayer
    from pytest_ttsbench.pipeline import Evaluator

BENCH_KEY = pytest.StashKey["BenchSession"]()


@dataclass
class AsrOverrides:
    """ASR choices given on the command line; they override the configuration's default route."""

    model: str | None = None
    device: str | None = None
    compute_type: str | None = None
    beam_size: int | None = None

    def apply(self, asr: Mapping[str, Any]) -> dict[str, Any]:
        merged = dict(asr)
        for key in ("model", "device", "compute_type", "beam_size"):
            value = getattr(self, key)
            if value is not None:
                merged[key] = value
        return merged


def parse_engine_option(values: list[str] | None) -> list[str]:
    """``--tts-engine a,b --tts-engine c`` → ``[a, b, c]`` without duplicates, in order."""
    names: list[str] = []
    for value in values or []:
        for name in value.split(","):
            name = name.strip()
            if name and name not in names:
                names.append(name)
    return names


def default_run_dir(base: Path, runs_dir: str, engines: list[str]) -> Path:
    """A fresh, dated folder for one run's results and audio."""
    from pytest_ttsbench.pipeline import safe_name

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder = base / runs_dir / f"{stamp}-{safe_name('+'.join(engines))}"
    candidate, n = folder, 1
    while candidate.exists():
        n += 1
        candidate = folder.with_name(f"{folder.name}-{n}")
    return candidate


@dataclass
class BenchSession:
    """Everything the plugin's hooks share during one pytest run."""

    settings: Settings
    engine_names: list[str]
    asr: AsrOverrides
    results_path: Path | None
    audio_dir: Path | None
    contract: str = "raw"
    quorum: int | None = None
    repeats: int = 1
    breakdown: list[str] = field(default_factory=list)
    synth_only: bool = False
    is_worker: bool = False
    results: list[ItemResult] = field(default_factory=list)
    # --- release gating (see gating/gate.py) ---
    repeat_policy: str = "all"
    #: threshold overrides, highest precedence first: command line, then configuration
    floor_layers: list[FloorLayer] = field(default_factory=list)
    #: each collected suite's own ``thresholds`` (on the controller under xdist: sent by the workers)
    suite_thresholds: dict[str, dict[str, float]] = field(default_factory=dict)
    known_gaps: dict[str, KnownGaps] = field(default_factory=dict)
    strict_xfail: bool = False
    update_known_gaps: bool = False
    baseline: list[ItemResult] | None = None
    baseline_path: Path | None = None
    fail_on_regression: bool = False
    snapshot_mode: str = "off"
    update_snapshots: bool = False
    #: (engine, id) for every collected target key and item id, to find known-gap ids that match nothing
    collected_ids: set[tuple[str, str]] = field(default_factory=set)
    #: (engine, target key) of tests that failed on their verdict, and a count of every other failure
    verdict_failures: set[tuple[str, str]] = field(default_factory=set)
    other_failures: int = 0
    gate: GateOutcome | None = None  # set once the session has finished (controller only)
    #: suite name → the case file that defines it (also the run manifest's case inputs)
    suite_files: dict[str, Path] = field(default_factory=dict)
    _writer: ResultsWriter | None = None
    _evaluator: Evaluator | None = None

    def claim_suite(self, suite: Any) -> Path | None:
        """Record which file defines a suite; returns the earlier file when the name is taken."""
        owner = self.suite_files.get(suite.name)
        if owner is not None and owner != suite.path:
            return owner
        self.suite_files[suite.name] = suite.path
        return None

    def no_engine_reason(self) -> str:
        names = ", ".join(sorted(self.settings.engines))
        return f"no TTS engine selected: pass --tts-engine=NAME to synthesize (profiles: {names})"

    def routes_for(self, profile: EngineProfile) -> list[Any]:
        from pytest_ttsbench.asr.registry import create_routes

        asr = dict(self.settings.asr)
        asr.update(profile.option("asr", {}) or {})
        return create_routes(self.asr.apply(asr))

    @property
    def evaluator(self) -> Evaluator:
        if self._evaluator is None:
            from pytest_ttsbench.pipeline import Evaluator, RunOptions

            options = RunOptions(
                audio_dir=self.audio_dir,
                contract=self.contract,
                quorum=self.quorum,
                run_id=self.results_path.parent.name if self.results_path else None,
                synth_only=self.synth_only,
            )
            self._evaluator = Evaluator(self.settings.engines, self.routes_for, options)
        return self._evaluator

    def record(self, result: ItemResult) -> None:
        """Keep a finished result and append it to the results file at once."""
        self.results.append(result)
        if self.results_path is None:
            return
        if self._writer is None:
            self._writer = ResultsWriter(self.results_path)
        self._writer.write(result)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._evaluator is not None:
            self._evaluator.close()
        # --- run manifest: checksums of the run's inputs and outputs (see manifest.py) ---
        if not self.is_worker and self.results_path is not None:
            from pytest_ttsbench.manifest import write_session_manifest

            write_session_manifest(self)
