"""The run model: the one reader of results files and run folders, for every consumer of results.

A *run* is one engine's rows in one results file (a file with several engines is several runs,
one per system). Rows are counted once per (engine, item, target, repeat): a repeat index written
twice (a re-run appended to the same file) keeps its last row. Several generations of one item
(``--tts-repeats``) then count once, as one item, under the run's repeat policy: the policy its
gate recorded in ``<results>.gate.json``, else ``all``. The terminal summary, the gate, the
baseline comparison, the leaderboard, the route diagnostics and the dashboard all count
:attr:`Run.items`, so they report the same figures for the same file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from pytest_ttsbench.run_model.manifest import verify_recorded_run
from pytest_ttsbench.run_model.provenance import RunHeader, RunHeaderError, read_header
from pytest_ttsbench.run_model.repeats import POLICIES, RepeatedItem, aggregate
from pytest_ttsbench.run_model.results import ItemResult, latest_per_target, read_results
from pytest_ttsbench.support.json_documents import DuplicateKeyError, load_json

RUNS_HELP = "results files (JSON lines) or run folders holding results.jsonl"
DEFAULT_REPEAT_POLICY = "all"


@dataclass(frozen=True)
class Run:
    """One engine's rows from one results file, with what the run recorded about itself."""

    name: str  # the run folder's name, or the results file's stem when it stands alone
    path: Path  # the results file
    system: str  # the engine
    started: datetime  # UTC: the engine's earliest ``started_at`` in the file, else the file's modification time
    rows: tuple[ItemResult, ...]  # every line of this engine, every generation, in file order
    repeat_policy: str = DEFAULT_REPEAT_POLICY
    gate: Mapping[str, Any] | None = None  # the run's gate sidecar, when it was gated
    header: RunHeader | None = None  # what the run was made with (``<results>.run.json``), when recorded
    #: why the run was read though it does not match its manifest (``--allow-unverified``); empty: it matches
    unverified: tuple[str, ...] = ()

    @property
    def date(self) -> str:
        """The UTC date the run started, ``YYYY-MM-DD``."""
        return self.started.date().isoformat()

    @property
    def routes(self) -> list[str]:
        return route_names(self.rows)

    @cached_property
    def _aggregated(self) -> tuple[list[ItemResult], list[RepeatedItem]]:
        return aggregate(self.rows, self.repeat_policy)

    @property
    def items(self) -> list[ItemResult]:
        """One row per target, its verdict (and route verdicts) after the repeat policy: what every figure counts."""
        return self._aggregated[0]

    @property
    def repeated(self) -> list[RepeatedItem]:
        return self._aggregated[1]


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


def gate_path(results_path: Path) -> Path:
    """``results.jsonl`` → ``results.gate.json`` beside it: where a run's gate outcome is kept."""
    return results_path.with_name(f"{results_path.stem}.gate.json")


def read_gate(results_path: Path) -> dict[str, Any] | None:
    """The gate sidecar beside a results file; None when absent or unreadable."""
    path = gate_path(results_path)
    try:
        data = load_json(path.read_text(encoding="utf-8"))
    except DuplicateKeyError as exc:
        # Never "unreadable, so ignored": a second "passed" would decide what the run is said to have done.
        raise ValueError(f"{path}: {exc}") from None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def recorded_policy(gate: Mapping[str, Any] | None) -> str:
    """The repeat policy a run was gated under, else the default."""
    repeats = gate.get("repeats") if gate else None
    policy = repeats.get("policy") if isinstance(repeats, Mapping) else None
    return policy if policy in POLICIES else DEFAULT_REPEAT_POLICY


