"""One benchmark session: a frozen configuration, a small recorder of results, and the evaluator.

:func:`build_config` reads everything a run is told (command-line options, the configuration
file, known gaps, the baseline, stored snapshots) once, in ``pytest_configure``, into a frozen
:class:`BenchConfig`; a bad value stops the run there with a usage error. What changes while the
run goes is in the :class:`Recorder`: finished results (each appended to the results file at
once), the suites collected, the failures seen, and at the end the gate's outcome.

The plugin keeps one :class:`BenchSession` per pytest process. Under pytest-xdist the controller
owns the results file and the summary (it receives every report); workers only evaluate items.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ttsbench.cases.packs import Pack, PackError, get_packs, run_packs
from pytest_ttsbench.config import ConfigError, EngineProfile, Settings, load_settings
from pytest_ttsbench.gating.bounds import SuiteScope, fails, scope_errors
from pytest_ttsbench.gating.coverage import unfinished_reason
from pytest_ttsbench.gating.gate import (
    Collected,
    GateConfig,
    GateOutcome,
    evaluate_gate,
    final_status,
    scoped_bounds,
    write_gate_updates,
)
from pytest_ttsbench.protocols import DEFAULT_PROTOCOL, Protocol, under_protocol
from pytest_ttsbench.quality.measures import DEFAULT_DNSMOS_WINDOWING, DEFAULT_SETS
from pytest_ttsbench.reporting.gate_file import write_gate
from pytest_ttsbench.reporting.gate_item import GATE_NODEID
from pytest_ttsbench.run_model.clip_reuse import ClipReuse, ReuseError, reuse_choice
from pytest_ttsbench.run_model.known_gaps import KnownGaps
from pytest_ttsbench.run_model.provenance import header_path, write_header
from pytest_ttsbench.run_model.reader import gate_path
from pytest_ttsbench.run_model.reruns import engine_config_id
from pytest_ttsbench.run_model.results import (
    RESULT_PROPERTY,
    RESUMED_PROPERTY,
    UNAVAILABLE_PROPERTY,
    ItemResult,
    ResultsWriter,
)
from pytest_ttsbench.run_model.sharding import ShardError, parse_shard
from pytest_ttsbench.session.gate_options import (
    GateOptionError,
    MeasureSetsChoice,
    build_gate_config,
    read_gate_options,
)
from pytest_ttsbench.session.option_paths import benchmark_files_named
from pytest_ttsbench.session.output_failures import (
    INTERNAL_ERROR,
    OutputFailures,
    hold_signals,
    release_signals,
    restore_sigterm,
    stop_on_sigterm,
)
from pytest_ttsbench.support.cache import CacheError, ClipCache, parse_size, resolve_cache_dir
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE
from pytest_ttsbench.support.json_documents import load_json
from pytest_ttsbench.support.text import did_you_mean, safe_name, shown_path
from pytest_ttsbench.support.yaml_documents import BENCHMARK_FILE_SUFFIXES

if TYPE_CHECKING:  # the pipeline is imported when the evaluator is first needed
    from pytest_ttsbench.cases.model import Suite
    from pytest_ttsbench.pipeline.evaluator import Evaluator
    from pytest_ttsbench.reporting.terminal import SessionSummary
    from pytest_ttsbench.support.file_lock import FileClaim

BENCH_KEY = pytest.StashKey["BenchSession"]()
#: What the controller hands its workers: (results file, audio folder), so a run has one folder.
RUN_DIR_KEY = "ttsbench_run_dir"
#: ... and this session's run id, so every row of one session carries the same one.
RUN_ID_KEY = "ttsbench_run_id"
#: ... and the packs it collects: a worker's own command line always names paths (xdist passes them on).
PACKS_KEY = "ttsbench_packs"
#: ... and whether it collects the configured external benchmark files (cases/pins.py).
EXTERNAL_KEY = "ttsbench_external"
#: What a worker tells the controller about its collection (the controller collects nothing).
COLLECTED_KEY = "ttsbench_collected"
CACHE_DAMAGED_KEY = "ttsbench_cache_damaged"  # a worker's damaged cache entries, per kind


@dataclass(frozen=True)
class AsrOverrides:
    """ASR choices given on the command line; they override the configuration's default route."""

    model: str | None = None
    device: str | None = None
    compute_type: str | None = None
    beam_size: int | None = None
    batch_size: str | None = None
    batch_items: str | None = None

    def apply(self, asr: Mapping[str, Any]) -> dict[str, Any]:
        merged = dict(asr)
        for key in ("model", "device", "compute_type", "beam_size", "batch_size", "batch_items"):
            value = getattr(self, key)
            if value is not None:
                merged[key] = value
        return merged


