"""``ttsbench merge SHARD... -o RUN``: join the results of ``pytest --tts-shard I/N`` jobs into one run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, add_allow_unverified, say_unverified
from pytest_ttsbench.run_model.merging import MergeError, merge_runs, write_merged
from pytest_ttsbench.run_model.provenance import RunHeaderError
from pytest_ttsbench.run_model.reader import RUNS_HELP


def _cmd_merge(args: argparse.Namespace) -> int:
    try:
        run = merge_runs(
            [Path(p) for p in args.shards], allow_partial=args.allow_partial, allow_unverified=args.allow_unverified
        )
        say_unverified("merge", run.unverified)
    except MergeError as exc:
        print(f"ttsbench merge: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except (OSError, ValueError, RunHeaderError) as exc:
        print(f"ttsbench merge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        results = write_merged(run, Path(args.output))
    except (OSError, ValueError) as exc:  # MergeError, a claimed output (RerunError): both ValueErrors
        print(f"ttsbench merge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    shards = ", ".join(run.header.shards) or "one run"
    print(f"merged {len(run.rows)} result(s) from {len(args.shards)} shard(s) ({shards}) into {results}")
    if run.unverified:
        print(
            "the merged run has no manifest (a shard did not verify): its readers refuse it without --allow-unverified"
        )
    if run.header.missing_shards:
        print(
            f"shard(s) {', '.join(run.header.missing_shards)} never ran: `ttsbench gate` fails on them unless "
            "given --tts-allow-unmeasured-bounds"
        )
    return EXIT_OK


def add_command(commands: Any) -> None:
    p = commands.add_parser(
        "merge",
        help="join the results of pytest --tts-shard I/N jobs into one run",
        description="Join shard results into one run, refusing shards of different configurations, "
        "missing shards or items in two shards. Gate the result with `ttsbench gate`.",
    )
    p.add_argument("shards", nargs="+", metavar="SHARD", help=RUNS_HELP)
    p.add_argument("-o", "--output", required=True, metavar="RUN", help="a new .jsonl file, or a new run folder")
    p.add_argument("--allow-partial", action="store_true", help="merge even when some shards of the split are missing")
    add_allow_unverified(p)
    p.set_defaults(func=_cmd_merge)
