"""Paths read from data files stay inside the folder the file belongs to.

A results file (of a run, a baseline, an ``audio-dir`` folder) names each clip by a path. Such a
file is data, often downloaded from another job: a row whose ``audio_path`` is ``/etc/passwd``,
``../../secrets.wav`` or a symbolic link out of the folder would otherwise be read, scored and
copied into this run's clips, reports and listening kits, the artifacts a CI job uploads.
:func:`inside_folder` is the one check every reader of such a path goes through: the path,
relative to the folder (or absolute), must resolve, with every symbolic link followed, to a file
inside the folder; otherwise :class:`OutsideFolderError` names the path and why, and nothing is
read.
"""

from __future__ import annotations

import os
from pathlib import Path


class OutsideFolderError(ValueError):
    """A path from a data file that leads outside its folder; the message names the path and the folder."""

    def __init__(self, recorded: str, folder: Path, why: str) -> None:
        super().__init__(f"path {recorded!r} {why}: a path read from a file must name a file inside {folder}")
        self.recorded = recorded
        self.folder = folder


def inside_folder(folder: Path, recorded: str | os.PathLike[str]) -> Path:
    """The file ``recorded`` names, resolved (symbolic links followed) inside ``folder``.

    A relative path is taken relative to ``folder``; an absolute one is accepted only when it lies
    inside it (the readers store clips inside their run as paths relative to it). Raises
    :class:`OutsideFolderError` for an empty path, a NUL byte, an absolute path elsewhere, ``..``
    leading out, or a symbolic link (anywhere along the path) leading out.
    """
    text = os.fspath(recorded)
    if not text or "\0" in text:
        raise OutsideFolderError(text, folder, "is empty or holds a NUL byte")
    base = folder.resolve()
    candidate = Path(text)
    joined = candidate if candidate.is_absolute() else base / candidate
    resolved = joined.resolve()
    if resolved.is_relative_to(base):
        return resolved
    lexical = Path(os.path.normpath(joined))
    if candidate.is_absolute() and not lexical.is_relative_to(base):
        why = "is an absolute path outside the folder"
    elif not lexical.is_relative_to(base):
        why = "leads out of the folder through '..'"
    else:
        why = "leads out of the folder through a symbolic link"
    raise OutsideFolderError(text, folder, why)
