"""Writing a file atomically: the one way the package replaces a file it writes whole.

Results files, run headers, gate files, manifests, known-gap files, kept clips and cache entries
are all written by :func:`write_atomically`: the bytes go to a temporary file beside the target,
which is then moved over it with ``os.replace``, atomic on one file system. So a reader (a report,
a later run, another xdist worker, a CI job sharing the cache) sees the old file or the new one,
never half of one, and a crash or an interrupted run leaves the old file as it was.

The temporary file has a name of its own for each write (two writers of one target never write
into each other's temporary file) that starts with a dot and ends in ``.tmp``, which is how the
cache's pruning and a run's manifest know to pass it over; it is removed when the write fails.
No ``fsync``: none of these writers synced before, and a machine going down loses the run anyway.
"""

from __future__ import annotations

import os
from pathlib import Path

#: what a temporary file's name ends with (manifest.py passes such files over)
TEMPORARY_SUFFIX = ".tmp"


def write_atomically(path: Path, data: bytes | str, *, mode: int = 0o666) -> None:
    """Put ``data`` (text is written as UTF-8) at ``path`` in one step, creating its folder.

    ``mode`` is the new file's permission bits before the umask, as for :func:`os.open`.
    """
    body = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}{TEMPORARY_SUFFIX}")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(body)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def refused_write(path: Path | str, exc: OSError) -> str:
    """``cannot write PATH: [Errno 28] No space left on device``: a write the file system refused, in one line."""
    where = str(path) if path else str(exc.filename or "(unknown file)")
    errno = f"[Errno {exc.errno}] " if exc.errno is not None else ""
    return f"cannot write {where}: {errno}{exc.strerror or exc}"
