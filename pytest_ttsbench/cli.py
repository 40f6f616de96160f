"""The ``ttsbench`` command: work on cases, transcripts and results files without pytest."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_ttsbench.cases.loader import CaseFileError
from pytest_ttsbench.reporting.terminal import summary_lines
from pytest_ttsbench.rescore import item_json, load_suites, rescore, summary_json
from pytest_ttsbench.results import write_results
from pytest_ttsbench.transcripts import TranscriptsError


def _cmd_rescore(args: argparse.Namespace) -> int:
    try:
        suites = load_suites([Path(p) for p in args.cases])
        outcome = rescore(suites, Path(args.transcripts), engine_name=args.engine, quorum=args.quorum)
    except (CaseFileError, TranscriptsError, ValueError) as exc:
        print(f"ttsbench rescore: {exc}", file=sys.stderr)
        return 2
    if args.out:
        write_results(Path(args.out), outcome.results)
    if args.json:
        payload = {
            "items": [item_json(r) for r in outcome.results],
            "summary": summary_json(outcome.results, args.breakdown),
            "missing_transcripts": outcome.missing,
            "unmatched_transcripts": outcome.unmatched_rows,
            "routes": outcome.routes,
        }
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    for line in summary_lines(outcome.results, args.breakdown):
        print(line)
    if outcome.missing:
        print(f"\n{len(outcome.missing)} target(s) with no transcript (counted unknown):")
        for key in outcome.missing:
            print(f"  {key}")
    if outcome.unmatched_rows:
        print(
            f"\n{len(outcome.unmatched_rows)} transcript row(s) match no item: {', '.join(outcome.unmatched_rows[:10])}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ttsbench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("rescore", help="re-derive verdicts and the summary from stored transcripts")
    p.add_argument("cases", nargs="+", help="case files or folders (YAML, or supported JSONL benchmarks)")
    p.add_argument("--transcripts", required=True, help="JSON-lines transcripts file or folder")
    p.add_argument("--json", action="store_true", help="print items and summary as JSON")
    p.add_argument("--out", help="also write a results file (JSON lines)")
    p.add_argument("--engine", default="transcripts", help="system name recorded in results (default: transcripts)")
    p.add_argument("--quorum", type=int, help="routes that must agree (default: majority)")
    p.add_argument("--breakdown", action="append", default=[], metavar="FACET", help="summarize by a facet")
    p.set_defaults(func=_cmd_rescore)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
