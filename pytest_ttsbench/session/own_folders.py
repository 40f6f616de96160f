"""Folders this plugin writes, which pytest's collection must not walk looking for tests.

pytest walks every folder under the root for test files, asking each plugin about every file it
finds. The plugin's own folders hold nothing to collect, and they grow with every run: the clip
and transcript cache (one file per clip, transcript and quality figure, in 256 sub-folders per
kind) and the clips each run keeps beside its results. Left to pytest, a project that keeps them
inside its tree (``--tts-cache-dir=cache``, ``--tts-results=out/results.jsonl``, ``cache_dir:`` in
the configuration) pays for walking them on every run, more with every run it keeps: most of a
warm rerun's collection (#28). The default places (``.ttsbench/``) are skipped by pytest's own
``norecursedirs`` already.

What is skipped (:func:`own_folders`): this run's cache folder, runs folder and clip folder; any
cache folder, recognised by the cache directory tag every cache folder gets (``CACHEDIR.TAG``,
support/cache.py: another run's cache, or another tool's); and any earlier run's clip folder,
recognised by the run header this plugin writes beside its results (``<stem>-audio`` beside
``<stem>.run.json``, or ``audio`` beside ``results.run.json``). What is never skipped: the root
folder, and any folder on the way to a path named on the command line, so a cache set to the
project itself, or ``pytest cache/test_x.py``, still collects what was asked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_ttsbench.run_model.provenance import HEADER_SUFFIX
from pytest_ttsbench.support.cache import is_tagged_cache

if TYPE_CHECKING:
    from pytest_ttsbench.session.benchmark import BenchConfig

#: how a run's clip folder is named beside its results file ``<stem>.jsonl``: ``<stem>-audio``
#: (``--tts-results``), or ``audio`` in a run folder of its own (``results.jsonl``)
CLIP_FOLDER_SUFFIX = "-audio"
RUN_FOLDER_CLIPS = "audio"
RUN_FOLDER_RESULTS_STEM = "results"

OWN_FOLDERS_KEY = pytest.StashKey["OwnFolders"]()


@dataclass(frozen=True)
class OwnFolders:
    """The folders a run leaves out of collection, and the paths it must keep walking to."""

    folders: frozenset[Path]
    #: the root folder, every path named on the command line, and every folder above them
    wanted: frozenset[Path]

    def skips(self, path: Path) -> bool:
        """Whether pytest should not look for tests at ``path`` (absolute, as pytest gives it)."""
        if path in self.wanted:
            return False
        return path in self.folders or is_kept_clips_folder(path) or is_tagged_cache(path)


def is_kept_clips_folder(path: Path) -> bool:
    """Whether ``path`` is the clip folder of a run this plugin wrote (its header lies beside it)."""
    name = path.name
    if name == RUN_FOLDER_CLIPS:
        stem = RUN_FOLDER_RESULTS_STEM
    elif name.endswith(CLIP_FOLDER_SUFFIX) and len(name) > len(CLIP_FOLDER_SUFFIX):
        stem = name[: -len(CLIP_FOLDER_SUFFIX)]
    else:
        return False  # most paths pytest asks about: answered by the name alone, no file looked at
    return path.with_name(f"{stem}{HEADER_SUFFIX}").is_file() and path.is_dir()


def own_folders(root: Path, named: Iterable[Path], written: Iterable[Path | None]) -> OwnFolders:
    """What a run skips: the folders it writes (``written``: cache, runs folder, clip folder),
    except the root, the paths ``named`` on the command line, and every folder above those."""
    wanted: set[Path] = set()
    for path in (root, *named):
        for form in _forms(path):
            wanted.add(form)
            wanted.update(form.parents)
    folders = {form for folder in written if folder is not None for form in _forms(folder)}
    return OwnFolders(frozenset(folders), frozenset(wanted))


def run_folders(config: pytest.Config, bench: BenchConfig) -> OwnFolders:
    """The folders this run writes and pytest's collection skips (see the module's note)."""
    settings = bench.settings
    written = [
        bench.cache.root if bench.cache is not None else None,
        settings.base_dir / settings.runs_dir,
        bench.audio_dir,
    ]
    return own_folders(config.rootpath, named_paths(config.args, config.invocation_params.dir), written)


def named_paths(args: Iterable[str], invocation_dir: Path) -> list[Path]:
    """The paths among pytest's arguments (``file.yaml::item`` counts as its file), absolute."""
    return [invocation_dir / arg.split("::", 1)[0] for arg in args if arg and not arg.startswith("-")]


def _forms(path: Path) -> set[Path]:
    """A path as pytest may hand it over (absolute, symlinks kept) and resolved."""
    absolute = Path(os.path.abspath(path))  # as pytest names what it collects: normalised, links kept
    return {absolute, absolute.resolve()}
