"""``ttsbench compare BASELINE CANDIDATE [--json]``: the baseline comparison of a pytest run, offline.

Besides regressions, fixes and McNemar's p, each changed item shows its text, what was heard
before and after and both clips, and the runs' clip durations and speaking rates, so the cause
of a regression (a voice that speeds up, a new recognizer) is in front of the reader. With
several generations per item, a pair counts only when its majority verdict flips, as in the gate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, add_allow_unverified, say_unverified
from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.gating.baseline import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_RATE,
    RegressionRule,
    attach_provenance,
    blame,
    compare,
)
from pytest_ttsbench.gating.bounds import RunFacts, gate_reasons
from pytest_ttsbench.protocols import PROTOCOL_HELP, PROTOCOLS, require_one_protocol, runs_under
from pytest_ttsbench.reporting.comparison import comparison_lines
from pytest_ttsbench.run_model.known_gaps import gaps_path, load_known_gaps, rows_on_known_gaps
from pytest_ttsbench.run_model.provenance import read_header
from pytest_ttsbench.run_model.reader import RUNS_HELP, load_runs, results_file, rows_of, unverified_notes
from pytest_ttsbench.run_model.text_variants import require_one_contract
from pytest_ttsbench.session.gate_options import ALLOW_UNMEASURED_SPEC
from pytest_ttsbench.support.checked_numbers import ALPHA, COUNT, SHARE, number_option
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.option_specs import add_options


def _cmd_compare(args: argparse.Namespace) -> int:
    try:
        baseline = load_runs([Path(args.baseline)], allow_unverified=args.allow_unverified)
        candidate = load_runs([Path(args.candidate)], allow_unverified=args.allow_unverified)
        say_unverified("compare", unverified_notes([*baseline, *candidate]))
        if args.protocol is None:
            require_one_protocol(
                {f"baseline {args.baseline}": rows_of(baseline), f"candidate {args.candidate}": rows_of(candidate)}
            )
        baseline, candidate = runs_under(baseline, args.protocol), runs_under(candidate, args.protocol)
        if not args.allow_contract_mix:
            require_one_contract(
                {f"baseline {args.baseline}": rows_of(baseline), f"candidate {args.candidate}": rows_of(candidate)}
            )
        comparison = compare(rows_of(baseline), rows_of(candidate))
        attach_provenance(
            comparison,
            read_header(results_file(Path(args.baseline))),
            read_header(results_file(Path(args.candidate))),
        )
        # The project's known gaps, as the gate reads them: their regressions are expected, not counted.
        settings = load_settings(Path(args.rootdir).resolve())
        engines = sorted({row.engine for row in rows_of(candidate)})
        known = {e: load_known_gaps(gaps_path(settings.base_dir, settings.known_gaps_dir, e), e) for e in engines}
    except (OSError, TypeError, ValueError, ConfigError) as exc:  # KnownGapsError is a ValueError
        print(f"ttsbench compare: {exc}", file=sys.stderr)
        return EXIT_USAGE
    rate = None if args.max_regression_rate >= 1 else args.max_regression_rate
    rule = RegressionRule(args.alpha, args.max_regressions, rate)
    # The regressions counted against the voice: the gate's own question (known gaps, another recognizer).
    found = blame(comparison, rows_on_known_gaps(rows_of(candidate), known), args.allow_asr_change)
    # The rule judged as the gate judges it: one bound, whose "not measured" fails unless allowed.
    facts = RunFacts((), (), (), comparison=comparison, blocking_regressions=found.blocking)
    reasons = gate_reasons(rule.judge(facts), args.tts_allow_unmeasured_bounds)
    if args.json:
        document = comparison.to_dict()
        document["gate"] = {"rule": rule.to_dict(), "reasons": reasons}
        sys.stdout.write(dump_json(document, null_non_finite=True, ensure_ascii=False, indent=2))
        sys.stdout.write("\n")
    else:
        print(f"baseline:  {args.baseline}")
        print(f"candidate: {args.candidate}")
        for line in comparison_lines(comparison, found.known_gap_ids):
            print(line)
        for reason in reasons:
            print(f"regression gate: {reason}")
    if not args.fail_on_regression:
        return EXIT_OK
    if found.unattributed:
        print(
            f"not counted as TTS regressions: {len(found.unattributed)} verdict change(s) with another "
            "recognizer (--allow-asr-change counts them)",
            file=sys.stderr,
        )
    return EXIT_REFUSED if reasons else EXIT_OK


def add_command(subparsers: Any) -> None:
    """Add ``compare`` to a ``ttsbench`` subparsers object (from ``add_subparsers``)."""
    p = subparsers.add_parser("compare", help="compare two runs: regressions, fixes, McNemar p, transcripts, audio")
    p.add_argument("baseline", help=f"the earlier run: {RUNS_HELP}")
    p.add_argument("candidate", help=f"the later run: {RUNS_HELP}")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when the regressions fail the regression gate (see --alpha and the limits)",
    )
    p.add_argument(
        "--alpha",
        type=number_option("--alpha", ALPHA),
        default=DEFAULT_ALPHA,
        help=f"McNemar significance level (default {DEFAULT_ALPHA})",
    )
    p.add_argument(
        "--max-regressions",
        type=number_option("--max-regressions", COUNT),
        default=None,
        help="fail on more than N regressions (default: no limit)",
    )
    p.add_argument(
        "--max-regression-rate",
        type=number_option("--max-regression-rate", SHARE),
        default=DEFAULT_MAX_RATE,
        help=f"fail when more than this share of paired targets regressed; 1 switches it off "
        f"(default {DEFAULT_MAX_RATE})",
    )
    p.add_argument(
        "--protocol", choices=PROTOCOLS, help=f"the verdicts compared: {PROTOCOL_HELP} (default: the runs', if one)"
    )
    p.add_argument("--allow-contract-mix", action="store_true", help="compare runs that sent different text contracts")
    p.add_argument(
        "--allow-asr-change",
        action="store_true",
        help="with --fail-on-regression: count regressions even when the ASR model or decoding mode changed",
    )
    p.add_argument(
        "--rootdir",
        default=".",
        help="where ttsbench.yaml and known_gaps/ are: a known gap's regression is not counted, as in the gate "
        "(default: .)",
    )
    add_options(p.add_argument, (ALLOW_UNMEASURED_SPEC,))
    add_allow_unverified(p)
    p.set_defaults(func=_cmd_compare)
