"""``ttsbench rescore CASES --transcripts FILE``: verdicts and the summary from stored transcripts."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.loader import CASE_SUFFIXES, CaseFileError
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.engines.base import EngineUnavailable
from pytest_ttsbench.pipeline.rescore import Guard, item_json, load_suites, rescore, summary_json, verdict_moves
from pytest_ttsbench.protocols import DEFAULT_PROTOCOL, PROTOCOL_HELP, PROTOCOLS, difference_tally
from pytest_ttsbench.reporting.protocol_tally import tally_lines
from pytest_ttsbench.reporting.terminal import summary_lines
from pytest_ttsbench.run_model.manifest import expand_inputs, write_manifest
from pytest_ttsbench.run_model.provenance import header_path, write_header
from pytest_ttsbench.run_model.reruns import claimed_output
from pytest_ttsbench.run_model.results import ItemResult, read_results, write_results
from pytest_ttsbench.run_model.transcripts import TranscriptsError
from pytest_ttsbench.session.provenance_capture import rescore_header
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE, number_option
from pytest_ttsbench.support.json_documents import dump_json


def _guarded_write(out: Path, results: list[ItemResult], guards: Sequence[Guard]) -> bool:
    """Write ``out`` unless a guarded slice's verdicts moved since the results stored there."""
    if guards and out.is_file():
        moves = verdict_moves(read_results(out), results, guards)
        guarded = [m for m in moves if m.guards]
        if guarded:
            slices = ", ".join(str(g) for g in guards)
            print(
                f"ttsbench rescore: refusing to overwrite {out}: {len(guarded)} verdict(s) moved "
                f"in guarded slice(s) {slices}:",
                file=sys.stderr,
            )
            for move in guarded:
                print(f"  {move}", file=sys.stderr)
            return False
        if moves:
            print(f"ttsbench rescore: {len(moves)} verdict(s) moved outside the guarded slices", file=sys.stderr)
    write_results(out, results)
    return True


def _cmd_rescore(args: argparse.Namespace) -> int:
    try:
        guards = [Guard.parse(text) for text in args.guard]
        if guards and not args.out:
            raise ValueError("--guard needs --out: the stored results to compare with")
        case_paths = [Path(p) for p in args.cases]
        suites = load_suites(case_paths)
        outcome = rescore(
            suites, Path(args.transcripts), engine_name=args.engine, quorum=args.quorum, protocol=args.protocol
        )
    except (CaseFileError, TranscriptsError, EngineUnavailable, ValueError) as exc:
        print(f"ttsbench rescore: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.out:
        out = Path(args.out)
        header = rescore_header(suites, Path(args.transcripts), args.engine, outcome.routes, args.quorum, args.protocol)
        inputs = expand_inputs(case_paths, CASE_SUFFIXES) + expand_inputs([Path(args.transcripts)], (".jsonl",))
        try:
            with claimed_output(out, "ttsbench rescore --out"):  # as a run claims its --tts-results
                if not _guarded_write(out, outcome.results, guards):
                    return EXIT_REFUSED
                write_header(header_path(out), header)
                write_manifest(out, inputs, project=Path.cwd())
        except (OSError, ValueError) as exc:  # unreadable stored results, a refused write, a claimed file
            print(f"ttsbench rescore: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.json:
        payload = {
            "items": [item_json(r) for r in outcome.results],
            "summary": summary_json(outcome.results, args.breakdown),
            "missing_transcripts": outcome.missing,
            "unmatched_transcripts": outcome.unmatched_rows,
            "overwritten_transcripts": outcome.overwritten_rows,
            "routes": outcome.routes,
            "protocol": args.protocol,
            "protocol_differences": [d.to_dict() for d in difference_tally(outcome.results)],
        }
        sys.stdout.write(dump_json(payload, null_non_finite=True, ensure_ascii=False, indent=2))
        sys.stdout.write("\n")
        return EXIT_OK
    print(f"protocol: {args.protocol}")
    for line in summary_lines(outcome.results, args.breakdown):
        print(line)
    for line in tally_lines(outcome.results):
        print(line)
    if outcome.missing:
        print(f"\n{len(outcome.missing)} target(s) with no transcript (counted unknown):")
        for key in outcome.missing:
            print(f"  {key}")
    if outcome.overwritten_rows:
        print(
            f"\n{len(outcome.overwritten_rows)} id(s) had more than one transcript row; the last one was used: "
            f"{', '.join(outcome.overwritten_rows[:10])}"
        )
    if outcome.unmatched_rows:
        print(
            f"\n{len(outcome.unmatched_rows)} transcript row(s) match no item: {', '.join(outcome.unmatched_rows[:10])}"
        )
    return EXIT_OK


def add_command(commands: Any) -> None:
    p = commands.add_parser("rescore", help="re-derive verdicts and the summary from stored transcripts")
    p.add_argument("cases", nargs="+", help="case files or folders (YAML, or supported JSONL benchmarks)")
    p.add_argument("--transcripts", required=True, help="JSON-lines transcripts file or folder")
    p.add_argument("--json", action="store_true", help="print items and summary as JSON")
    p.add_argument("--out", help="also write a results file (JSON lines)")
    p.add_argument("--engine", default="transcripts", help="system name recorded in results (default: transcripts)")
    p.add_argument("--protocol", choices=PROTOCOLS, default=DEFAULT_PROTOCOL, help=PROTOCOL_HELP)
    p.add_argument(
        "--quorum", type=number_option("--quorum", AT_LEAST_ONE), help="routes that must agree (default: majority)"
    )
    p.add_argument("--breakdown", action="append", default=[], metavar="FACET", help="summarize by a facet")
    p.add_argument(
        "--guard",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="with --out: refuse to overwrite when verdicts in this slice (a results field such as "
        "category=years, or a facet such as form=western) moved; repeatable",
    )
    p.set_defaults(func=_cmd_rescore)
