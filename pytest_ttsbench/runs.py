"""Runs read from results files or run folders, one :class:`Run` per engine, for the ``ttsbench`` commands."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from pytest_ttsbench.reporting.leaderboard import Run
from pytest_ttsbench.results import ItemResult, read_results


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


def route_names(results: Sequence[ItemResult]) -> list[str]:
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
            runs.append(Run(engine, _run_date(results, file), route_names(results), results))
    return runs


RUNS_HELP = "results files (JSON lines) or run folders holding results.jsonl"
