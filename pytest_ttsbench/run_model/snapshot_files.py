"""Transcript snapshot files: ``__tts_snapshots__/<engine>.ambr``, in syrupy's amber format.

A snapshot file holds, per item, the normalized transcripts it was heard as (route → text, or
route → the sorted distinct wordings of its generations); how a run's transcripts are compared
with it is the gate's (gating/snapshots.py). This module reads and writes the files: syrupy's
serializer and file format are used as they are, so the files read like any other syrupy
snapshot. ``--snapshot-update`` (syrupy's own flag) writes the run's transcripts into the file,
keeping the snapshots of items that did not run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pytest_ttsbench.support.text import safe_name

SNAPSHOT_DIR = "__tts_snapshots__"
_NAME_MARKER = "# name: "  # syrupy's amber format: each snapshot starts with this line


def snapshot_path(base_dir: Path, engine: str) -> Path:
    return base_dir / SNAPSHOT_DIR / f"{safe_name(engine)}.ambr"


class SnapshotFileError(ValueError):
    """A snapshot file that cannot be trusted as it is; the message names the file, line and snapshot."""


def read_snapshots(path: Path) -> dict[str, str]:
    """The stored serialized transcripts by snapshot name (a missing file stores nothing).

    syrupy keeps the last of two snapshots of one name, so a file that gives a name twice (a
    merge that kept both sides) would compare against whichever came last; it is refused.
    """
    if path.is_file():
        first: dict[str, int] = {}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.startswith(_NAME_MARKER):
                name = line[len(_NAME_MARKER) :]
                if name in first:
                    raise SnapshotFileError(
                        f"{path}: line {number}: snapshot {name!r} given twice (first at line {first[name]})"
                    )
                first[name] = number
    from syrupy.extensions.amber.serializer import AmberDataSerializer

    return {s.name: str(s.data) for s in AmberDataSerializer.read_file(str(path))}


def update_snapshots(path: Path, received: Mapping[str, str]) -> None:
    """Write the run's transcripts, keeping the stored snapshots of items that did not run."""
    from syrupy.data import Snapshot, SnapshotCollection
    from syrupy.extensions.amber.serializer import AmberDataSerializer

    collection = AmberDataSerializer.read_file(str(path))
    for name, data in received.items():
        collection.add(Snapshot(name=name, data=data))
    fresh = SnapshotCollection(location=str(path))
    fresh.merge(collection)
    path.parent.mkdir(parents=True, exist_ok=True)
    AmberDataSerializer.write_file(fresh, file_lock=False)