@dataclass(frozen=True)
class BenchConfig:
    """Everything one run was told, fixed before the first test."""

    settings: Settings
    engine_names: tuple[str, ...] = ()
    asr: AsrOverrides = field(default_factory=AsrOverrides)
    results_path: Path | None = None
    audio_dir: Path | None = None
    contract: str = "raw"
    quorum: int | None = None
    #: --tts-protocol: which protocol gives each row its verdict (protocols.py)
    protocol: Protocol = DEFAULT_PROTOCOL
    breakdown: tuple[str, ...] = ()
    synth_only: bool = False  # clips only: no ASR, no verdicts, nothing gated
    #: --collect-only, --setup-plan or --setup-only: items are listed, nothing is synthesized, written or gated
    lists_only: bool = False
    is_worker: bool = False
    strict_xfail: bool = False
    gate: GateConfig = field(default_factory=GateConfig)
    #: --tts-repeats; None lets each profile's ``repeats`` (default 1) decide
    cli_repeats: int | None = None
    #: quality measure sets taken of every clip (see pytest_ttsbench/quality)
    quality_sets: tuple[str, ...] = DEFAULT_SETS
    #: how DNSMOS cuts clips into model inputs (``--tts-dnsmos-windowing``, see quality/dnsmos.py)
    dnsmos_windowing: str = DEFAULT_DNSMOS_WINDOWING
    #: ``I/N`` when this run is one shard of a split run (``--tts-shard``)
    shard: str | None = None
    #: clips and transcripts of earlier runs (cache.py); None when no engine is selected
    cache: ClipCache | None = None
    cache_max_bytes: int | None = None  # an LRU cap applied when the run ends
    #: whose clips may be read from the cache (clip_reuse.py)
    clip_reuse: ClipReuse = field(default_factory=ClipReuse)
    #: synthesize the following tests' clips while a test runs (prefetch.py)
    prefetch: bool = True
    #: the shipped packs this run collects beside its case folders (cases/packs.py)
    packs: tuple[Pack, ...] = ()
    #: the configured external benchmark files this run collects (an engine selected, no paths named)
    external: tuple[Path, ...] = ()
    # --- reruns (see reruns.py) ---
    #: this session's run id, written in every row (a resumed run keeps the run id it continues)
    run_id: str | None = None
    #: (engine, target key, repeat) → the row a resumed run already holds; those targets are not run again
    resumed: Mapping[tuple[str, str, int], ItemResult] = field(default_factory=dict)
    #: the controller's claim on ``results_path`` (reruns.py): no second session writes it meanwhile
    results_claim: FileClaim | None = None

    @property
    def repeats(self) -> int:
        return self.gate.repeats

    @property
    def latency_gated_engines(self) -> frozenset[str]:
        """Engines whose latency a budget or a baseline tolerance gates: they never read clips from the cache."""
        if self.gate.latency_compare_fail:
            return frozenset(self.engine_names)
        return frozenset(budget.engine for budget in self.gate.latency_budgets)

    def repeats_for(self, engine: str | None) -> int:
        """Generations per item: --tts-repeats, else the profile's ``repeats``, else 1."""
        if self.cli_repeats is not None:
            return self.cli_repeats
        profile = self.settings.engines.get(engine) if engine else None
        return profile_repeats(profile) if profile is not None else 1

    @property
    def known_gaps(self) -> Mapping[str, KnownGaps]:
        return self.gate.known_gaps

    def asr_spec(self, profile: EngineProfile) -> dict[str, Any]:
        """The ASR configuration for one engine: the default, the profile's own, then the command line."""
        asr = dict(self.settings.asr)
        asr.update(profile.option("asr", {}) or {})
        return self.asr.apply(asr)

    def engine_config(self, engine_name: str) -> str:
        """The fingerprint a resumed run matches rows against (see reruns.py)."""
        profile = self.settings.engines[engine_name]
        return engine_config_id(profile, self.asr_spec(profile))


@dataclass
class Recorder:
    """What happens during the run: results as they finish, collected suites, failures, the gate."""

    results_path: Path | None = None
    results: list[ItemResult] = field(default_factory=list)
    collected: Collected = field(default_factory=Collected)
    #: suite name → the case file that defines it (also the run manifest's case inputs)
    suite_files: dict[str, Path] = field(default_factory=dict)
    gate: GateOutcome | None = None  # set once the session has finished (controller only)
    _writer: ResultsWriter | None = None

    @property
    def started_writing(self) -> bool:
        return self._writer is not None

    def claim_suite(self, suite: Suite) -> Path | None:
        """Record which file defines a suite; returns the earlier file when the name is taken."""
        owner = self.suite_files.get(suite.name)
        if owner is not None and owner != suite.path:
            return owner
        if suite.path is not None:  # a suite built in memory has no file to claim
            self.suite_files[suite.name] = suite.path
        return None

    def record(self, result: ItemResult, *, write: bool = True) -> None:
        """Keep a finished result and append it to the results file at once (a resumed row is there already)."""
        self.results.append(result)
        if self.results_path is None or not write:
            return
        if self._writer is None:
            self._writer = ResultsWriter(self.results_path)
        self._writer.write(result)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


