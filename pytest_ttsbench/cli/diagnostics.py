"""``ttsbench diagnostics RUN...``: per-route accuracy, agreement and route-subset ablation, the
CN-NewsTTS analyses (tie rate, label changes between route subsets, range-versus-subtraction
tallies; across runs: pooled figures, rank stability under route ablation with a bootstrap
interval on rank) and the numeral-form duration control."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE, add_allow_unverified
from pytest_ttsbench.figures.diagnostics import (
    ablation,
    bootstrap_rank_intervals,
    label_changes,
    pairwise_agreement,
    pooled,
    range_readings,
    rank_stability,
    route_accuracy,
    tie_rate,
)
from pytest_ttsbench.figures.numeral_forms import DEFAULT_MIN_RATIO, duration_control, duration_control_json
from pytest_ttsbench.protocols import PROTOCOL_HELP, PROTOCOLS, protocols_of, run_difference_tally, runs_under
from pytest_ttsbench.reporting.protocol_tally import figures_by_protocol, figures_text
from pytest_ttsbench.run_model.reader import RUNS_HELP, Run, load_runs
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE, POSITIVE, number_option
from pytest_ttsbench.support.json_documents import dump_json


def diagnostics_json(run: Run, min_ratio: float = DEFAULT_MIN_RATIO) -> dict[str, Any]:
    """Single-route accuracy, pairwise tri-label agreement and the route-subset ablation of one run.

    Each item counts once, its route verdicts after the run's repeat policy.
    """
    items = run.items
    routes = sorted(run.routes)
    buckets = ablation(items, routes)
    return {
        "system": run.system,
        "date": run.date,
        "routes": routes,
        "route_accuracy": route_accuracy(items),
        "agreement": [
            {"routes": [a.first, a.second], "n": a.n, "agree": a.agree, "rate": a.rate}
            for a in pairwise_agreement(items).values()
        ],
        "ablation": [
            {"routes": list(subset), **{k: v for k, v in bucket.to_dict().items() if k != "routes"}}
            for subset, bucket in buckets.items()
        ],
        "tie_rate": tie_rate(items),
        "label_changes": [
            {"routes": list(subset), "changes": [{"from": a, "to": b, "n": n} for (a, b), n in changes.items()]}
            for subset, changes in label_changes(items, routes).items()
        ],
        "range_readings": range_readings(items),
        "numeral_forms": duration_control_json(duration_control(items, min_ratio=min_ratio), min_ratio),
        "protocol": protocols_of(run.rows)[0] if run.rows else None,
        "by_protocol": figures_by_protocol(run),
        "protocol_differences": [d.to_dict() for d in run_difference_tally(run)],
    }


def comparison_json(runs: list[Run], samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Across runs: pooled figures, ranks under each route subset, and a bootstrap interval on rank."""
    by_system = {run.system: run.items for run in runs}
    intervals = bootstrap_rank_intervals(by_system, samples=samples, seed=seed)
    return {
        "systems": sorted(by_system),
        "pooled": pooled(by_system).to_dict(),
        "rank_by_routes": [
            {"routes": list(subset), "ranks": ranks} for subset, ranks in rank_stability(by_system).items()
        ],
        "rank_interval": {
            system: {"rank": i.rank, "low": i.low, "high": i.high, "samples": i.samples}
            for system, i in intervals.items()
        },
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
    if report["tie_rate"] is not None:
        lines.append(f"  tie rate (routes split evenly): {_rate(report['tie_rate'])}")
    changed = [row for row in report["label_changes"] if row["changes"]]
    if changed:
        lines.append("  label changes from the full vote to a route subset:")
        for row in changed:
            moves = ", ".join(f"{c['from']}->{c['to']} {c['n']}" for c in row["changes"])
            lines.append(f"    {' + '.join(row['routes']):<60} {moves}")
    if report["range_readings"]:
        lines.append("  hyphen between numbers read as (route transcripts):")
        for category, counts in report["range_readings"].items():
            lines.append(f"    {category:<24} " + ", ".join(f"{kind} {n}" for kind, n in counts.items()))
    by_protocol = report.get("by_protocol") or {}
    if len(by_protocol) == 2:
        total = sum(d["n"] for d in report["protocol_differences"])
        lines.append(
            f"  protocols (correct/wrong/unknown, strict accuracy): published {figures_text(by_protocol['published'])},"
            f" strict {figures_text(by_protocol['strict'])}; {total} target(s) differ (published → strict)"
        )
        for d in report["protocol_differences"]:
            lines.append(f"    {d['rule']}: {d['n']} {d['published']} → {d['strict']}")
            lines.extend(f"      e.g. {example}" for example in d["examples"])
    forms = report["numeral_forms"]
    if forms["groups"]:
        lines.append(f"  numeral forms, clip seconds (flagged below {forms['min_ratio']:.0%} of the other forms):")
        for group in forms["groups"]:
            cells = ", ".join(
                f"{form} {f['seconds']:.2f}s{' FLAGGED' if f['flagged'] else ''}" for form, f in group["forms"].items()
            )
            lines.append(f"    {group['engine']} {group['suite']}/{group['item']}: {cells}")
    return lines


def comparison_lines(report: dict[str, Any]) -> list[str]:
    """The cross-run analyses as plain text."""
    figures = report["pooled"]
    lines = [
        f"pooled over {', '.join(report['systems'])}: n {figures['n']}, correct {figures['correct']}, "
        f"wrong {figures['wrong']}, unknown {figures['unknown']}, strict {_rate(figures['strict_accuracy'])}"
    ]
    lines.append("rank under each route subset:")
    for row in report["rank_by_routes"]:
        ranks = ", ".join(f"{system} {rank}" for system, rank in sorted(row["ranks"].items(), key=lambda kv: kv[1]))
        lines.append(f"  with {' + '.join(row['routes'])}: {ranks}")
    lines.append("rank with a 95% bootstrap interval (targets resampled):")
    for system, interval in sorted(report["rank_interval"].items(), key=lambda kv: kv[1]["rank"]):
        lines.append(f"  {system:<40} {interval['rank']}  [{interval['low']}, {interval['high']}]")
    return lines


def run_diagnostics(args: argparse.Namespace) -> int:
    min_ratio = getattr(args, "min_duration_ratio", DEFAULT_MIN_RATIO)
    try:
        runs = runs_under(
            load_runs([Path(p) for p in args.runs], allow_unverified=getattr(args, "allow_unverified", False)),
            getattr(args, "protocol", None),
        )
        reports = [diagnostics_json(run, min_ratio) for run in runs]
        comparison = comparison_json(runs, samples=getattr(args, "bootstrap", 1000)) if len(runs) > 1 else None
    except (OSError, ValueError) as exc:
        print(f"ttsbench diagnostics: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "json", False):
        document: dict[str, Any] = {"systems": reports}
        if comparison is not None:
            document["comparison"] = comparison
        sys.stdout.write(dump_json(document, null_non_finite=True, ensure_ascii=False, indent=2))
        sys.stdout.write("\n")
        return EXIT_OK
    for number, report in enumerate(reports):
        if number:
            print()
        for line in diagnostics_lines(report):
            print(line)
    if comparison is not None:
        print()
        for line in comparison_lines(comparison):
            print(line)
    return EXIT_OK


def add_command(commands: Any) -> None:
    p = commands.add_parser("diagnostics", help="per-route accuracy, agreement and route-subset ablation")
    p.add_argument("runs", nargs="+", metavar="RUN", help=RUNS_HELP)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--protocol", choices=PROTOCOLS, help=f"the verdicts analysed: {PROTOCOL_HELP} (default: the runs', if one)"
    )
    p.add_argument(
        "--min-duration-ratio",
        type=number_option("--min-duration-ratio", POSITIVE),
        default=DEFAULT_MIN_RATIO,
        metavar="R",
        help=f"flag a numeral form whose clip lasts less than R x its siblings' median (default: {DEFAULT_MIN_RATIO})",
    )
    p.add_argument(
        "--bootstrap",
        type=number_option("--bootstrap", AT_LEAST_ONE),
        default=1000,
        metavar="N",
        help="bootstrap samples for the rank interval (default: 1000)",
    )
    add_allow_unverified(p)
    p.set_defaults(func=run_diagnostics)
