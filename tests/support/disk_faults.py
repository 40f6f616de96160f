"""File systems that refuse writes, for the boundary tests (tests/plugin/test_disk_failures.py, tests/boundaries).

- :func:`small_tmpfs` mounts a tmpfs of a few kilobytes (full almost at once) or a read-only one;
  only root may mount, so elsewhere the test skips, saying so;
- :data:`FULL_DISK_CONFTEST` works everywhere: a project conftest that makes the folder named by
  ``TTSBENCH_TEST_FULL_DIR`` behave as a full disk once ``TTSBENCH_TEST_FULL_AFTER`` bytes were
  written under it (``ENOSPC`` from ``open``'s writes and ``os.open``), injected at the two calls
  every writer of the package goes through.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

FULL_DISK_CONFTEST = """\
import errno, io, os

FOLDER = os.environ.get("TTSBENCH_TEST_FULL_DIR")
budget = [int(os.environ.get("TTSBENCH_TEST_FULL_AFTER", "0"))]


def _under(path):
    try:
        return FOLDER and os.path.realpath(os.fspath(path)).startswith(os.path.realpath(FOLDER) + os.sep)
    except TypeError:
        return False


def _spend(count, path):
    if count > budget[0]:
        budget[0] = 0
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path))
    budget[0] -= count


class _Metered:
    def __init__(self, handle, path):
        self._handle, self._path = handle, path

    def write(self, data):
        _spend(len(data), self._path)
        return self._handle.write(data)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()


_io_open, _os_open = io.open, os.open


def _open(file, mode="r", *args, **kwargs):
    handle = _io_open(file, mode, *args, **kwargs)
    return _Metered(handle, file) if any(m in mode for m in "wax+") and _under(file) else handle


def _os_open_metered(path, flags, *args, **kwargs):
    if flags & os.O_CREAT and _under(path) and budget[0] <= 0:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path))
    return _os_open(path, flags, *args, **kwargs)


if FOLDER:
    io.open = _open
    os.open = _os_open_metered
"""


def can_mount() -> bool:
    return os.geteuid() == 0 if hasattr(os, "geteuid") else False


@contextlib.contextmanager
def small_tmpfs(path: Path, *, size_kb: int = 16, read_only: bool = False) -> Iterator[Path]:
    """``path`` as a tmpfs of ``size_kb`` KiB (read-only when asked), unmounted afterwards."""
    if not can_mount():
        pytest.skip("mounting a small tmpfs needs root; the file-size-limit tests cover the family here")
    path.mkdir(parents=True, exist_ok=True)
    options = f"size={size_kb}k" + (",ro" if read_only else "")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(folder: Path, leave_bytes: int) -> None:
    """Fill ``folder``'s file system until about ``leave_bytes`` are left."""
    stat = os.statvfs(folder)
    free = stat.f_bavail * stat.f_frsize
    if free > leave_bytes:
        (folder / "filler").write_bytes(b"\0" * (free - leave_bytes))