@dataclass
class BenchSession:
    """What the plugin's hooks share during one pytest run: the configuration, the recorder, the evaluator."""

    config: BenchConfig
    recorder: Recorder
    _evaluator: Evaluator | None = None
    #: bounds whose scope no loaded case file defines, found by a pytest-xdist worker (bound_scope_errors)
    scope_errors: list[str] = field(default_factory=list)
    #: the first write of the run's outputs the file system refused (output_failures.py)
    outputs: OutputFailures = field(default_factory=OutputFailures)
    #: pytest's session, once it started: stopped, and its exit status set, when an output cannot be written
    pytest_session: pytest.Session | None = None
    _sigterm: Any = None  # the SIGTERM handler attach() replaced (restored on close)
    _held: dict[int, Any] = field(default_factory=dict)  # the signal handlers hold_signals() replaced

    @property
    def evaluator(self) -> Evaluator:
        """Built on first use, so a run that synthesizes nothing never loads the pipeline."""
        if self._evaluator is None:
            from pytest_ttsbench.asr.registry import create_routes
            from pytest_ttsbench.pipeline.evaluator import Evaluator, RunOptions
            from pytest_ttsbench.quality.meter import QualityMeter

            config = self.config
            options = RunOptions(
                audio_dir=config.audio_dir,
                contract=config.contract,
                quorum=config.quorum,
                protocol=config.protocol,
                run_id=config.run_id,
                max_audio_bytes=config.settings.limits.max_audio_bytes,
                max_clip_seconds=config.settings.limits.max_clip_seconds,
                synth_only=config.synth_only,
                probe_engines=frozenset(name for name in config.engine_names if config.repeats_for(name) == 1),
                quality=QualityMeter(config.quality_sets, config.dnsmos_windowing) if config.quality_sets else None,
                cache=config.cache,
                fresh_audio_engines=config.latency_gated_engines,
                clip_reuse=config.clip_reuse,
            )
            self._evaluator = Evaluator(
                config.settings.engines, lambda profile: create_routes(config.asr_spec(profile)), options
            )
        return self._evaluator

    def record(self, result: ItemResult, *, write: bool = True) -> None:
        """Keep a finished result; before the first line of the results file, write the run header.

        A resumed row (``write=False``) is in the results file already: it counts, it is not written again.
        """
        results_path = self.config.results_path
        if write and not self.recorder.started_writing and not self.outputs.failed and results_path is not None:
            with self.outputs.writing(header_path(results_path)):
                self.write_header()  # a killed run still says what it ran with
        # kept in memory first, whatever the disk says: the gate still counts it
        with self.outputs.writing(results_path):
            self.recorder.record(result, write=write and not self.outputs.failed)
        if self.outputs.failed and self.pytest_session is not None:
            self.pytest_session.shouldstop = self.outputs.reason()  # no more work whose rows cannot be kept

    def attach(self, session: pytest.Session) -> None:
        """The pytest session starting: kept, to stop it and set its status should an output fail to be
        written; from now on SIGTERM ends a benchmark run as Ctrl-C does (output_failures.py). On an
        xdist worker too, where the engines run: a SIGTERM sent to the whole process group (a CI job
        cancelled, a service stopped) would otherwise end the worker at once, leaving its persistent
        engine processes, each in a process group of its own, running on."""
        self.pytest_session = session
        if self.config.engine_names:
            self._sigterm = stop_on_sigterm()

    def write_header(self) -> None:
        """Write (or complete) the run header beside the results file; see provenance.py."""
        config = self.config
        if config.results_path is None or config.is_worker:
            return
        from pytest_ttsbench.session.provenance_capture import build_header

        header = build_header(
            config.settings,
            config.engine_names,
            config.asr_spec,
            suite_files=self.recorder.suite_files,
            suite_thresholds=self.recorder.collected.suite_thresholds,
            suite_quality=self.recorder.collected.suite_quality,
            suite_scopes={suite: scope.to_dict() for suite, scope in self.recorder.collected.suite_scopes.items()},
            results=self.recorder.results,
            contract=config.contract,
            repeats=config.gate.repeats,
            repeat_policy=config.gate.repeat_policy,
            quorum=config.quorum,
            protocol=config.protocol,
            shard=config.shard,
            quality_sets=config.quality_sets,
            selected=self.recorder.collected.selected,
            unavailable=self.recorder.collected.unavailable,
            collected_ids=self.recorder.collected.ids,
        )
        write_header(header_path(config.results_path), header)
        self.recorder.collected.header = header

    def close_engines(self) -> None:
        """Close the engines and routes now (a local model's ``close()`` runs), once."""
        if self._evaluator is not None:
            self._evaluator.close()
            self._evaluator = None

    def close(self) -> None:
        try:
            self._close()
        finally:  # the results file is this run's until the manifest beside it is written
            if self.config.results_claim is not None:
                with self.outputs.writing(self.config.results_path):
                    self.config.results_claim.release()
        release_signals(self._held)
        restore_sigterm(self._sigterm)
        if self.outputs.failed:  # after pytest's own last words: the one line, and status 3
            self.outputs.tell()
            if self.pytest_session is not None:
                self.pytest_session.exitstatus = INTERNAL_ERROR

    def _close(self) -> None:
        # Only a session that ran (it wrote rows, or reached its gate) has a run to describe; one refused
        # at configuration (an existing results file, say) must not touch what is there.
        ran = self.recorder._writer is not None or self.recorder.gate is not None
        config = self.config
        with self.outputs.writing(config.results_path):
            self.recorder.close()
        if self._evaluator is not None:
            self._evaluator.close()
        if not config.is_worker and config.cache is not None and config.cache_max_bytes is not None:
            config.cache.prune(config.cache_max_bytes)
        # --- run manifest: checksums of the run's inputs and outputs (see manifest.py) ---
        if ran and not config.is_worker and config.results_path is not None and not self.outputs.failed:
            from pytest_ttsbench.run_model.manifest import manifest_path, write_session_manifest

            with self.outputs.writing(manifest_path(config.results_path)):
                write_session_manifest(
                    config.settings,
                    config.results_path,
                    config.audio_dir,
                    config.engine_names,
                    self.recorder.suite_files.values(),
                )

    # --- what the plugin's hooks ask of the session (plugin.py stays hooks only) ---------------------

    def summary(self) -> SessionSummary | None:
        """The finished session as the reports show it: items after the repeat policy, and the gate."""
        from pytest_ttsbench.reporting.terminal import SessionSummary

        recorder = self.recorder
        if self.config.is_worker or (not recorder.results and recorder.gate is None):
            return None
        items = recorder.gate.items if recorder.gate is not None else recorder.results
        return SessionSummary(items, self.config.breakdown, recorder.gate, recorder.results)

    def write_ci_outputs(self, write_line: Callable[[str], object], rootpath: Path, environ: Mapping[str, str]) -> None:
        """Under GitHub Actions, the job summary and the error annotations of the finished session
        (reporting/github.py), from the same summary the terminal printed; nothing elsewhere."""
        if not ({"GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"} & set(environ)) or self.config.synth_only:
            return
        finished = self.summary()
        if finished is None:
            return
        from pytest_ttsbench.reporting.github import write_github_outputs

        write_github_outputs(write_line, finished, environ, self.config.results_path, rootpath)

    def header_lines(self, invocation_dir: Path) -> list[str]:
        """pytest's report header: the engines and where the results go (nothing without an engine)."""
        config = self.config
        if not config.engine_names:
            return []
        engines = ", ".join(config.engine_names)
        if config.lists_only:
            return [f"ttsbench: engines {engines}; listing only: nothing is synthesized, written or gated"]
        return [f"ttsbench: engines {engines}; results -> {shown_path(config.results_path, invocation_dir)}"]

    def collects(self, path: Path, *, explicit: bool) -> bool:
        """Whether a file is collected as a case file: a YAML file named on the command line or in a
        case folder, or an external JSON-lines benchmark named on the command line.

        Without ``--tts-engine`` nothing is: the plugin reads none of a repository's files in its
        ordinary test run, so a broken case file is reported only by a run that uses it (a case file
        named without an engine is refused at configuration, see :func:`build_config`).
        """
        settings = self.config.settings
        if not self.config.engine_names or path.suffix not in BENCHMARK_FILE_SUFFIXES:
            return False
        if explicit or path.suffix == ".jsonl":
            return explicit
        return any(path.is_relative_to((settings.base_dir / folder).resolve()) for folder in settings.cases)

    def note_report(self, report: pytest.TestReport) -> None:
        """Record a finished test's result (the controller receives every worker's) and count its failure."""
        if self.config.is_worker or report.nodeid == GATE_NODEID:
            return
        collected = self.recorder.collected
        recorded = None
        if report.when == "call":
            for name, value in report.user_properties:
                if name in (RESULT_PROPERTY, RESUMED_PROPERTY):
                    recorded = ItemResult.from_dict(load_json(str(value)))
                    # A resumed row is in the results file already: it counts, it is not written again.
                    self.record(recorded, write=name == RESULT_PROPERTY)
                elif name == UNAVAILABLE_PROPERTY:
                    engine, reason = load_json(str(value))
                    collected.unavailable[engine] = reason
        if report.failed:
            # The repeat policy may excuse a failed generation; nothing else is ever excused.
            if recorded is not None and recorded.verdict != "correct":
                collected.verdict_failures.add((recorded.engine, recorded.key))
            else:
                collected.other_failures += 1

    def note_collect_failure(self) -> None:
        """A case file that failed to collect fails the gate like any other failure (controller only)."""
        if not self.config.is_worker:
            self.recorder.collected.other_failures += 1

    def count_selected(self, engines: Iterable[str]) -> None:
        """The test items each engine has after -k and -m (one engine name per selected item)."""
        counts = Counter(engines)
        self.recorder.collected.selected = {name: counts.get(name, 0) for name in self.config.engine_names}

    def note_worker_selection(self, selected: Mapping[str, int]) -> None:
        """On the xdist controller: the test items each engine has, as the first worker's collection ends
        (every worker collects the same; session/selection.selected_by_engine), written to the run header
        at once, so a run killed before any worker finished still says what it selected (``ttsbench
        gate`` judges coverage by it)."""
        seen = self.recorder.collected
        if seen.selected is not None or not self.config.engine_names:
            return
        seen.selected = dict(selected)
        self.write_header()

    def check_credentials(self) -> None:
        """Every selected engine with items to run has its credentials, or the run stops now, before
        any test, with a usage error naming the variables (never a value).

        Under pytest-xdist the controller checks, as the first worker's collection ends (session/hooks.py),
        never a worker (each would stop alone). Not in a listing, nor where ``--tts-allow-unavailable``
        lets an engine that cannot run skip its items.
        """
        config = self.config
        if config.is_worker or config.lists_only or config.gate.allow_unavailable:
            return
        selected = self.recorder.collected.selected or {}
        missing = [
            problem
            for engine in config.engine_names
            if selected.get(engine) and (problem := self.evaluator.missing_credentials(engine)) is not None
        ]
        if missing:
            raise pytest.UsageError(
                "\n".join(missing) + "\nset the variable(s) in the environment (a CI secret), or leave the engine out"
            )

    def bound_scope_errors(self) -> list[str]:
        """A bound whose scope no loaded case file defines is a typo: refused before anything is synthesized."""
        config = self.config
        if not config.engine_names or config.synth_only:
            return []
        seen = self.recorder.collected
        return scope_errors(scoped_bounds(config.gate, seen), list(config.settings.engines), seen.suite_scopes)

    # --- pytest-xdist: what the controller hands its workers and what they tell it back ---

    def worker_input(self) -> dict[str, Any]:
        """What a worker must share with the controller: the packs, external files, run folder and run id."""
        config = self.config
        handed: dict[str, Any] = {
            PACKS_KEY: [pack.name for pack in config.packs],
            EXTERNAL_KEY: [str(path) for path in config.external],
        }
        if config.results_path is not None:
            handed[RUN_DIR_KEY] = (str(config.results_path), str(config.audio_dir))
            handed[RUN_ID_KEY] = config.run_id
        return handed

    def collection_report(self, selection: Mapping[str, Any]) -> dict[str, Any]:
        """What a worker tells the controller about its collection (JSON-able; the controller collects nothing)."""
        seen = self.recorder.collected
        return {
            "suite_thresholds": seen.suite_thresholds,
            "suite_quality": seen.suite_quality,
            "suite_scopes": {suite: scope.to_dict() for suite, scope in seen.suite_scopes.items()},
            "suite_sources": seen.suite_sources,
            "suite_files": {suite: str(path) for suite, path in self.recorder.suite_files.items()},
            "ids": sorted([engine, gap_id] for engine, gap_id in seen.ids),
            "selection": dict(selection),
            "selected": seen.selected,
            "scope_errors": list(self.scope_errors),
        }

    def merge_collection_report(self, collected: Mapping[str, Any], cache_damaged: Mapping[str, Any]) -> None:
        """Merge what a worker collected: suite floors, the ids known gaps are matched against, its
        damaged cache entries and the bound scope errors it found (every worker collects the same items)."""
        seen = self.recorder.collected
        if seen.selected is None:
            seen.selected = dict(collected.get("selected", {}))
        for suite, floors in collected["suite_thresholds"].items():
            seen.suite_thresholds.setdefault(suite, dict(floors))
        for suite, section in collected.get("suite_quality", {}).items():
            seen.suite_quality.setdefault(suite, dict(section))
        for suite, scope in collected.get("suite_scopes", {}).items():
            seen.suite_scopes.setdefault(suite, SuiteScope.from_dict(scope))
        for suite, source in collected.get("suite_sources", {}).items():
            seen.suite_sources.setdefault(suite, source)
        for suite, path in collected.get("suite_files", {}).items():
            self.recorder.suite_files.setdefault(suite, Path(path))
        seen.ids.update((engine, gap_id) for engine, gap_id in collected["ids"])
        if self.config.cache is not None:
            for kind, count in cache_damaged.items():
                self.config.cache.count_damaged(kind, int(count))
        if collected.get("scope_errors"):
            self.scope_errors = list(collected["scope_errors"])

    # --- the end of the session ---

    def finish_worker(self, workeroutput: dict[str, Any]) -> None:
        """A worker's end: its damaged cache entries go to the controller (whose gate reports them), and its
        engines close now, before xdist reports it finished: the controller may end the process then, and a
        local model's close() (engines/python_factory.py) must still run."""
        if self.config.cache is not None:
            workeroutput[CACHE_DAMAGED_KEY] = dict(self.config.cache.damaged)
        self.close_engines()

    def _ready_to_gate(self, exitstatus: int) -> bool:
        """Whether this process gates the session; writes the run header first when it has results."""
        config, recorder = self.config, self.recorder
        if config.is_worker or not config.engine_names:
            return False
        if not recorder.results and exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
            # Stopped before any test gave a result (a usage error, a case file that failed to load, ^C):
            # pytest has said why, once; a gate summary of nothing would only add a second, wrong reason.
            return False
        if config.cache is not None:
            recorder.collected.cache_damaged = dict(config.cache.damaged)
        if recorder.results and not self.outputs.failed and config.results_path is not None:
            with self.outputs.writing(header_path(config.results_path)):
                self.write_header()  # complete now: every case file and language of the run is known
        # A synthesize-only run has clips, not verdicts; a listing (--co, --setup-plan) ran nothing:
        # neither has anything to gate, and no gate file claims a verdict for them.
        return not (config.synth_only or config.lists_only)

    def gate(self, exitstatus: int, stopped: bool) -> GateOutcome | None:
        """The gate, once, where every result is (the controller); None where nothing is gated.

        ``exitstatus`` and ``stopped`` (``-x``, a ``shouldstop``) are the session's: never a pass for a
        session that did not run to its end. Writes the run header, the gate file and planned rewrites.
        """
        config, recorder = self.config, self.recorder
        if not self._ready_to_gate(exitstatus):
            return None
        outcome = evaluate_gate(recorder.results, config.gate, recorder.collected)
        unfinished = unfinished_reason(exitstatus, stopped)
        if unfinished is not None:
            outcome.judged.insert(0, fails(unfinished))
        if outcome.quality_spreads and "similarity" in config.quality_sets:
            from pytest_ttsbench.quality.similarity import between_generations  # reads the kept clips

            outcome.quality_spreads = between_generations(outcome.quality_spreads, recorder.results)
        with self.outputs.writing(None):
            write_gate_updates(outcome)
        if self.outputs.failed:
            outcome.judged.append(fails(self.outputs.reason(), "output"))
        outcome.exitstatus = final_status(outcome, exitstatus)
        if self.scope_errors:  # found by the xdist workers, which ran nothing: the usage error given without -n
            outcome.exitstatus = int(pytest.ExitCode.USAGE_ERROR)
            sys.stderr.write("ERROR: " + "\n".join(self.scope_errors) + "\n")
        recorder.gate = outcome
        if config.results_path is not None:
            with self.outputs.writing(gate_path(config.results_path)):
                write_gate(gate_path(config.results_path), outcome)
        if self.outputs.failed:
            outcome.exitstatus = INTERNAL_ERROR
        self._held = hold_signals()  # the run is on disk: a late signal would only tear its summary
        return outcome


