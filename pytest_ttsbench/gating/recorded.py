"""The release gate over a run already on disk (``ttsbench gate``), the same gate the plugin runs.

A run split into shards (``--tts-shard I/N``) and joined with ``ttsbench merge`` never had one
pytest session that saw every item, so nothing gated it. This module builds what the plugin's
session holds at its end — the gate's :class:`~pytest_ttsbench.gating.gate.GateConfig` from the
same options and files, and the :class:`~pytest_ttsbench.gating.gate.Collected` facts (the
suites' own floors from the run header, the failed tests from the rows) — and calls
:func:`~pytest_ttsbench.gating.gate.evaluate_gate` and
:func:`~pytest_ttsbench.gating.gate.final_status`, so the outcome, the exit status and the
``<results>.gate.json`` are those the unsplit run would have had.

The exit status before the gate is derived from the rows the way pytest reaches it: a target
that is auto-evaluable and not correct failed its test, unless a known gap covers it (XFAIL);
a known gap that came out correct is an XPASS, a failure only with strict xfail.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_ttsbench.config import Settings
from pytest_ttsbench.gating.gate import (
    Collected,
    GateConfig,
    GateOutcome,
    evaluate_gate,
    final_status,
    write_gate,
    write_gate_updates,
)
from pytest_ttsbench.gating.known_gaps import KnownGaps, gaps_path, load_known_gaps
from pytest_ttsbench.gating.latency import config_budgets, merge_budgets, parse_budgets, parse_compare_fail
from pytest_ttsbench.gating.snapshots import read_snapshots, snapshot_path
from pytest_ttsbench.gating.thresholds import config_layer, parse_cli_thresholds
from pytest_ttsbench.protocols import DEFAULT_PROTOCOL, require_one_protocol, under_protocol
from pytest_ttsbench.provenance import RunHeader, read_header
from pytest_ttsbench.results import ItemResult, latest_per_target, read_results
from pytest_ttsbench.runs import gate_path


@dataclass(frozen=True)
class GateOptions:
    """The gate options of ``pytest`` (``--tts-threshold`` …), as ``ttsbench gate`` takes them."""

    thresholds: Sequence[str] = ()
    min_n: int | None = None
    floor_on: str | None = None
    strict_xfail: bool = False
    update_known_gaps: bool = False
    baseline: Path | None = None
    fail_on_regression: bool = False
    allow_asr_change: bool = False
    latency_budgets: Sequence[str] = ()
    latency_compare_fail: Sequence[str] = ()
    quality_floors: Sequence[str] = ()
    quality_ceilings: Sequence[str] = ()
    quality_tolerance: Sequence[str] = ()
    allow_quality_model_change: bool = False
    snapshot_mode: str = "report"
    update_snapshots: bool = False
    #: the protocol whose verdicts are gated (run and baseline alike); None: the run's own, which must be one
    protocol: str | None = None


def failed_tests(
    rows: Sequence[ItemResult], known_gaps: Mapping[str, KnownGaps], strict_xfail: bool
) -> tuple[set[tuple[str, str]], int]:
    """(verdict failures as (engine, target key), other failures): what pytest would have counted."""
    verdict_failures: set[tuple[str, str]] = set()
    other = 0
    for row in rows:
        if not row.auto_evaluable:
            continue  # recorded, then skipped
        gaps = known_gaps.get(row.engine)
        known = gaps is not None and gaps.match(row.id, row.key) is not None
        if row.verdict != "correct" and not known:
            verdict_failures.add((row.engine, row.key))
        elif row.verdict == "correct" and known and strict_xfail:
            other += 1  # XPASS(strict)
    return verdict_failures, other


def gate_config(
    settings: Settings, engines: Sequence[str], header: RunHeader | None, options: GateOptions
) -> GateConfig:
    """The gate's configuration from ``ttsbench gate``'s options, as the plugin builds it from pytest's."""
    baseline = None
    baseline_header = None
    if options.baseline is not None:
        # the latest row of each target, as the plugin reads a baseline (a file may hold appended runs)
        rows = latest_per_target(read_results(options.baseline.resolve()))
        protocol = options.protocol or (header.protocol if header else DEFAULT_PROTOCOL)
        baseline = tuple(under_protocol(row, protocol, f"--tts-baseline {options.baseline}") for row in rows)
        baseline_header = read_header(options.baseline.resolve())
    from pytest_ttsbench.quality.gates import allow_model_change, override_layers, unmeasured_bounds_error

    where = str(settings.source or "configuration")
    quality_layers = override_layers(
        settings.quality,
        where,
        list(options.quality_floors),
        list(options.quality_ceilings),
        list(options.quality_tolerance),
    )
    if baseline is None and any(bound.kind == "tolerance" for layer in quality_layers for bound in layer):
        # as the plugin refuses it when the session starts
        raise ValueError("--tts-quality-tolerance (or quality.tolerance) needs --tts-baseline RESULTS")
    quality_sets = tuple(header.quality_sets) if header is not None and header.quality_sets is not None else None
    if quality_sets is not None:
        # as the plugin refuses them when the session starts; a header that does not say is judged at the gate
        advice = "gate a run measured with --tts-quality {sets}"
        clip_engines = settings.clip_engines(engines)  # recorded transcripts are not asked quality bounds
        error = (
            unmeasured_bounds_error(quality_layers, quality_sets, clip_engines, "its run header", advice)
            if clip_engines
            else None
        )
        if error is not None:
            raise ValueError(error)
    snapshots = {}
    if options.snapshot_mode != "off":
        for engine in engines:
            path = snapshot_path(settings.base_dir, engine)
            snapshots[engine] = (path, read_snapshots(path))
    return GateConfig(
        engines=tuple(engines),
        repeats=header.repeats if header is not None else 1,
        repeat_policy=header.repeat_policy if header is not None else "all",
        floor_layers=(
            parse_cli_thresholds(list(options.thresholds), options.min_n, options.floor_on),
            config_layer(settings.thresholds, str(settings.source or "configuration")),
        ),
        known_gaps={
            engine: load_known_gaps(gaps_path(settings.base_dir, settings.known_gaps_dir, engine), engine)
            for engine in engines
        },
        update_known_gaps=options.update_known_gaps,
        baseline=baseline,
        baseline_path=options.baseline.resolve() if options.baseline is not None else None,
        fail_on_regression=options.fail_on_regression,
        baseline_header=baseline_header,
        allow_asr_change=options.allow_asr_change,
        latency_budgets=tuple(
            merge_budgets(
                parse_budgets(list(options.latency_budgets)),
                config_budgets(settings.latency_budgets, str(settings.source or "configuration")),
            )
        ),
        latency_compare_fail=tuple(parse_compare_fail(list(options.latency_compare_fail))),
        snapshot_mode=options.snapshot_mode,
        update_snapshots=options.update_snapshots,
        snapshots=snapshots,
        quality_layers=tuple(tuple(layer) for layer in quality_layers),
        quality_sets=quality_sets,
        allow_quality_model_change=allow_model_change(options.allow_quality_model_change, settings.quality),
    )


