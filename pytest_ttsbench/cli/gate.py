"""``ttsbench gate RUN``: the plugin's release gate over a run on disk (a merged run of shards, typically).

The options are the plugin's gate options under the same names, and the exit status is the one
the unsplit pytest run would have ended with: 0 the gate passed, 1 it failed (2 for bad input).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_USAGE
from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.gating.known_gaps import KnownGapsError
from pytest_ttsbench.gating.latency import LatencyError
from pytest_ttsbench.gating.recorded import GateOptions, gate_run
from pytest_ttsbench.gating.snapshots import MODES as SNAPSHOT_MODES
from pytest_ttsbench.gating.thresholds import FLOOR_ON, ThresholdError
from pytest_ttsbench.protocols import PROTOCOL_HELP, PROTOCOLS
from pytest_ttsbench.provenance import RunHeaderError
from pytest_ttsbench.reporting.terminal import gate_lines
from pytest_ttsbench.runs import gate_path, results_file


def _cmd_gate(args: argparse.Namespace) -> int:
    try:
        results = results_file(Path(args.run))
        settings = load_settings(Path(args.rootdir).resolve())
        baseline = Path(args.tts_baseline) if args.tts_baseline else None
        if baseline is not None and not baseline.is_file():
            raise ValueError(f"--tts-baseline: no results file at {baseline}")
        if args.tts_fail_on_regression and baseline is None:
            raise ValueError("--tts-fail-on-regression needs --tts-baseline RESULTS")
        if args.tts_quality_tolerance and baseline is None:
            raise ValueError("--tts-quality-tolerance needs --tts-baseline RESULTS")
        options = GateOptions(
            thresholds=args.tts_threshold,
            min_n=args.tts_min_n,
            floor_on=args.tts_floor_on,
            strict_xfail=args.tts_strict_xfail,
            baseline=baseline,
            fail_on_regression=args.tts_fail_on_regression,
            snapshot_mode=args.tts_snapshot,
            allow_asr_change=args.tts_allow_asr_change,
            latency_budgets=args.tts_latency_budget,
            latency_compare_fail=args.tts_latency_compare_fail,
            update_known_gaps=args.tts_update_known_gaps,
            quality_floors=args.tts_quality_floor,
            quality_ceilings=args.tts_quality_ceiling,
            quality_tolerance=args.tts_quality_tolerance,
            allow_quality_model_change=args.tts_allow_quality_model_change,
            protocol=args.protocol,
        )
        outcome = gate_run(results, settings, options)
    except (OSError, ValueError, ConfigError, ThresholdError, KnownGapsError, RunHeaderError, LatencyError) as exc:
        print(f"ttsbench gate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in gate_lines(outcome):
        print(line)
    print(f"gate file: {gate_path(results)}")
    return int(outcome.exitstatus or 0)


def add_command(commands: Any) -> None:
    p = commands.add_parser(
        "gate",
        help="the release gate over a run on disk (e.g. merged shards), with the plugin's options and exit statuses",
    )
    p.add_argument("run", metavar="RUN", help="a results file or a run folder holding results.jsonl")
    p.add_argument("--rootdir", default=".", help="where ttsbench.yaml and known_gaps/ are (default: .)")
    p.add_argument("--tts-threshold", action="append", default=[], metavar="[SUITE/]KEY=FLOOR", help="as in pytest")
    p.add_argument("--tts-min-n", type=int, metavar="N", help="as in pytest (default: 5)")
    p.add_argument("--tts-floor-on", choices=FLOOR_ON, help="as in pytest (default: point)")
    p.add_argument("--tts-strict-xfail", action="store_true", help="as in pytest")
    p.add_argument("--tts-update-known-gaps", action="store_true", help="as in pytest")
    p.add_argument("--tts-baseline", metavar="RESULTS", help="as in pytest")
    p.add_argument("--tts-fail-on-regression", action="store_true", help="as in pytest")
    p.add_argument(
        "--tts-latency-budget", action="append", default=[], metavar="ENGINE=FIGURE:DURATION", help="as in pytest"
    )
    p.add_argument(
        "--tts-latency-compare-fail", action="append", default=[], metavar="FIGURE:PERCENT", help="as in pytest"
    )
    for kind in ("floor", "ceiling", "tolerance"):
        p.add_argument(
            f"--tts-quality-{kind}", action="append", default=[], metavar="[SCOPE/]MEASURE=VALUE", help="as in pytest"
        )
    p.add_argument("--tts-allow-asr-change", action="store_true", help="as in pytest")
    p.add_argument("--tts-allow-quality-model-change", action="store_true", help="as in pytest")
    p.add_argument("--protocol", choices=PROTOCOLS, help=f"the verdicts gated: {PROTOCOL_HELP} (default: the run's)")
    p.add_argument("--tts-snapshot", choices=SNAPSHOT_MODES, default="report", help="as in pytest (default: report)")
    p.set_defaults(func=_cmd_gate)