# --- building the configuration ------------------------------------------------------------------


def parse_engine_option(values: Sequence[str] | None) -> list[str]:
    """``--tts-engine a,b --tts-engine c`` → ``[a, b, c]`` without duplicates, in order."""
    names: list[str] = []
    for value in values or []:
        for name in value.split(","):
            name = name.strip()
            if name and name not in names:
                names.append(name)
    return names


def profile_repeats(profile: EngineProfile) -> int:
    """A profile's ``repeats`` option (default 1): how many generations a stochastic voice needs per item."""
    return int(profile.number("repeats", 1, AT_LEAST_ONE))


def default_run_dir(base: Path, runs_dir: str, engines: Sequence[str]) -> Path:
    """A fresh, dated folder for one run's results and audio, created (reserved) before it is returned.

    Two runs started in the same second (two CI jobs on one runner) name the same folder; an
    exclusive ``mkdir`` (never ``exist_ok``) lets exactly one of them have it, and the other takes
    the next suffix, so concurrent runs never share a results file. Checking ``exists()`` first
    and creating later would leave a window in which both see the name free.
    """
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder = base / runs_dir / f"{stamp}-{safe_name('+'.join(engines))}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        candidate = folder if n == 1 else folder.with_name(f"{folder.name}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            n += 1
            continue
        return candidate


