"""``ttsbench diagnostics RUN...``: per-route accuracy, agreement and route-subset ablation."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_USAGE
from pytest_ttsbench.gating.diagnostics import ablation, pairwise_agreement, route_accuracy
from pytest_ttsbench.reporting.leaderboard import Run
from pytest_ttsbench.runs import RUNS_HELP, load_runs, route_names


def diagnostics_json(run: Run) -> dict[str, Any]:
    """Single-route accuracy, pairwise tri-label agreement and the route-subset ablation of one run."""
    routes = sorted(route_names(run.results))
    buckets = ablation(run.results, routes)
    return {
        "system": run.system,
        "date": run.date,
        "routes": routes,
        "route_accuracy": route_accuracy(run.results),
        "agreement": [
            {"routes": [a.first, a.second], "n": a.n, "agree": a.agree, "rate": a.rate}
            for a in pairwise_agreement(run.results).values()
        ],
        "ablation": [
            {"routes": list(subset), **{k: v for k, v in bucket.to_dict().items() if k != "routes"}}
            for subset, bucket in buckets.items()
        ],
    }


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.6f}"


def diagnostics_lines(report: dict[str, Any]) -> list[str]:
    """The diagnostics of one run as plain text."""
    lines = [f"{report['system']} ({report['date']}): ASR routes {', '.join(report['routes']) or '(none)'}"]
    lines.append("  strict accuracy per single route:")
    lines += [f"    {name:<40} {_rate(value)}" for name, value in report["route_accuracy"].items()]
    if report["agreement"]:
        lines.append("  pairwise agreement (correct / wrong / unknown):")
        for pair in report["agreement"]:
            label = " ~ ".join(pair["routes"])
            lines.append(f"    {label:<40} {_rate(pair['rate'])}  ({pair['agree']}/{pair['n']})")
    lines.append("  route subsets (majority of the subset; two routes must agree):")
    header = f"    {'routes':<60} {'n':>5} {'correct':>7} {'wrong':>6} {'unknown':>7}  {'strict':>8}  {'coverage':>8}"
    lines.append(header)
    for row in report["ablation"]:
        label = " + ".join(row["routes"])
        lines.append(
            f"    {label:<60} {row['n']:>5} {row['correct']:>7} {row['wrong']:>6} {row['unknown']:>7}"
            f"  {_rate(row['strict_accuracy']):>8}  {_rate(row['coverage']):>8}"
        )
    return lines


def run_diagnostics(args: argparse.Namespace) -> int:
    try:
        reports = [diagnostics_json(run) for run in load_runs([Path(p) for p in args.runs])]
    except (OSError, ValueError) as exc:
        print(f"ttsbench diagnostics: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "json", False):
        json.dump({"systems": reports}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    for number, report in enumerate(reports):
        if number:
            print()
        for line in diagnostics_lines(report):
            print(line)
    return 0


def add_command(commands: Any) -> None:
    p = commands.add_parser("diagnostics", help="per-route accuracy, agreement and route-subset ablation")
    p.add_argument("runs", nargs="+", metavar="RUN", help=RUNS_HELP)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=run_diagnostics)
