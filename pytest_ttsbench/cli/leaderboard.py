"""``ttsbench leaderboard RUN...``: systems ranked by strict accuracy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE, add_allow_unverified, say_unverified
from pytest_ttsbench.cli.diagnostics import run_diagnostics
from pytest_ttsbench.protocols import PROTOCOL_HELP, PROTOCOLS, runs_under
from pytest_ttsbench.reporting.leaderboard import entries_from_runs, merge_entries, render, update_leaderboard_file
from pytest_ttsbench.run_model.reader import RUNS_HELP, load_runs, unverified_notes
from pytest_ttsbench.run_model.text_variants import require_one_contract


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    try:
        runs = runs_under(
            load_runs([Path(p) for p in args.runs], allow_unverified=args.allow_unverified), args.protocol
        )
        say_unverified("leaderboard", unverified_notes(runs))
        if not args.allow_contract_mix:
            # keyed by file and engine: two runs of one engine on one day must both be seen
            require_one_contract({f"{run.system} in {run.path}": list(run.rows) for run in runs})
        entries = entries_from_runs(runs)
        # --store keeps the board's earlier dated entries; without it, the runs given are the board.
        entries = update_leaderboard_file(Path(args.store), entries) if args.store else merge_entries([], entries)
        sys.stdout.write(render(entries, args.format))
    except (OSError, ValueError, KeyError) as exc:
        print(f"ttsbench leaderboard: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.diagnostics:
        sys.stdout.write("\n")
        return run_diagnostics(args)
    return EXIT_OK


def add_command(commands: Any) -> None:
    p = commands.add_parser("leaderboard", help="rank systems by strict accuracy from results files")
    p.add_argument("runs", nargs="+", metavar="RUN", help=RUNS_HELP)
    p.add_argument(
        "--format", choices=("markdown", "csv", "json"), default="markdown", help="output format (default: markdown)"
    )
    p.add_argument("--store", metavar="FILE", help="merge into this stored leaderboard JSON (earlier dates are kept)")
    p.add_argument(
        "--protocol", choices=PROTOCOLS, help=f"the verdicts ranked: {PROTOCOL_HELP} (default: the runs', if one)"
    )
    p.add_argument("--diagnostics", action="store_true", help="also print the route diagnostics per system")
    p.add_argument(
        "--allow-contract-mix", action="store_true", help="rank runs that sent different text contracts together"
    )
    add_allow_unverified(p)
    p.set_defaults(func=_cmd_leaderboard)
