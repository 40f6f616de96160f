"""``ttsbench listening export|report|workflow``: a human listening round, from runs to figures.

* ``export RUN... -o KIT --listeners N [--seed S]``: an anonymous kit (pages and clips for the
  listeners, the key kept apart).
* ``report KIT SHEET... [--json] [-o DIR]``: per-dimension figures from the sheets listeners send back.
* ``workflow RUN... [--json]``: time to first playable audio, controls and formats, apart from ratings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE, add_allow_unverified
from pytest_ttsbench.listening.kit import LISTENERS_DIR, PRIVATE_DIR, KitError, export_kit
from pytest_ttsbench.listening.report import REPORT_DIR, build_report, report_lines, write_report
from pytest_ttsbench.listening.sheets import SheetError
from pytest_ttsbench.listening.workflow import workflow_lines, workflow_report
from pytest_ttsbench.run_model.reader import RUNS_HELP
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE, WHOLE, number_option
from pytest_ttsbench.support.json_documents import dump_json


def _print_json(document: Any) -> None:
    sys.stdout.write(dump_json(document, null_non_finite=True, ensure_ascii=False, indent=2))
    sys.stdout.write("\n")


def _cmd_export(args: argparse.Namespace) -> int:
    try:
        kit = export_kit(
            [Path(p) for p in args.runs],
            Path(args.output),
            args.listeners,
            args.seed,
            allow_unverified=args.allow_unverified,
        )
    except (KitError, OSError, ValueError) as exc:
        print(f"ttsbench listening export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"kit: {kit.root}")
    print(f"  {len(kit.clips)} clips, {len(kit.groups)} consistency groups, {len(kit.listeners)} listeners")
    print(f"  send:  {kit.root / LISTENERS_DIR}")
    print(f"  keep:  {kit.root / PRIVATE_DIR} (the key: which system made each clip)")
    if kit.missing:
        print(f"  {len(kit.missing)} generation(s) missing or failed, listed in {kit.root / PRIVATE_DIR}/missing.json:")
        for m in kit.missing:
            print(f"    {m.system} {m.prompt} generation {m.generation}: {m.reason}")
    for prompt, review in sorted(kit.pending_reviews.items()):
        print(f"  prompt {prompt} needs {review} review before any comparison is published")
    return EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    kit = Path(args.kit)
    sheets = [Path(p) for p in args.sheets]
    try:
        report = build_report(kit, sheets)
        write_report(kit, sheets, report, Path(args.output) if args.output else kit / REPORT_DIR)
    except (SheetError, OSError) as exc:
        print(f"ttsbench listening report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        _print_json(report.to_dict())
    else:
        print("\n".join(report_lines(report)))
    return EXIT_OK


def _cmd_workflow(args: argparse.Namespace) -> int:
    try:
        report = workflow_report([Path(p) for p in args.runs], allow_unverified=args.allow_unverified)
    except (OSError, ValueError) as exc:
        print(f"ttsbench listening workflow: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        _print_json(report.to_dict())
    else:
        print("\n".join(workflow_lines(report)))
    return EXIT_OK


def add_command(commands: Any) -> None:
    """Add ``listening`` and its three subcommands."""
    p = commands.add_parser("listening", help="human listening rounds: anonymous kits, rating reports, workflow")
    sub = p.add_subparsers(dest="listening_command", required=True, metavar="STEP")

    export = sub.add_parser("export", help="build an anonymous listening kit from runs")
    export.add_argument("runs", nargs="+", metavar="RUN", help=RUNS_HELP)
    export.add_argument("-o", "--output", required=True, metavar="KIT", help="new folder for the kit")
    add_allow_unverified(export)
    export.add_argument(
        "--listeners",
        type=number_option("--listeners", AT_LEAST_ONE),
        required=True,
        metavar="N",
        help="number of listeners (pages)",
    )
    export.add_argument(
        "--seed",
        type=number_option("--seed", WHOLE),
        help="draw ids and orders from this seed (the same seed and runs rebuild the same kit)",
    )
    export.set_defaults(func=_cmd_export)

    report = sub.add_parser("report", help="per-dimension figures from the listeners' rating sheets")
    report.add_argument("kit", metavar="KIT", help="the kit folder made by export")
    report.add_argument("sheets", nargs="+", metavar="SHEET", help="CSV files downloaded from the listening pages")
    report.add_argument("--json", action="store_true", help="print the figures as JSON")
    report.add_argument(
        "-o", "--output", metavar="DIR", help=f"where to write the summary and raw sheets (KIT/{REPORT_DIR})"
    )
    report.set_defaults(func=_cmd_report)

    workflow = sub.add_parser("workflow", help="time to first playable audio, controls and formats per system")
    workflow.add_argument("runs", nargs="+", metavar="RUN", help=RUNS_HELP)
    workflow.add_argument("--json", action="store_true", help="print the measures as JSON")
    add_allow_unverified(workflow)
    workflow.set_defaults(func=_cmd_workflow)
