"""Fixed ASR transcripts: JSON-lines rows ``{"id", "text"}`` (one route) or ``{"id", "asr": {route: text}}``.

Ids are ``<suite>/<item id>``, or a bare item id where that is unambiguous. Stored transcripts
let a leaderboard be re-derived years later without re-running any engine or recognizer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_ttsbench.support.json_documents import read_json_lines

SINGLE_ROUTE = "transcript"


class TranscriptsError(ValueError):
    """A transcripts file that cannot be used; the message names the file, line and field."""


@dataclass
class TranscriptStore:
    """Transcripts by id, and every route name seen (so a row missing a route counts it as missing)."""

    rows: dict[str, dict[str, str]] = field(default_factory=dict)
    routes: list[str] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    #: ids whose route was given twice: the later row wins, and users are told
    overwritten: list[str] = field(default_factory=list)

    def lookup(self, full_id: str) -> dict[str, str] | None:
        """Routes → text for ``<suite>/<item id>``, trying the full id first, then the bare item id."""
        if full_id in self.rows:
            return self.rows[full_id]
        bare = full_id.split("/", 1)[-1]
        return self.rows.get(bare)

    def ambiguous_bare_ids(self, full_ids: Iterable[str]) -> list[str]:
        """Bare ids in the store that match items of more than one suite."""
        owners: dict[str, set[str]] = {}
        for full in full_ids:
            suite, _, bare = full.partition("/")
            owners.setdefault(bare, set()).add(suite)
        return sorted(b for b in self.rows if "/" not in b and len(owners.get(b, ())) > 1)


def _row_routes(path: Path, number: int, row: Mapping[str, object]) -> dict[str, str]:
    if "asr" in row:
        asr = row["asr"]
        if not isinstance(asr, dict) or not asr:
            raise TranscriptsError(f"{path}: line {number}: field 'asr' must map route names to transcripts")
        for route, text in asr.items():
            if not isinstance(text, str):
                # Dropping it would count the route as silent on this item: a wrong figure, not a gap.
                raise TranscriptsError(
                    f"{path}: line {number}: field 'asr.{route}' must be a transcript string, "
                    f"found {type(text).__name__}"
                )
        return dict(asr)
    if "text" in row:
        if not isinstance(row["text"], str):
            raise TranscriptsError(f"{path}: line {number}: field 'text' must be a string")
        return {SINGLE_ROUTE: row["text"]}
    raise TranscriptsError(f"{path}: line {number}: a row needs 'text' or 'asr'")


def load_transcripts(path: Path) -> TranscriptStore:
    """Read a JSON-lines file, or every ``*.jsonl`` in a folder (sorted)."""
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise TranscriptsError(f"{path}: no transcripts file found")
    store = TranscriptStore(sources=files)
    for file in files:
        try:
            lines = read_json_lines(file)
        except UnicodeDecodeError as exc:
            raise TranscriptsError(f"{file}: not UTF-8 text (byte {exc.start}): transcripts files are UTF-8") from None
        except OSError as exc:
            raise TranscriptsError(f"{file}: cannot read: {exc.strerror or exc}") from None
        for line in lines:
            if line.problem is not None:
                raise TranscriptsError(f"{line.where}: {line.problem}")
            row = line.value
            if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"]:
                raise TranscriptsError(f"{line.where}: field 'id' must be a non-empty string")
            routes = _row_routes(file, line.number, row)
            known = store.rows.setdefault(row["id"], {})
            if set(routes) & set(known) and row["id"] not in store.overwritten:
                store.overwritten.append(row["id"])
            known.update(routes)
            for route in routes:
                if route not in store.routes:
                    store.routes.append(route)
    return store
