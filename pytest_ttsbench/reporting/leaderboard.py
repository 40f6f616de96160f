"""A leaderboard of systems, ranked by strict accuracy, rendered as Markdown, CSV or JSON.

Each entry is one scored run of one system on one date with a stated set of ASR routes. Entries
are keyed by (system, date): a re-run on the same date replaces that day's entry, but a new date
never replaces an older one, so the history of a system stays on the board. The JSON rendering
is also the stored form that :func:`merge_leaderboard` reads back.

Systems given together are ranked on the targets they all ran (:func:`entries_from_runs`): a
system with more or other items keeps its own n and figures, but its rank comes from the shared
targets and a note says so; one that shares no target with the others is shown unranked. Each
entry also says what was measured — categories, provider, voice, sample rate, the date the audio
was synthesized (unknown for replayed transcripts, which a rescore only re-judges), and the data
release (each suite with the SHA-256 prefix of its case file, from the run header).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_ttsbench.figures.summary import overall
from pytest_ttsbench.protocols import protocols_of, run_difference_tally
from pytest_ttsbench.reporting.protocol_tally import figures_by_protocol, figures_text
from pytest_ttsbench.reporting.terminal import percent
from pytest_ttsbench.run_model.reader import Run
from pytest_ttsbench.support.json_documents import dump_json, load_json
from pytest_ttsbench.support.outside_text import csv_text

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
    "n",
    "shared_n",
    "shared_strict_accuracy",
    "categories",
    "provider",
    "voice",
    "sample_rate",
    "synthesized",
    "data_release",
    "protocol",
    "published",
    "strict",
    "protocol_differences",
    "note",
)
_DESCRIPTIVE = ("categories", "provider", "voice", "sample_rate", "synthesized", "data_release", "note")
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
    n: int | None = None
    #: figures on the targets every system given together ran; None when shared_n is 0
    shared_n: int | None = None
    shared_strict_accuracy: float | None = None
    categories: str = ""
    provider: str = ""
    voice: str = ""
    sample_rate: str = ""
    synthesized: str = ""
    data_release: str = ""
    note: str = ""
    #: the protocol the headline figures are under, and both protocols' figures (protocols.py)
    protocol: str = "strict"
    by_protocol: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: targets whose verdicts differ between the protocols, by rule and direction (ProtocolDifference dicts)
    differences: tuple[dict[str, Any], ...] = ()

    @property
    def ranked_figure(self) -> float | None:
        """What the rank is decided on: the shared-target accuracy when the board had to restrict it."""
        return self.shared_strict_accuracy if self.shared_n is not None else self.strict_accuracy

    @property
    def comparable(self) -> bool:
        """False for a system that shares no target with the others: it gets no rank."""
        return self.shared_n != 0

    def __post_init__(self) -> None:
        # Validated so entries sort and key consistently; "2026-6-1" and "2026-06-01" must not both exist.
        dt.date.fromisoformat(self.date)
        if not self.system:
            raise ValueError("a leaderboard entry needs a system name")

    @property
    def key(self) -> tuple[str, str]:
        return (self.system, self.date)

    def row(self, rank: int | None) -> dict[str, Any]:
        row = {
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
            "n": self.n,
            "shared_n": self.shared_n,
            "shared_strict_accuracy": self.shared_strict_accuracy,
            **{name: getattr(self, name) for name in _DESCRIPTIVE},
            "protocol": self.protocol,
            "published": self.by_protocol.get("published"),
            "strict": self.by_protocol.get("strict"),
            "protocol_differences": [dict(d) for d in self.differences],
        }
        return {name: row[name] for name in COLUMNS}

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
            n=row.get("n"),
            shared_n=row.get("shared_n"),
            shared_strict_accuracy=row.get("shared_strict_accuracy"),
            **{name: str(row.get(name) or "") for name in _DESCRIPTIVE},
            protocol=str(row.get("protocol") or "strict"),
            by_protocol={p: dict(row[p]) for p in ("strict", "published") if isinstance(row.get(p), dict)},
            differences=tuple(dict(d) for d in row.get("protocol_differences") or ()),
        )


def _joined(values: Iterable[Any]) -> str:
    return ", ".join(sorted({str(v) for v in values if v not in (None, "")}))


def describe(run: Run) -> dict[str, str]:
    """The descriptive columns of a run: what was measured, with what, when."""
    # A replay engine's rows re-judge stored transcripts: their date and provider say nothing of the voice.
    made = [r.generation for r in run.rows if r.generation and not r.generation.get("settings", {}).get("replayed")]
    facts = [{**g.get("settings", {}), **g} for g in made]
    engine = run.header.engines.get(run.system, {}) if run.header else {}
    synthesized = sorted(str(g["date"])[:10] for g in made if g.get("date"))
    if run.header and run.header.case_files:
        release = _joined(f"{suite}@{(e.get('sha256') or '?')[:8]}" for suite, e in run.header.case_files.items())
    else:
        release = _joined(r.suite for r in run.rows) + " (case files not recorded)"
    return {
        "categories": _joined(r.category for r in run.rows if r.auto_evaluable),
        "provider": _joined([f.get("provider") for f in facts] + [engine.get("type")]),
        "voice": _joined(f.get("voice") for f in facts) or _joined([engine.get("voice")]),
        "sample_rate": _joined(f.get("sample_rate") for f in facts),
        "synthesized": synthesized[0] if synthesized else "unknown (transcripts replayed)",
        "data_release": release,
    }


def entry_from_run(run: Run, shared: set[str] | None = None) -> LeaderboardEntry:
    """The overall figures of a run (auto-evaluable targets only, each item once) as a leaderboard entry.

    ``shared`` is the set of target keys every system on the board ran; when the run ran others
    too, the entry also carries its figures on the shared ones (what it is ranked on) and a note.
    """
    bucket = overall(run.items)
    own = {r.key for r in run.items if r.auto_evaluable}
    shared_n = shared_accuracy = None
    note = ""
    if shared is not None and own != shared:
        common = own & shared
        shared_n = len(common)
        shared_accuracy = overall([r for r in run.items if r.key in common]).strict_accuracy
        note = (
            f"ran {len(own)} targets, {len(own) - len(common)} not run by every system: ranked on the "
            f"{len(common)} shared"
            if common
            else f"shares no target with the other systems: not ranked ({len(own)} targets of its own)"
        )
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
        n=bucket.n,
        shared_n=shared_n,
        shared_strict_accuracy=shared_accuracy,
        note=note,
        **describe(run),
        protocol=protocols_of(run.rows)[0] if run.rows else "strict",
        by_protocol=figures_by_protocol(run),
        differences=tuple(d.to_dict() for d in run_difference_tally(run)),
    )


def entries_from_runs(runs: Sequence[Run]) -> list[LeaderboardEntry]:
    """Entries for runs given together, ranked on the targets they all ran.

    The shared set is the intersection of the runs' auto-evaluable target keys. When every run
    ran the same targets, nothing changes; otherwise each entry with others says so.
    """
    sets = [{r.key for r in run.items if r.auto_evaluable} for run in runs]
    shared = set.intersection(*sets) if sets else set()
    if all(s == shared for s in sets):
        return [entry_from_run(run) for run in runs]
    if not shared:  # nothing in common at all: no system is ranked against another
        return [entry_from_run(run, set()) for run in runs]
    return [entry_from_run(run, shared) for run in runs]


def _sort_key(entry: LeaderboardEntry) -> tuple[Any, ...]:
    # Higher is better; an entry with no figure (nothing scored) goes below every scored one.
    strict, resolved = entry.ranked_figure, entry.resolved_accuracy
    return (
        not entry.comparable,
        strict is None,
        -(strict or 0.0),
        resolved is None,
        -(resolved or 0.0),
        entry.system,
        entry.date,
    )


def ranked(entries: Iterable[LeaderboardEntry]) -> list[tuple[int | None, LeaderboardEntry]]:
    """Entries best first with their rank (1, 2, 3 ...): strict accuracy, then resolved, then name.

    An entry sharing no target with the others comes last with no rank (None).
    """
    ordered = sorted(entries, key=_sort_key)
    return [(i if e.comparable else None, e) for i, e in enumerate(ordered, start=1)]


def merge_entries(stored: Iterable[LeaderboardEntry], new: Iterable[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """Stored entries plus new ones; only an entry with the same (system, date) is replaced."""
    merged = {e.key: e for e in stored}
    merged.update((e.key, e) for e in new)
    return [e for _, e in ranked(merged.values())]


def parse_leaderboard(text: str) -> list[LeaderboardEntry]:
    """Entries from a stored leaderboard JSON (``{"entries": [...]}`` or a bare list of rows)."""
    data = load_json(text)
    rows = data["entries"] if isinstance(data, dict) else data
    return [LeaderboardEntry.from_row(row) for row in rows]


def merge_leaderboard(stored_json: str | None, new: Iterable[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """Merge a stored leaderboard JSON (None or empty: no board yet) with new entries."""
    stored = parse_leaderboard(stored_json) if stored_json and stored_json.strip() else []
    return merge_entries(stored, new)


def update_leaderboard_file(path: Path, new: Iterable[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """Read the board at ``path`` (if any), merge ``new`` into it, write it back as JSON."""
    stored = path.read_text(encoding="utf-8") if path.exists() else None
    try:
        entries = merge_leaderboard(stored, new)
    except ValueError as exc:  # a duplicate key or broken JSON: the message names the line, this the file
        raise ValueError(f"{path}: {exc}") from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_json(entries), encoding="utf-8")
    return entries


def _fmt(value: float | None, missing: str) -> str:
    return missing if value is None else f"{value:.6f}"


def render_json(entries: Iterable[LeaderboardEntry]) -> str:
    """The board as JSON, full precision; the stored form."""
    rows = [e.row(rank) for rank, e in ranked(entries)]
    return dump_json({"entries": rows}, null_non_finite=True, ensure_ascii=False, indent=2) + "\n"


def render_csv(entries: Iterable[LeaderboardEntry]) -> str:
    """The board as CSV; rates to 6 decimals, routes joined with ';'."""
    table: list[list[object]] = [list(COLUMNS)]
    for rank, e in ranked(entries):
        row = e.row(rank)
        for name in ("strict_accuracy", "coverage", "resolved_accuracy", "shared_strict_accuracy"):
            row[name] = _fmt(row[name], "")
        row["asr_routes"] = ";".join(e.asr_routes)
        _flatten_protocols(row, e, "")
        row.update({k: "" if row[k] is None else row[k] for k in ("rank", "n", "shared_n")})
        table.append([row[c] for c in COLUMNS])
    return csv_text(table)  # an engine named "=HYPERLINK(...)" stays text in a spreadsheet


def _md_cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def render_markdown(entries: Iterable[LeaderboardEntry]) -> str:
    """The board as a Markdown table for people; rates as percentages, as pytest's summary prints them
    (CSV and JSON keep full-precision fractions for tools); '—' where there is none."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for rank, e in ranked(entries):
        row = e.row(rank)
        for name in ("strict_accuracy", "coverage", "resolved_accuracy", "shared_strict_accuracy"):
            row[name] = percent(row[name], "—")
        row["asr_routes"] = ", ".join(e.asr_routes)
        _flatten_protocols(row, e, "—")
        row.update({k: "—" if row[k] in (None, "") else row[k] for k in ("rank", "n", "shared_n", *_DESCRIPTIVE)})
        lines.append("| " + " | ".join(_md_cell(row[c]) for c in COLUMNS) + " |")
    lines.extend(_difference_section(entries))
    return "\n".join(lines) + "\n"


