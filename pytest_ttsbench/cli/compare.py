"""``ttsbench compare BASELINE CANDIDATE [--json]``: the baseline comparison of a pytest run, offline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.contracts import require_one_contract
from pytest_ttsbench.gating.baseline import attach_provenance, compare, comparison_lines
from pytest_ttsbench.gating.repeats import POLICIES
from pytest_ttsbench.provenance import read_header
from pytest_ttsbench.runs import load_runs, results_file, rows_of


def _cmd_compare(args: argparse.Namespace) -> int:
    try:
        baseline = load_runs([Path(args.baseline)])
        candidate = load_runs([Path(args.candidate)])
        if not args.allow_contract_mix:
            require_one_contract(
                {f"baseline {args.baseline}": rows_of(baseline), f"candidate {args.candidate}": rows_of(candidate)}
            )
        # One policy for both sides, so a pair is judged alike: the option, else the candidate's own.
        policy = args.repeat_policy or candidate[0].repeat_policy
        comparison = compare(rows_of(baseline), rows_of(candidate), policy)
        attach_provenance(
            comparison,
            read_header(results_file(Path(args.baseline))),
            read_header(results_file(Path(args.candidate))),
        )
    except (OSError, TypeError, ValueError) as exc:
        print(f"ttsbench compare: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        json.dump(comparison.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"baseline:  {args.baseline}")
        print(f"candidate: {args.candidate}")
        for line in comparison_lines(comparison):
            print(line)
    if not args.fail_on_regression:
        return EXIT_OK
    unattributed = bool(comparison.recognizer_changes) and not args.allow_asr_change
    if comparison.regressions and unattributed:
        print(
            f"not counted as TTS regressions: {len(comparison.regressions)} verdict change(s) with another "
            "recognizer (--allow-asr-change counts them)",
            file=sys.stderr,
        )
    if comparison.missing:
        # A target the baseline measured and the candidate did not is not known to still work.
        print(
            f"ttsbench compare: {len(comparison.missing)} target(s) of the baseline are missing from the candidate",
            file=sys.stderr,
        )
    regressed = bool(comparison.regressions) and not unattributed
    return EXIT_REFUSED if regressed or comparison.missing else EXIT_OK


def add_command(subparsers: Any) -> None:
    """Add ``compare`` to a ``ttsbench`` subparsers object (from ``add_subparsers``)."""
    p = subparsers.add_parser("compare", help="compare two results files: regressions, fixes, McNemar p-value")
    p.add_argument("baseline", help="the earlier run: results file (JSON lines) or run folder")
    p.add_argument("candidate", help="the later run: results file (JSON lines) or run folder")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument(
        "--repeat-policy",
        choices=POLICIES,
        help="how several generations make one verdict (default: the candidate run's own, else all)",
    )
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when any target regressed or is missing from the candidate",
    )
    p.add_argument("--allow-contract-mix", action="store_true", help="compare runs that sent different text contracts")
    p.add_argument(
        "--allow-asr-change",
        action="store_true",
        help="with --fail-on-regression: count regressions even when the ASR model or decoding mode changed",
    )
    p.set_defaults(func=_cmd_compare)