def lists_only(config: pytest.Config) -> bool:
    """Whether pytest was asked to list items, not run them: ``--collect-only`` (``--co``),
    ``--setup-plan`` or ``--setup-only`` (which sets fixtures up but never calls a test).

    Such a run measures nothing by design, so it is never judged: "the run measured nothing" is
    the gate's verdict on a run that tried and failed to measure, not on one that only listed.
    """
    return any(bool(config.getoption(name, default=False)) for name in ("collectonly", "setupplan", "setuponly"))


def build_config(config: pytest.Config) -> BenchConfig:
    """The run's configuration from options, ini (the configuration file) and the files they name.

    Raises :class:`pytest.UsageError` naming the option or file at fault.
    """
    try:
        settings = load_settings(Path(config.rootpath))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from exc
    engines = parse_engine_option(config.getoption("tts_engine"))
    unknown = [name for name in engines if name not in settings.engines]
    if unknown:
        hints = [f"--tts-engine={name}: {hint}" for name in unknown if (hint := did_you_mean(name, settings.engines))]
        raise pytest.UsageError(
            f"unknown engine profile(s) {', '.join(unknown)}; known: {', '.join(sorted(settings.engines))}"
            f" (define profiles in {settings.source or 'ttsbench.yaml'})" + "".join(f"\n{hint}" for hint in hints)
        )
    if not engines:
        _refuse_benchmark_without_engine(config, settings)
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    results_path, audio_dir = _output_paths(config, settings, engines, workerinput)
    quality_sets, dnsmos_windowing = _quality_options(config, settings)
    gate = _read_gate(config, settings, engines, quality_sets, is_worker=workerinput is not None)
    _load_quality_models(engines, quality_sets, dnsmos_windowing)
    bench = BenchConfig(
        settings=settings,
        engine_names=tuple(engines),
        asr=AsrOverrides(
            model=config.getoption("tts_asr_model"),
            device=config.getoption("tts_asr_device"),
            compute_type=config.getoption("tts_asr_compute_type"),
            beam_size=config.getoption("tts_asr_beam_size"),
            batch_size=config.getoption("tts_asr_batch_size"),
            batch_items=config.getoption("tts_asr_batch_items"),
        ),
        results_path=results_path,
        audio_dir=audio_dir,
        contract=config.getoption("tts_contract"),
        quorum=config.getoption("tts_quorum"),
        protocol=config.getoption("tts_protocol"),
        breakdown=tuple(config.getoption("tts_breakdown")),
        synth_only=bool(config.getoption("tts_synth_only")),
        lists_only=lists_only(config),
        is_worker=workerinput is not None,
        strict_xfail=bool(config.getoption("tts_strict_xfail")),
        cli_repeats=config.getoption("tts_repeats"),
        gate=gate,
        quality_sets=quality_sets,
        dnsmos_windowing=dnsmos_windowing,
        shard=_shard_option(config),
        packs=_packs_option(config, settings, engines, workerinput),
        external=_external_files(config, settings, engines, workerinput),
        **_cache_config(config, settings, engines),
    )
    return _with_run(config, bench, workerinput)


