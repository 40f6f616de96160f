"""``ttsbench dashboard RUNS_DIR [-o FOLDER]``: a static site from many runs' results files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE, add_allow_unverified, say_unverified
from pytest_ttsbench.registry import MissingDependency
from pytest_ttsbench.run_model.reader import unverified_notes

#: where the site goes when not told: not ``site/``, which ``mkdocs build`` owns and deletes
DEFAULT_OUT = "ttsbench-dashboard"


def _cmd_dashboard(args: argparse.Namespace) -> int:
    try:
        # Imported here so other subcommands never pay for loading matplotlib (an extra: the
        # import says what to install when it is missing).
        from pytest_ttsbench.reporting.dashboard import build_dashboard
    except MissingDependency as exc:
        print(f"ttsbench dashboard: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        index, runs = build_dashboard(
            Path(args.runs_dir), Path(args.out), args.title, allow_unverified=args.allow_unverified
        )
        say_unverified("dashboard", unverified_notes(runs))
    except (OSError, ValueError) as exc:
        print(f"ttsbench dashboard: {exc}", file=sys.stderr)
        return EXIT_USAGE
    engines = sorted({run.system for run in runs})
    print(f"wrote {index} ({len({run.path for run in runs})} run(s), engines: {', '.join(engines)})")
    return EXIT_OK


def add_command(subparsers: Any) -> None:
    """Add ``dashboard`` to a ``ttsbench`` subparsers object (from ``add_subparsers``)."""
    p = subparsers.add_parser(
        "dashboard", help="build a static site (history, leaderboard, regressions, items) from many runs"
    )
    p.add_argument("runs_dir", metavar="RUNS_DIR", help="folder of runs: RUNS_DIR/*/results.jsonl or RUNS_DIR/*.jsonl")
    p.add_argument(
        "-o",
        "--out",
        default=DEFAULT_OUT,
        metavar="FOLDER",
        help=f"folder to write the site into (default: {DEFAULT_OUT}; not site/, which mkdocs build deletes)",
    )
    p.add_argument("--title", default="TTS benchmark dashboard", help="title of the site")
    add_allow_unverified(p)
    p.set_defaults(func=_cmd_dashboard)
