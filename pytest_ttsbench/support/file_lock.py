"""An exclusive claim on a file for the life of one process: two writers of one file are refused, not mixed.

A run appends a row per item to its results file the moment the item finishes. Two runs told to
write one file (two CI jobs with the same ``--tts-results``, a run started while another is
still going) would interleave their rows and each leave a gate file covering half of them, and
both would start, because the file only appears with the first row. So the writing run claims
the file first: an advisory lock (``flock`` on POSIX, ``msvcrt.locking`` on Windows) on a lock
file beside it, taken without waiting, holding the holder's process id and when it started, so
the run refused can say who has the file.

The operating system releases the lock when its holder exits however it exits (a crash, a kill),
so a lock file left behind by a dead run never blocks the next one. A holder that releases
removes the file while still holding it; a claimant that opened the old file in that moment
finds its lock is on a name no longer in the folder and tries again.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from pytest_ttsbench.support.json_documents import dump_json, load_json


class FileClaimed(RuntimeError):
    """The lock is held by another open claim (another process, or another claim in this one)."""

    def __init__(self, lock_path: Path, holder: str) -> None:
        super().__init__(f"{lock_path} is held by {holder}")
        self.lock_path = lock_path
        self.holder = holder


@dataclass
class FileClaim:
    """A held lock on ``lock_path``; :meth:`release` (or the process ending) gives it up."""

    lock_path: Path
    _handle: IO[str] | None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        """Remove the lock file, then let go of the lock: idempotent."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        if sys.platform != "win32":  # Windows cannot remove a file still open; the lock goes with the handle
            with contextlib.suppress(OSError):
                self.lock_path.unlink()
        handle.close()


def claim_file(lock_path: Path, description: str = "") -> FileClaim:
    """Take the exclusive lock on ``lock_path`` without waiting, or raise :class:`FileClaimed`
    naming the holder (its process id, start time and ``description``, as it wrote them).

    The folder is created if need be. OSError from the file system (a read-only folder) is raised
    as it is.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        handle = lock_path.open("a+", encoding="utf-8")
        try:
            _lock(handle)
        except OSError:
            handle.close()
            raise FileClaimed(lock_path, _holder(lock_path)) from None
        if _still_named(handle, lock_path):
            break
        handle.close()  # the holder removed the file between our open and our lock: claim the new one
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(dump_json({"pid": os.getpid(), "started": started, "description": description}) + "\n")
        handle.flush()
    except OSError:
        # A full disk: the claim is not taken, and no empty lock file is left claiming the file.
        with contextlib.suppress(OSError):
            lock_path.unlink()
        with contextlib.suppress(OSError):
            handle.close()
        raise
    return FileClaim(lock_path, handle)


def _lock(handle: IO[str]) -> None:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)  # the first byte is the one locked, wherever the handle opened
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _still_named(handle: IO[str], lock_path: Path) -> bool:
    """Whether ``lock_path`` still names the file ``handle`` has open (not removed or replaced since)."""
    try:
        named = lock_path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(handle.fileno())
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _holder(lock_path: Path) -> str:
    """Who holds the lock, from what it wrote; a holder still writing its line is "another process"."""
    try:
        found = load_json(lock_path.read_text(encoding="utf-8").splitlines()[0])
        pid, started, description = found["pid"], found["started"], found.get("description") or ""
    except (OSError, IndexError, ValueError, KeyError, TypeError):
        return "another process"
    return f"process {pid}, started {started}" + (f", {description}" if description else "")
