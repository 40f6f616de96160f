"""Transcript snapshots: what each item was heard as, kept per engine in syrupy's amber format.

With ``--tts-snapshot report`` or ``strict`` every item's transcripts (route → text) are compared
with ``__tts_snapshots__/<engine>.ambr`` at the end of the session. A changed transcript is how a
voice update shows itself even when the verdict is unchanged ("twenty twenty-six" turning into
"two thousand twenty-six"). ``report`` only lists the changes; ``strict`` fails the run on a
changed or missing snapshot. ``--snapshot-update`` (syrupy's own flag) writes the run's
transcripts into the file, keeping snapshots of items that did not run.

syrupy's serializer and file format are used as they are, so the files read like any other
syrupy snapshot; the comparison runs on the controller, from the results, so it works the same
under pytest-xdist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.amber.serializer import AmberDataSerializer

from pytest_ttsbench.naming import safe_name
from pytest_ttsbench.results import ItemResult
from pytest_ttsbench.scorers.registry import UnknownScorerError, get_scorer

MODES = ("off", "report", "strict")
SNAPSHOT_DIR = "__tts_snapshots__"


def snapshot_path(base_dir: Path, engine: str) -> Path:
    return base_dir / SNAPSHOT_DIR / f"{safe_name(engine)}.ambr"


def snapshot_name(row: ItemResult) -> str:
    """One snapshot per clip: the item id (targets of one item share a clip), ``#k`` for generation k > 0."""
    return row.id if not row.repeat else f"{row.id}#{row.repeat}"


def received_snapshots(results: Iterable[ItemResult], engine: str) -> dict[str, str]:
    """Serialized transcripts of one engine's clips, by snapshot name.

    Clips judged by listeners only (a scorer that needs no transcript) have no snapshot: they are
    never transcribed, so a missing snapshot of theirs must not fail a strict run.
    """
    return {
        snapshot_name(row): AmberDataSerializer.serialize(dict(row.transcripts))
        for row in results
        if row.engine == engine and _transcribed(row)
    }


def _transcribed(row: ItemResult) -> bool:
    try:
        return get_scorer(row.scorer).needs_transcript if row.scorer else True
    except UnknownScorerError:
        return True


@dataclass
class SnapshotCheck:
    """One engine's transcripts against its snapshot file."""

    engine: str
    path: Path
    matched: list[str] = field(default_factory=list)
    changed: list[tuple[str, str, str]] = field(default_factory=list)  # name, stored, received
    new: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    updated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "path": str(self.path),
            "matched": len(self.matched),
            "changed": [name for name, _, _ in self.changed],
            "new": list(self.new),
            "unused": list(self.unused),
            "updated": self.updated,
        }


def read_snapshots(path: Path) -> dict[str, str]:
    """The stored serialized transcripts by snapshot name (a missing file stores nothing)."""
    return {s.name: str(s.data) for s in AmberDataSerializer.read_file(str(path))}


def compare_snapshots(stored: Mapping[str, str], path: Path, engine: str, received: Mapping[str, str]) -> SnapshotCheck:
    """Compare a run's transcripts with the stored ones, read from ``path`` beforehand."""
    check = SnapshotCheck(engine=engine, path=path)
    for name in sorted(received):
        if name not in stored:
            check.new.append(name)
        elif stored[name] == received[name]:
            check.matched.append(name)
        else:
            check.changed.append((name, stored[name], received[name]))
    check.unused = sorted(stored.keys() - received.keys())
    return check


def update_snapshots(path: Path, received: Mapping[str, str]) -> None:
    """Write the run's transcripts, keeping the stored snapshots of items that did not run."""
    collection = AmberDataSerializer.read_file(str(path))
    for name, data in received.items():
        collection.add(Snapshot(name=name, data=data))
    fresh = SnapshotCollection(location=str(path))
    fresh.merge(collection)
    path.parent.mkdir(parents=True, exist_ok=True)
    AmberDataSerializer.write_file(fresh, file_lock=False)


def one_line(serialized: str) -> str:
    """A serialized transcript folded onto one line, for the terminal."""
    return " ".join(serialized.split())