def _flatten_protocols(row: dict[str, Any], entry: LeaderboardEntry, missing: str) -> None:
    """Both protocols' figures as 'correct/wrong/unknown (accuracy)', the differences as a count."""
    for protocol in ("published", "strict"):
        row[protocol] = figures_text(entry.by_protocol.get(protocol)) if entry.by_protocol else missing
    row["protocol_differences"] = sum(int(d["n"]) for d in entry.differences) if entry.by_protocol else missing


def _difference_section(entries: Iterable[LeaderboardEntry]) -> list[str]:
    """Per system, the targets the strict protocol judges otherwise than the published one, by rule."""
    lines: list[str] = []
    for _rank, e in ranked(entries):
        if not e.differences:
            continue
        if not lines:
            lines += [
                "",
                "Targets judged otherwise by the strict protocol than by the published one (published → strict):",
            ]
        lines.append(f"- {e.system} ({e.date}): {sum(int(d['n']) for d in e.differences)} target(s)")
        for d in e.differences:
            lines.append(f"  - {d['rule']}: {d['n']} {d['published']} → {d['strict']}")
            lines.extend(f"    - e.g. {example}" for example in d.get("examples") or ())
    return lines


def render(entries: Iterable[LeaderboardEntry], fmt: Format) -> str:
    """Render in one of ``markdown``, ``csv`` or ``json``."""
    renderers = {"markdown": render_markdown, "csv": render_csv, "json": render_json}
    if fmt not in renderers:
        raise ValueError(f"unknown leaderboard format {fmt!r}; use one of {sorted(renderers)}")
    return renderers[fmt](entries)