def started_at(rows: Iterable[ItemResult], fallback: Path) -> datetime:
    """The earliest ``started_at`` among the rows (naive stamps read as UTC), else the file's mtime."""
    stamps = []
    for row in rows:
        if not row.started_at:
            continue
        try:
            stamp = datetime.fromisoformat(row.started_at.replace("Z", "+00:00"))
        except ValueError:
            continue
        stamps.append(stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc))
    when = min(stamps) if stamps else datetime.fromtimestamp(fallback.stat().st_mtime, timezone.utc)
    return when.astimezone(timezone.utc)


def route_names(rows: Iterable[ItemResult]) -> list[str]:
    """ASR routes in the order the run used them."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.route_verdicts))
        names.update(dict.fromkeys(row.transcripts))
    return list(names)


def run_name(path: Path) -> str:
    return path.parent.name if path.name == "results.jsonl" else path.stem


def read_runs(path: Path, repeat_policy: str | None = None, *, allow_unverified: bool = False) -> list[Run]:
    """The runs of one results file or run folder, one per engine (none for an empty file), once its
    files are checked against its manifest (:func:`~.manifest.verify_recorded_run`).

    ``repeat_policy`` overrides the policy the run recorded.
    """
    file = results_file(path)
    # a run without a manifest (written by hand, by an older version) is read, with a note
    unverified = verify_recorded_run(file, allow_unverified=allow_unverified, require_manifest=False)
    # A file several sessions appended to (--tts-append) measures a target more than once: its
    # latest measurement stands, so no target is counted twice.
    rows = latest_per_target(read_results(file))
    if not rows:
        return []
    gate = read_gate(file)
    policy = repeat_policy or recorded_policy(gate)
    if policy not in POLICIES:
        raise ValueError(f"repeat policy {policy!r} is not one of {POLICIES}")
    by_engine: dict[str, list[ItemResult]] = {}
    for row in rows:
        by_engine.setdefault(row.engine, []).append(row)
    try:
        header = read_header(file)
    except RunHeaderError as exc:
        if isinstance(exc.__cause__, DuplicateKeyError):  # readable, but two answers: never "unreadable, ignored"
            raise
        header = None  # an unreadable header costs the provenance notes, never the figures
    return [
        Run(
            run_name(file),
            file,
            engine,
            started_at(engine_rows, file),
            tuple(engine_rows),
            policy,
            gate,
            header,
            unverified,
        )
        for engine, engine_rows in by_engine.items()
    ]


def load_runs(paths: Sequence[Path], repeat_policy: str | None = None, *, allow_unverified: bool = False) -> list[Run]:
    """The runs of each results file or run folder given; an empty file is an error."""
    runs: list[Run] = []
    for path in paths:
        found = read_runs(path, repeat_policy, allow_unverified=allow_unverified)
        if not found:
            raise ValueError(f"{results_file(path)}: no results in this file")
        runs.extend(found)
    return runs


def rows_of(runs: Iterable[Run]) -> list[ItemResult]:
    """Every row of several runs, in order (the input of a comparison across engines)."""
    return [row for run in runs for row in run.rows]


def unverified_notes(runs: Iterable[Run]) -> list[str]:
    """What each run read with ``--allow-unverified`` says of its manifest, once per results file."""
    return list(dict.fromkeys(note for run in runs for note in run.unverified))


def find_runs(runs_dir: Path, *, allow_unverified: bool = False) -> list[Run]:
    """Every run under a folder of runs (``RUNS/*/results.jsonl`` and ``RUNS/*.jsonl``), oldest first.

    Empty results files are passed over; a folder with no results at all is an error.
    """
    if not runs_dir.is_dir():
        raise ValueError(f"{runs_dir}: not a folder of runs")
    files = sorted(runs_dir.glob("*/results.jsonl")) + sorted(runs_dir.glob("*.jsonl"))
    runs = [run for file in files for run in read_runs(file, allow_unverified=allow_unverified)]
    if not runs:
        raise ValueError(f"{runs_dir}: no results files (expected */results.jsonl or *.jsonl)")
    return sorted(runs, key=lambda run: (run.started, run.name, run.system))
