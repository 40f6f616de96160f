"""The benchmark packs that ship inside the package: where they are, what each one is, which a run uses.

A pack is a folder ``pytest_ttsbench/packs/<name>/`` holding a ``pack.yaml`` manifest (name,
version, licence, the benchmark it follows, its languages, its case files) and those case files.
They install with the plugin, so a project with nothing but ``pip install pytest-ttsbench`` runs
them; a clone of this repository runs the very same files. A case file keeps its pack identity
(name and version, written in every row and in the run header) only where it lies in the shipped
pack; an exported copy is a project's own case file.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_ttsbench.cases.loader import find_case_files
from pytest_ttsbench.support.package_data import packs_root
from pytest_ttsbench.support.yaml_documents import YamlSyntaxError, load_yaml

MANIFEST_NAME = "pack.yaml"
_REQUIRED = ("name", "version", "licence", "source", "languages", "files")


class PackError(ValueError):
    """An unknown pack name, or a pack manifest that cannot be read; the message says which."""


@dataclass(frozen=True)
class Pack:
    """One shipped pack, as its manifest describes it."""

    name: str
    version: str
    licence: str
    #: which benchmark the pack follows, or that it was written for this project
    source: str
    languages: tuple[str, ...]
    description: str
    folder: Path
    #: its case files, in the manifest's order
    files: tuple[Path, ...]

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"


def _read_manifest(path: Path) -> Pack:
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YamlSyntaxError) as exc:
        raise PackError(f"{path}: cannot read the pack manifest: {exc}") from exc
    if not isinstance(data, dict):
        raise PackError(f"{path}: a pack manifest must be a mapping")
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise PackError(f"{path}: field(s) {', '.join(missing)} missing")
    if data["name"] != path.parent.name:
        raise PackError(f"{path}: field name: {data['name']!r} differs from its folder {path.parent.name!r}")
    files = tuple(path.parent / str(name) for name in data["files"])
    absent = [file.name for file in files if not file.is_file()]
    if absent:
        raise PackError(f"{path}: field files: {', '.join(absent)} not found beside the manifest")
    return Pack(
        name=str(data["name"]),
        version=str(data["version"]),
        licence=str(data["licence"]),
        source=str(data["source"]).strip(),
        languages=tuple(str(tag) for tag in data["languages"]),
        description=str(data.get("description", "")).strip(),
        folder=path.parent,
        files=files,
    )


@functools.lru_cache(maxsize=1)
def _shipped(root: Path) -> dict[str, Pack]:
    return {manifest.parent.name: _read_manifest(manifest) for manifest in sorted(root.glob(f"*/{MANIFEST_NAME}"))}


def shipped_packs() -> dict[str, Pack]:
    """Every shipped pack by name, sorted."""
    return dict(_shipped(packs_root()))


def get_packs(names: Iterable[str], where: str = "") -> list[Pack]:
    """The shipped packs named, in order and without duplicates; an unknown name lists the known ones."""
    known = shipped_packs()
    unknown = [name for name in names if name not in known]
    if unknown:
        prefix = f"{where}: " if where else ""
        raise PackError(f"{prefix}unknown pack(s) {', '.join(unknown)}; shipped packs: {', '.join(known)}")
    return [known[name] for name in dict.fromkeys(names)]


def pack_of_file(path: Path | None) -> Pack | None:
    """The shipped pack a case file belongs to, or None for any other file (a project's own, an exported copy)."""
    return None if path is None else _pack_of(path)


@functools.lru_cache(maxsize=256)
def _pack_of(path: Path) -> Pack | None:
    """Asked for every row a run writes: the path is resolved once per case file, not once per item."""
    resolved = path.resolve()
    for pack in _shipped(packs_root()).values():
        if resolved in pack.files:
            return pack
    return None


def pack_node_path(file: Path) -> str:
    """How a pack's case file is named in node ids: relative to the folder holding the package.

    In a clone that is the file's path from the repository root, so an installed run's ids read
    exactly like a clone's, and a clone can name one on the command line.
    """
    return file.resolve().relative_to(packs_root().parent.parent).as_posix()


def find_pack_or_file(spec: str, base: Path) -> tuple[Pack | None, list[Path]]:
    """``PACK|CASEFILE`` as a command takes it: a shipped pack's name, else a case file or folder path."""
    path = Path(spec) if Path(spec).is_absolute() else base / spec
    if path.exists():
        return None, find_case_files([path])
    pack = shipped_packs().get(spec)
    if pack is None:
        raise PackError(f"{spec}: neither a shipped pack ({', '.join(shipped_packs())}) nor a case file or folder")
    return pack, list(pack.files)


def run_packs(
    configured: Sequence[str] | None,
    from_option: Sequence[str],
    *,
    has_case_folder: bool,
    engines_selected: bool,
    paths_given: bool,
    where: str = "",
) -> list[Pack]:
    """The packs a pytest run collects.

    ``--tts-pack`` names them, whatever else the command line says; else the configuration's
    ``packs`` do, unless the command line names paths (as a ``cases:`` folder is not collected
    then either); else, when an engine is selected and the project has no case folder and no
    external benchmark file (no configuration at all, say), every shipped pack runs. A plain
    ``pytest`` in a project that configures no pack collects none.
    """
    if from_option:
        return get_packs(from_option, "--tts-pack")
    if paths_given:
        return []
    if configured is not None:
        return get_packs(configured, where)
    if engines_selected and not has_case_folder:
        return list(shipped_packs().values())
    return []
