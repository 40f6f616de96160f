"""``ttsbench report NAME RUN... -o FILE``: a report registered under NAME, written from results files.

Reports come from the ``pytest_ttsbench.reports`` entry point (see
:mod:`pytest_ttsbench.reporting.registry`); ``ttsbench report --list`` names the known ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE, add_allow_unverified, say_unverified
from pytest_ttsbench.registry import MissingDependency, UnknownName
from pytest_ttsbench.reporting.registry import REPORTS
from pytest_ttsbench.run_model.reader import RUNS_HELP, load_runs, unverified_notes


def _cmd_report(args: argparse.Namespace) -> int:
    if args.list:
        names = REPORTS.names()
        print("\n".join(names) if names else "no report registered (entry point group pytest_ttsbench.reports)")
        return EXIT_OK
    if not args.name or not args.runs or not args.out:
        print("ttsbench report: give NAME, at least one RUN and -o FILE (or --list)", file=sys.stderr)
        return EXIT_USAGE
    try:
        writer = REPORTS.get(args.name)
        runs = load_runs([Path(p) for p in args.runs], allow_unverified=args.allow_unverified)
        say_unverified("report", unverified_notes(runs))
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        writer(runs, out)
    except (UnknownName, MissingDependency, OSError, ValueError, KeyError) as exc:
        print(f"ttsbench report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {out} (report {args.name!r}, {len(runs)} run(s))")
    return EXIT_OK


def add_command(subparsers: Any) -> None:
    """Add ``report`` to a ``ttsbench`` subparsers object (from ``add_subparsers``)."""
    p = subparsers.add_parser("report", help="write a registered report (entry point pytest_ttsbench.reports)")
    p.add_argument("name", metavar="NAME", nargs="?", help="the report's registered name")
    p.add_argument("runs", nargs="*", metavar="RUN", help=RUNS_HELP)
    p.add_argument("-o", "--out", metavar="FILE", help="the file to write")
    p.add_argument("--list", action="store_true", help="name every registered report and exit")
    add_allow_unverified(p)
    p.set_defaults(func=_cmd_report)
