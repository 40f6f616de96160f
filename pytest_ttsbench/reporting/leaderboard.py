"""A leaderboard of systems, ranked by strict accuracy, rendered as Markdown, CSV or JSON.

Each entry is one scored run of one system on one date with a stated set of ASR routes. Entries
are keyed by (system, date): a re-run on the same date replaces that day's entry, but a new date
never replaces an older one, so the history of a system stays on the board. The JSON rendering
is also the stored form that :func:`merge_leaderboard` reads back.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pytest_ttsbench.gating.summary import overall
from pytest_ttsbench.reporting.terminal import percent
from pytest_ttsbench.runs import Run

COLUMNS: tuple[str, ...] = (
    "rank",
    "system",
    "strict_accuracy",
    "coverage",
    "resolved_accuracy",
    "correct",
    "wrong",
    "unknown",
    "date",
    "asr_routes",
)
Format = Literal["markdown", "csv", "json"]


@dataclass(frozen=True)
class LeaderboardEntry:
    """One system's figures from one run."""

    system: str
    date: str  # ISO date, YYYY-MM-DD
    asr_routes: tuple[str, ...]
    strict_accuracy: float | None
    coverage: float | None
    resolved_accuracy: float | None
    correct: int
    wrong: int
    unknown: int

    def __post_init__(self) -> None:
        # Validated so entries sort and key consistently; "2026-6-1" and "2026-06-01" must not both exist.
        dt.date.fromisoformat(self.date)
        if not self.system:
            raise ValueError("a leaderboard entry needs a system name")

    @property
    def key(self) -> tuple[str, str]:
        return (self.system, self.date)

    def row(self, rank: int) -> dict[str, Any]:
        return {
            "rank": rank,
            "system": self.system,
            "strict_accuracy": self.strict_accuracy,
            "coverage": self.coverage,
            "resolved_accuracy": self.resolved_accuracy,
            "correct": self.correct,
            "wrong": self.wrong,
            "unknown": self.unknown,
            "date": self.date,
            "asr_routes": list(self.asr_routes),
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> LeaderboardEntry:
        return cls(
            system=str(row["system"]),
            date=str(row["date"]),
            asr_routes=tuple(row.get("asr_routes") or ()),
            strict_accuracy=row.get("strict_accuracy"),
            coverage=row.get("coverage"),
            resolved_accuracy=row.get("resolved_accuracy"),
            correct=int(row["correct"]),
            wrong=int(row["wrong"]),
            unknown=int(row["unknown"]),
        )


def entry_from_run(run: Run) -> LeaderboardEntry:
    """The overall figures of a run (auto-evaluable targets only, each item once) as a leaderboard entry."""
    bucket = overall(run.items)
    return LeaderboardEntry(
        system=run.system,
        date=run.date,
        asr_routes=tuple(run.routes),
        strict_accuracy=bucket.strict_accuracy,
        coverage=bucket.coverage,
        resolved_accuracy=bucket.resolved_accuracy,
        correct=bucket.correct,
        wrong=bucket.wrong,
        unknown=bucket.unknown,
    )


def _sort_key(entry: LeaderboardEntry) -> tuple[Any, ...]:
    # Higher is better; an entry with no figure (nothing scored) goes below every scored one.
    strict, resolved = entry.strict_accuracy, entry.resolved_accuracy
    return (
        strict is None,
        -(strict or 0.0),
        resolved is None,
        -(resolved or 0.0),
        entry.system,
        entry.date,
    )


def ranked(entries: Iterable[LeaderboardEntry]) -> list[tuple[int, LeaderboardEntry]]:
    """Entries best first with their rank (1, 2, 3 ...): strict accuracy, then resolved, then name."""
    return [(i, e) for i, e in enumerate(sorted(entries, key=_sort_key), start=1)]


def merge_entries(stored: Iterable[LeaderboardEntry], new: Iterable[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """Stored entries plus new ones; only an entry with the same (system, date) is replaced."""
    merged = {e.key: e for e in stored}
    merged.update((e.key, e) for e in new)
    return [e for _, e in ranked(merged.values())]


def parse_leaderboard(text: str) -> list[LeaderboardEntry]:
    """Entries from a stored leaderboard JSON (``{"entries": [...]}`` or a bare list of rows)."""
    data = json.loads(text)
    rows = data["entries"] if isinstance(data, dict) else data
    return [LeaderboardEntry.from_row(row) for row in rows]


def merge_leaderboard(stored_json: str | None, new: Iterable[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """Merge a stored leaderboard JSON (None or empty: no board yet) with new entries."""
    stored = parse_leaderboard(stored_json) if stored_json and stored_json.strip() else []
    return merge_entries(stored, new)


def update_leaderboard_file(path: Path, new: Iterable[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """Read the board at ``path`` (if any), merge ``new`` into it, write it back as JSON."""
    stored = path.read_text(encoding="utf-8") if path.exists() else None
    entries = merge_leaderboard(stored, new)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_json(entries), encoding="utf-8")
    return entries


def _fmt(value: float | None, missing: str) -> str:
    return missing if value is None else f"{value:.6f}"


def render_json(entries: Iterable[LeaderboardEntry]) -> str:
    """The board as JSON, full precision; the stored form."""
    rows = [e.row(rank) for rank, e in ranked(entries)]
    return json.dumps({"entries": rows}, ensure_ascii=False, indent=2) + "\n"


def render_csv(entries: Iterable[LeaderboardEntry]) -> str:
    """The board as CSV; rates to 6 decimals, routes joined with ';'."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for rank, e in ranked(entries):
        row = e.row(rank)
        for name in ("strict_accuracy", "coverage", "resolved_accuracy"):
            row[name] = _fmt(row[name], "")
        row["asr_routes"] = ";".join(e.asr_routes)
        writer.writerow([row[c] for c in COLUMNS])
    return buffer.getvalue()


def _md_cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def render_markdown(entries: Iterable[LeaderboardEntry]) -> str:
    """The board as a Markdown table for people; rates as percentages, as pytest's summary prints them
    (CSV and JSON keep full-precision fractions for tools); '—' where there is none."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for rank, e in ranked(entries):
        row = e.row(rank)
        for name in ("strict_accuracy", "coverage", "resolved_accuracy"):
            row[name] = percent(row[name], "—")
        row["asr_routes"] = ", ".join(e.asr_routes)
        lines.append("| " + " | ".join(_md_cell(row[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def render(entries: Iterable[LeaderboardEntry], fmt: Format) -> str:
    """Render in one of ``markdown``, ``csv`` or ``json``."""
    renderers = {"markdown": render_markdown, "csv": render_csv, "json": render_json}
    if fmt not in renderers:
        raise ValueError(f"unknown leaderboard format {fmt!r}; use one of {sorted(renderers)}")
    return renderers[fmt](entries)