def _refuse_benchmark_without_engine(config: pytest.Config, settings: Settings) -> None:
    """A case file or pack named on the command line without ``--tts-engine`` asks for a benchmark
    nothing can run: refused, naming the step that is missing (a plain ``pytest`` collects none of them)."""
    named = [f"--tts-pack={pack}" for pack in config.getoption("tts_pack") or []] + benchmark_files_named(config)
    if named:
        raise pytest.UsageError(
            f"{', '.join(named)}: a benchmark runs only with an engine; add --tts-engine=NAME "
            f"(profiles: {', '.join(sorted(settings.engines))})"
        )


def _packs_option(
    config: pytest.Config, settings: Settings, engines: Sequence[str], workerinput: Mapping[str, Any] | None
) -> tuple[Pack, ...]:
    """The shipped packs the run collects: ``--tts-pack``, the configuration's ``packs``, or the default."""
    if not engines:
        return ()  # a plain pytest collects no pack
    try:
        if workerinput is not None and PACKS_KEY in workerinput:
            return tuple(get_packs(workerinput[PACKS_KEY]))
        return tuple(
            run_packs(
                settings.packs,
                config.getoption("tts_pack") or [],
                has_case_folder=bool(settings.case_folders() or settings.external),
                engines_selected=bool(engines),
                paths_given=config.args_source == pytest.Config.ArgsSource.ARGS,
                where=f"{settings.source}: field packs",
            )
        )
    except PackError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _external_files(
    config: pytest.Config, settings: Settings, engines: Sequence[str], workerinput: Mapping[str, Any] | None
) -> tuple[Path, ...]:
    """The configured external files a run collects: with an engine, unless the command line names paths.

    A plain ``pytest`` never reads (or hashes) them; a path named on the command line is checked
    against its pin all the same (collect.py).
    """
    if workerinput is not None and EXTERNAL_KEY in workerinput:
        return tuple(Path(path) for path in workerinput[EXTERNAL_KEY])
    if not engines or config.args_source == pytest.Config.ArgsSource.ARGS:
        return ()
    return tuple(pin.path for pin in settings.external)