def gate_run(results_path: Path, settings: Settings, options: GateOptions) -> GateOutcome:
    """Gate the run in ``results_path`` and write its gate file beside it (and any planned rewrites)."""
    header = read_header(results_path)
    recorded = read_results(results_path)
    protocol = options.protocol or require_one_protocol({str(results_path): recorded}) or DEFAULT_PROTOCOL
    rows = [under_protocol(row, protocol, str(results_path)) for row in recorded]
    options = dataclasses.replace(options, protocol=protocol)
    engines = list(dict.fromkeys(row.engine for row in rows))
    if header is not None and header.engines:
        engines = list(header.engines)  # the order the run named them in, as the plugin gates them
    config = gate_config(settings, engines, header, options)
    collected = Collected(header=header)
    if header is not None:
        files = header.case_files
        collected.suite_thresholds = {suite: dict(entry.get("thresholds") or {}) for suite, entry in files.items()}
        collected.suite_quality = {suite: dict(entry.get("quality") or {}) for suite, entry in files.items()}
    collected.verdict_failures, collected.other_failures = failed_tests(rows, config.known_gaps, options.strict_xfail)
    # A recorded run's rows are all it says about its selection: an engine it names without a row
    # measured nothing (unknown selection), the others are judged on the rows they have.
    collected.selected = dict(Counter(row.engine for row in rows))
    status = 1 if collected.verdict_failures or collected.other_failures else 0
    outcome = evaluate_gate(rows, config, collected)
    write_gate_updates(outcome)
    outcome.exitstatus = final_status(outcome, status)
    write_gate(gate_path(results_path), outcome)
    return outcome
