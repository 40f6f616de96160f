"""SHA-256 of files, read in blocks: what a run header, a pin and a voice's model key record of a file."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path


def hash_files(files: Sequence[Path]) -> str:
    """One SHA-256 over the files' bytes in the order given (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    for path in files:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def sha256_of(path: Path) -> str | None:
    """The file's SHA-256, or None where it cannot be read."""
    try:
        return hash_files([path])
    except OSError:
        return None