def _with_run(config: pytest.Config, bench: BenchConfig, workerinput: Mapping[str, Any] | None) -> BenchConfig:
    """The run id, and what an existing results file means: refused, appended to, or resumed (reruns.py)."""
    if bench.results_path is None or bench.lists_only:
        return bench  # a listing writes nothing, so an existing results file is no concern of it
    from pytest_ttsbench.run_model.reruns import (
        check_existing,
        claim_results_file,
        drop_partial_last_line,
        new_run_id,
        resumable,
    )

    run_id = workerinput.get(RUN_ID_KEY) if workerinput is not None else None
    resumed: dict[tuple[str, str, int], ItemResult] = {}
    append, resume = bool(config.getoption("tts_append")), bool(config.getoption("tts_resume"))
    claim = None
    try:
        if workerinput is None:  # the controller writes every row (workers send theirs to it)
            claim = claim_results_file(bench.results_path, bench.engine_names)
            check_existing(bench.results_path, append, resume)
            if resume:
                drop_partial_last_line(bench.results_path)
        if resume:
            configs = {name: bench.engine_config(name) for name in bench.engine_names}
            continued, resumed = resumable(bench.results_path, configs, bench.contract)
            # a row measured under the other protocol counts under this run's (rows record both)
            resumed = {
                key: under_protocol(row, bench.protocol, str(bench.results_path))
                for key, row in resumed.items()
                if row.protocols.get(bench.protocol) or row.protocol == bench.protocol
            }
            run_id = run_id or continued
    except (OSError, ValueError) as exc:
        if claim is not None:
            claim.release()
        raise pytest.UsageError(str(exc)) from exc
    if run_id is None:
        default_folder = config.getoption("tts_results") is None
        run_id = bench.results_path.parent.name if default_folder else new_run_id()
    return replace(bench, run_id=run_id, resumed=resumed, results_claim=claim)


def _shard_option(config: pytest.Config) -> str | None:
    value = config.getoption("tts_shard")
    if value is None:
        return None
    try:
        return str(parse_shard(value))
    except ShardError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _quality_options(config: pytest.Config, settings: Settings) -> tuple[tuple[str, ...], str]:
    """The measure sets (``--tts-quality``, else the configuration's) and the DNSMOS windowing.

    The quality bounds are gate options (session/gate_options.py)."""
    from pytest_ttsbench.quality.measures import QualityOptionError, parse_measure_sets

    option = config.getoption("tts_quality")
    where = "--tts-quality" if option else str(settings.source or "configuration")
    try:
        sets = parse_measure_sets(option or settings.quality.get("measures"), where)
    except QualityOptionError as exc:
        raise pytest.UsageError(str(exc)) from exc
    configured = settings.quality.get("dnsmos_windowing", DEFAULT_DNSMOS_WINDOWING)
    return sets, config.getoption("tts_dnsmos_windowing") or configured


