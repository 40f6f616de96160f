"""External benchmark files pinned by SHA-256: a changed or different copy is noticed before it is run.

A full benchmark file (the CN-NewsTTS public split, the Thai keyword ``eval_set.jsonl``) lives
outside the project and is too large, or not ours, to commit. The configuration names it with the
SHA-256 of the copy its floors and baselines were made on (``external: [{path, sha256, source}]``);
a file whose bytes differ is refused with both hashes, and a missing one with where to get it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pytest_ttsbench.config import ExternalFile
from pytest_ttsbench.support.file_hashes import hash_files


def pin_problem(path: Path, pins: Iterable[ExternalFile]) -> str | None:
    """Why ``path`` may not be run: it is pinned and missing, or its bytes are not the pinned copy's."""
    resolved = path.resolve()
    for pin in pins:
        if pin.path != resolved:
            continue
        obtain = f" (obtain it: {pin.source})" if pin.source else ""
        if not resolved.is_file():
            return f"{path}: not found, named by {pin.field}{obtain}"
        actual = hash_files([resolved])
        if actual != pin.sha256:
            return (
                f"{path}: SHA-256 {actual}, but {pin.field}.sha256 expects {pin.sha256}: "
                f"a different copy of the benchmark than the one pinned{obtain}; "
                "restore that copy, or pin this one if it replaces it on purpose"
            )
    return None
