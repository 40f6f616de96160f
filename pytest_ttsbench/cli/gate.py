"""``ttsbench gate RUN``: the plugin's release gate over a run on disk (a merged run of shards, typically).

The options are the plugin's gate options, declared once for both (gating/options.py) and checked
by the same function, and the exit status is the one the unsplit pytest run would have ended
with: 0 the gate passed, 1 it failed (2 for bad input, a refused option combination among it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_USAGE
from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.gating.options import add_gate_options, read_gate_options
from pytest_ttsbench.gating.stored_run import gate_run
from pytest_ttsbench.protocols import PROTOCOL_HELP, PROTOCOLS
from pytest_ttsbench.reporting.terminal import gate_lines
from pytest_ttsbench.run_model.provenance import RunHeaderError
from pytest_ttsbench.run_model.reader import gate_path, results_file


def _cmd_gate(args: argparse.Namespace) -> int:
    try:
        results = results_file(Path(args.run))
        settings = load_settings(Path(args.rootdir).resolve())
        options = read_gate_options(lambda dest: getattr(args, dest))
        outcome = gate_run(results, settings, options, protocol=args.protocol)
    except (OSError, ValueError, ConfigError, RunHeaderError) as exc:  # GateOptionError is a ValueError
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
    add_gate_options(p.add_argument)
    # the spelling every other subcommand takes, for the same opt-in
    p.add_argument(
        "--allow-unverified", dest="tts_allow_unverified", action="store_true", help="as --tts-allow-unverified"
    )
    p.add_argument("--protocol", choices=PROTOCOLS, help=f"the verdicts gated: {PROTOCOL_HELP} (default: the run's)")
    p.set_defaults(func=_cmd_gate)