def _load_quality_models(engines: Sequence[str], sets: tuple[str, ...], windowing: str) -> None:
    """The chosen measures' models load now: a missing extra stops the run before anything is synthesized."""
    if not engines or not sets:
        return
    from pytest_ttsbench.quality.measures import QualityOptionError, QualityUnavailable
    from pytest_ttsbench.quality.meter import QualityMeter

    try:
        QualityMeter(sets, windowing).check_available()
    except (QualityOptionError, QualityUnavailable) as exc:
        raise pytest.UsageError(str(exc)) from exc


def _sets_chosen(config: pytest.Config, settings: Settings) -> MeasureSetsChoice:
    """Where this run's measure sets came from, for the refusal of a bound on a set it does not take."""
    if config.getoption("tts_quality"):
        chosen_by = "--tts-quality"
    elif settings.quality.get("measures") is not None:
        chosen_by = f"{settings.source or 'configuration'}: field quality.measures"
    else:
        chosen_by = "--tts-quality not given, so the default"
    return MeasureSetsChoice(chosen_by, "add the set: --tts-quality {sets} (or quality.measures in the configuration)")


def _cache_config(config: pytest.Config, settings: Settings, engines: Sequence[str]) -> dict[str, Any]:
    """The clip and transcript cache a run with an engine reads and writes (cache.py), and whose
    clips it may read (clip_reuse.py)."""
    if not engines:
        return {}
    folder = resolve_cache_dir(config.getoption("tts_cache_dir"), settings.cache_dir, settings.base_dir)
    cap = None
    if settings.cache_max_size is not None:
        try:
            cap = parse_size(settings.cache_max_size)
        except CacheError as exc:
            raise pytest.UsageError(f"{settings.source}: field cache_max_size: {exc}") from exc
    try:
        reuse = reuse_choice(config.getoption("tts_cache_reuse"), settings.cache_reuse)
    except ReuseError as exc:
        raise pytest.UsageError(f"{settings.source}: {exc}") from exc
    reuse = replace(reuse, gated_against_baseline=bool(config.getoption("tts_baseline")))
    return {"cache": ClipCache(folder, config.getoption("tts_cache")), "cache_max_bytes": cap, "clip_reuse": reuse}


def _read_gate(
    config: pytest.Config,
    settings: Settings,
    engines: Sequence[str],
    quality_sets: tuple[str, ...],
    *,
    is_worker: bool,
) -> GateConfig:
    """The gate's inputs read up front, so a bad floor, gaps file or baseline stops the run at once.

    The gate options and their checks are ``ttsbench gate``'s too: one builder (session/gate_options.py)
    makes the configuration; the number of generations is this front end's own to read.
    """
    # syrupy's own flag, so one `--snapshot-update` refreshes every kind of snapshot in a project.
    options = read_gate_options(config.getoption, bool(config.getoption("update_snapshots", default=False)))
    synth_only = bool(config.getoption("tts_synth_only"))  # nothing to gate: no bound is refused
    try:
        return build_gate_config(
            settings,
            engines,
            options,
            repeats=_repeats(config, settings, engines),
            repeat_policy=config.getoption("tts_repeat_policy"),
            contract=config.getoption("tts_contract"),
            # the baseline is judged under this run's protocol, whatever it was scored under
            protocol=config.getoption("tts_protocol"),
            read_files=not is_worker,
            quality_sets=quality_sets,
            sets_chosen=None if synth_only else _sets_chosen(config, settings),
        )
    except GateOptionError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _repeats(config: pytest.Config, settings: Settings, engines: Sequence[str]) -> int:
    """Generations per item the gate expects: ``--tts-repeats``, else the most any selected profile asks."""
    repeats = config.getoption("tts_repeats")  # at least 1: checked as it was parsed (number_option)
    try:
        # a bad profile 'repeats' stops the run here, not mid-collection
        profile_counts = [profile_repeats(settings.engines[engine]) for engine in engines]
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from exc
    return repeats if repeats is not None else max(profile_counts, default=1)


def _output_paths(
    config: pytest.Config, settings: Settings, engines: Sequence[str], workerinput: Mapping[str, Any] | None
) -> tuple[Path | None, Path | None]:
    """Where results and clips go; workers get the controller's choice so a run has one folder."""
    if not engines:
        return None, None
    if workerinput is not None and RUN_DIR_KEY in workerinput:
        results, audio = workerinput[RUN_DIR_KEY]
        return Path(results), Path(audio)
    option = config.getoption("tts_results")
    audio_option = config.getoption("tts_audio_dir")
    if option:
        results = Path(option).resolve()
        audio = Path(audio_option).resolve() if audio_option else results.parent / f"{results.stem}-audio"
    elif lists_only(config):
        # A listing writes nothing, so it reserves no folder either: the path is only shown.
        run_dir = settings.base_dir / settings.runs_dir / "(not made: listing only)"
        results = run_dir / "results.jsonl"
        audio = Path(audio_option).resolve() if audio_option else run_dir / "audio"
    else:
        run_dir = default_run_dir(settings.base_dir, settings.runs_dir, engines)
        results = run_dir / "results.jsonl"
        audio = Path(audio_option).resolve() if audio_option else run_dir / "audio"
    return results, audio
