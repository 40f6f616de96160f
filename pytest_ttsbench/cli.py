"""The ``ttsbench`` command: work on cases, transcripts and results files without pytest.

Subcommands: ``rescore`` (verdicts from stored transcripts), ``leaderboard`` and ``diagnostics``
(from results files), ``verify`` (a run against its checksum manifest).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.loader import CASE_SUFFIXES, CaseFileError
from pytest_ttsbench.compare_cli import add_compare_command
from pytest_ttsbench.dashboard_cli import add_dashboard_command
from pytest_ttsbench.engines.base import EngineUnavailable
from pytest_ttsbench.gating.diagnostics import ablation, pairwise_agreement, route_accuracy
from pytest_ttsbench.manifest import (
    ManifestError,
    expand_inputs,
    find_manifests,
    verify_manifest,
    write_manifest,
)
from pytest_ttsbench.reporting.leaderboard import Run, entry_from_run, merge_entries, render, update_leaderboard_file
from pytest_ttsbench.reporting.terminal import summary_lines
from pytest_ttsbench.rescore import Guard, item_json, load_suites, rescore, summary_json, verdict_moves
from pytest_ttsbench.results import ItemResult, read_results, write_results
from pytest_ttsbench.transcripts import TranscriptsError

EXIT_REFUSED = 1  # a guarded slice moved, or a run does not match its manifest
EXIT_USAGE = 2


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
        outcome = rescore(suites, Path(args.transcripts), engine_name=args.engine, quorum=args.quorum)
    except (CaseFileError, TranscriptsError, EngineUnavailable, ValueError) as exc:
        print(f"ttsbench rescore: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.out:
        out = Path(args.out)
        if not _guarded_write(out, outcome.results, guards):
            return EXIT_REFUSED
        inputs = expand_inputs(case_paths, CASE_SUFFIXES) + expand_inputs([Path(args.transcripts)], (".jsonl",))
        write_manifest(out, inputs)
    if args.json:
        payload = {
            "items": [item_json(r) for r in outcome.results],
            "summary": summary_json(outcome.results, args.breakdown),
            "missing_transcripts": outcome.missing,
            "unmatched_transcripts": outcome.unmatched_rows,
            "overwritten_transcripts": outcome.overwritten_rows,
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
    if outcome.overwritten_rows:
        print(
            f"\n{len(outcome.overwritten_rows)} id(s) had more than one transcript row; the last one was used: "
            f"{', '.join(outcome.overwritten_rows[:10])}"
        )
    if outcome.unmatched_rows:
        print(
            f"\n{len(outcome.unmatched_rows)} transcript row(s) match no item: {', '.join(outcome.unmatched_rows[:10])}"
        )
    return 0


# --- leaderboard and diagnostics -------------------------------------------------------------------


def results_file(run: Path) -> Path:
    """A run given as a results file, or as a run folder holding ``results.jsonl``."""
    if run.is_dir():
        candidate = run / "results.jsonl"
        if not candidate.is_file():
            raise ValueError(f"{run}: no results.jsonl in this run folder")
        return candidate
    if not run.is_file():
        raise ValueError(f"{run}: no such results file or run folder")
    return run


def _run_date(results: Sequence[ItemResult], fallback: Path) -> str:
    """The UTC date the run started (its earliest ``started_at``), else the results file's date."""
    stamps = []
    for result in results:
        if result.started_at:
            try:
                stamps.append(datetime.fromisoformat(result.started_at.replace("Z", "+00:00")))
            except ValueError:
                continue
    aware = [s if s.tzinfo else s.replace(tzinfo=timezone.utc) for s in stamps]
    when = min(aware) if aware else datetime.fromtimestamp(fallback.stat().st_mtime, timezone.utc)
    return when.astimezone(timezone.utc).date().isoformat()


def _route_names(results: Sequence[ItemResult]) -> list[str]:
    """ASR routes in the order the run used them."""
    names: dict[str, None] = {}
    for result in results:
        names.update(dict.fromkeys(result.route_verdicts))
        names.update(dict.fromkeys(result.transcripts))
    return list(names)


def load_runs(paths: Sequence[Path]) -> list[Run]:
    """One :class:`Run` per engine in each results file (a file with several engines is several systems)."""
    runs: list[Run] = []
    for path in paths:
        file = results_file(path)
        rows = read_results(file)
        if not rows:
            raise ValueError(f"{file}: no results in this file")
        by_engine: dict[str, list[ItemResult]] = {}
        for row in rows:
            by_engine.setdefault(row.engine, []).append(row)
        for engine, results in by_engine.items():
            runs.append(Run(engine, _run_date(results, file), _route_names(results), results))
    return runs


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    try:
        entries = [entry_from_run(run) for run in load_runs([Path(p) for p in args.runs])]
        # --store keeps the board's earlier dated entries; without it, the runs given are the board.
        entries = update_leaderboard_file(Path(args.store), entries) if args.store else merge_entries([], entries)
        sys.stdout.write(render(entries, args.format))
    except (OSError, ValueError, KeyError) as exc:
        print(f"ttsbench leaderboard: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.diagnostics:
        sys.stdout.write("\n")
        return _cmd_diagnostics(args)
    return 0


def diagnostics_json(run: Run) -> dict[str, Any]:
    """Single-route accuracy, pairwise tri-label agreement and the route-subset ablation of one run."""
    routes = sorted(_route_names(run.results))
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


def _cmd_diagnostics(args: argparse.Namespace) -> int:
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


# --- verify -------------------------------------------------------------------------------------


def _cmd_verify(args: argparse.Namespace) -> int:
    mismatched = False
    for run in args.runs:
        try:
            manifests = find_manifests(Path(run))
        except ManifestError as exc:
            print(f"ttsbench verify: {exc}", file=sys.stderr)
            return EXIT_USAGE
        for manifest in manifests:
            try:
                check = verify_manifest(manifest)
            except ManifestError as exc:
                print(f"ttsbench verify: {exc}", file=sys.stderr)
                return EXIT_USAGE
            if check.ok:
                print(f"{manifest}: OK ({check.checked} file(s) match)")
                continue
            mismatched = True
            print(f"{manifest}: MISMATCH")
            for kind, names in (("modified", check.modified), ("missing", check.missing), ("added", check.added)):
                for name in names:
                    print(f"  {kind}: {name}")
    return EXIT_REFUSED if mismatched else 0


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
    p.add_argument(
        "--guard",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="with --out: refuse to overwrite when verdicts in this slice (a results field such as "
        "category=years, or a facet such as form=western) moved; repeatable",
    )
    p.set_defaults(func=_cmd_rescore)

    runs_help = "results files (JSON lines) or run folders holding results.jsonl"
    p = commands.add_parser("leaderboard", help="rank systems by strict accuracy from results files")
    p.add_argument("runs", nargs="+", metavar="RUN", help=runs_help)
    p.add_argument("--format", choices=("markdown", "csv", "json"), default="markdown")
    p.add_argument("--store", metavar="FILE", help="merge into this stored leaderboard JSON (earlier dates are kept)")
    p.add_argument("--diagnostics", action="store_true", help="also print the route diagnostics per system")
    p.set_defaults(func=_cmd_leaderboard)

    p = commands.add_parser("diagnostics", help="per-route accuracy, agreement and route-subset ablation")
    p.add_argument("runs", nargs="+", metavar="RUN", help=runs_help)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=_cmd_diagnostics)

    p = commands.add_parser("verify", help="check a run against its checksum manifest")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders, results files or manifest files")
    p.set_defaults(func=_cmd_verify)
    add_compare_command(commands)
    add_dashboard_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
