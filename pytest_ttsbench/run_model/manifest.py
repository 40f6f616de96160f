"""Checksums of a run: what went in (case files, transcripts, configuration) and what came out.

A run's results are only worth comparing later if nobody touched them, or the files they were
derived from, in between. Beside each results file we write a manifest holding the SHA-256 of

* inputs: the case files, stored transcripts or pre-rendered clips that replay engines read,
  and the configuration file (which only *names* environment variables, so it holds no secret);
* outputs: the results file and every clip it points at.

``ttsbench verify`` recomputes them and names each file that was modified, went missing, or was
added to a folder the run owns. No path in a manifest is absolute, so a run folder can be moved,
committed or downloaded as a CI artifact and still verify: files inside the manifest's folder are
named relative to it, inputs from the project (case files, the configuration) relative to the
project's root, marked ``"root": "project"``. Those inputs are checked wherever the project is
found (``--project DIR``, the folder the run was made in, or the current folder); a run checked
where its project is not (an artifact on another machine) lists them as not present here, and
its own files must still match. A shipped pack's case file lies in the installed package, marked
``"root": "pack"`` and named as in node ids (``pytest_ttsbench/packs/<name>/<file>``): it is
checked against the pack installed where the run is verified. Inputs outside all three stay absolute.

A results file called ``results.jsonl`` owns its whole folder (the layout of a default pytest
run) and its manifest is ``manifest.sha256.json``; any other results file gets
``<stem>.manifest.sha256.json`` and owns only itself and its clip folder, so several results
files can share one folder.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_ttsbench.config import Settings
from pytest_ttsbench.run_model.results import is_claim_file, iter_results
from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder
from pytest_ttsbench.support.json_documents import dump_json, load_json
from pytest_ttsbench.support.package_data import packs_root
from pytest_ttsbench.support.yaml_documents import BENCHMARK_FILE_SUFFIXES

MANIFEST_NAME = "manifest.sha256.json"
MANIFEST_SUFFIX = ".manifest.sha256.json"
RUN_RESULTS_NAME = "results.jsonl"
FORMAT_VERSION = 1
_AUDIO_SUFFIXES = (".wav", ".mp3", ".flac", ".ogg", ".opus", ".aac", ".webm", ".bin")


class ManifestError(ValueError):
    """No manifest where one was expected, or one that cannot be read."""


class UnverifiedRunError(ManifestError):
    """A recorded run whose own files no longer match its manifest, or that has none, read without
    :data:`ALLOW_UNVERIFIED`; the message names the manifest and each changed file."""

    def __init__(self, message: str, *, no_manifest: bool = False) -> None:
        super().__init__(message)
        #: the run has no manifest at all: a run killed midway writes none (its session never closed)
        self.no_manifest = no_manifest


#: the opt-in that lets a command read a run that does not verify (``--tts-allow-unverified`` for the
#: plugin and ``ttsbench gate``, which share the gate's options)
ALLOW_UNVERIFIED = "--allow-unverified"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_path(results_path: Path) -> Path:
    """Where the manifest of a results file lives."""
    if results_path.name == RUN_RESULTS_NAME:
        return results_path.parent / MANIFEST_NAME
    return results_path.parent / f"{results_path.stem}{MANIFEST_SUFFIX}"


def _is_manifest(path: Path) -> bool:
    return path.name == MANIFEST_NAME or path.name.endswith(MANIFEST_SUFFIX)


def _is_transient(path: Path) -> bool:
    """A file that is there only while it is written (a temporary, a part, a session's claim): never hashed."""
    return path.name.endswith((".tmp", ".part")) or is_claim_file(path)


def _key(path: Path, base: Path) -> str:
    """How a file is named in a manifest: relative to its folder when inside it, else absolute."""
    resolved = path.resolve()
    return resolved.relative_to(base).as_posix() if resolved.is_relative_to(base) else str(resolved)


def _input_key(path: Path, base: Path, project: Path | None) -> tuple[str, str | None]:
    """An input's name and root: inside the run folder, then relative to the project (root ``project``),
    then a shipped pack's file (root ``pack``), else absolute."""
    resolved = path.resolve()
    if resolved.is_relative_to(base):
        return _key(path, base), None
    if project is not None and resolved.is_relative_to(project.resolve()):
        return resolved.relative_to(project.resolve()).as_posix(), "project"
    if resolved.is_relative_to(packs_root()):
        return resolved.relative_to(_packs_base()).as_posix(), "pack"
    return _key(path, base), None


def _packs_base() -> Path:
    """What a pack file's manifest key is relative to: the folder holding the installed package."""
    return packs_root().parent.parent


def _locate(key: str, base: Path) -> Path:
    path = Path(key)
    return path if path.is_absolute() else base / path


def expand_inputs(paths: Iterable[Path], suffixes: tuple[str, ...] = BENCHMARK_FILE_SUFFIXES) -> list[Path]:
    """Files for the given paths: a file as is, a folder as its files with one of ``suffixes``."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(p for p in sorted(path.rglob("*")) if p.is_file() and p.suffix in suffixes)
    return found


def _owned_files(folders: Iterable[Path]) -> list[Path]:
    return [
        file
        for folder in folders
        if folder.is_dir()
        for file in sorted(folder.rglob("*"))
        if file.is_file() and not _is_manifest(file) and not _is_transient(file)
    ]


def write_manifest(
    results_path: Path,
    inputs: Iterable[Path],
    outputs: Iterable[Path] = (),
    owned_dirs: Iterable[Path] = (),
    project: Path | None = None,
) -> Path:
    """Write the manifest of ``results_path``; the results file itself is always an output.

    ``owned_dirs`` are folders the run wrote into (the clip folder): every file in them now is an
    output, and a file that appears there later counts as "added". So are the results file's
    sidecars (``<stem>.*`` beside it, e.g. a gate report). Missing paths are skipped: a run that
    wrote no clip has none to hash.
    """
    target = manifest_path(results_path)
    base = target.parent.resolve()
    folders = [base] if results_path.name == RUN_RESULTS_NAME else [d for d in owned_dirs if d.is_dir()]
    sidecars = sorted(results_path.parent.glob(f"{results_path.stem}.*"))
    files: dict[str, dict[str, Any]] = {}
    everything = (("input", inputs), ("output", [results_path, *outputs, *sidecars, *_owned_files(folders)]))
    for role, paths in everything:
        for path in paths:
            if not path.is_file() or _is_manifest(path) or _is_transient(path):
                continue
            key, root = _input_key(path, base, project) if role == "input" else (_key(path, base), None)
            # An output that is also an input (a replayed clip kept in place) stays an input.
            if key not in files:
                files[key] = {"role": role, "sha256": sha256_file(path), "bytes": path.stat().st_size}
                if root is not None:
                    files[key]["root"] = root
    document = {
        "version": FORMAT_VERSION,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        # where the run was made: a hint for finding its project inputs, never needed to verify outputs
        "project": str(project.resolve()) if project is not None else None,
        "results": _key(results_path, base),
        "owned_dirs": sorted({_key(folder, base) if folder != base else "." for folder in folders}),
        "files": dict(sorted(files.items())),
    }
    write_atomically(target, dump_json(document, null_non_finite=True, ensure_ascii=False, indent=2) + "\n")
    return target


@dataclass
class Verification:
    """What differs between a run on disk and its manifest."""

    manifest: Path
    checked: int = 0
    modified: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    #: project inputs not found on this machine (a run downloaded without its project): not checked
    not_here: list[str] = field(default_factory=list)
    #: the names the manifest lists as inputs (case files, configuration, replayed files)
    inputs: frozenset[str] = frozenset()

    @property
    def ok(self) -> bool:
        return not (self.modified or self.missing or self.added)


def find_manifests(run: Path) -> list[Path]:
    """The manifests of a run: a manifest file, a results file's manifest, or a folder's manifests."""
    if run.is_dir():
        if (run / MANIFEST_NAME).is_file():
            return [run / MANIFEST_NAME]
        found = sorted(run.glob(f"*{MANIFEST_SUFFIX}"))
        if not found:
            raise ManifestError(f"{run}: no {MANIFEST_NAME} or *{MANIFEST_SUFFIX} in this folder")
        return found
    if _is_manifest(run):
        if not run.is_file():
            raise ManifestError(f"{run}: manifest not found")
        return [run]
    candidate = manifest_path(run)
    if not candidate.is_file():
        raise ManifestError(f"{run}: no manifest beside it (expected {candidate})")
    return [candidate]


def _project_file(key: str, roots: Iterable[Path]) -> Path | None:
    return next((root / key for root in roots if (root / key).is_file()), None)


def _refuse_leading_out(manifest: Path, key: str, base: Path, project: bool) -> None:
    """A relative name in a manifest is data: it must stay inside the run folder (or the project).

    The writer names a file outside both by its absolute path, never with ``..``; a relative name
    leading out was not written by it, and the file it names is not read.
    """
    if Path(key).is_absolute():
        return
    if project:  # lexically only: a project's case folder may be a link to elsewhere
        if os.path.normpath(key).split(os.sep, 1)[0] == "..":
            raise ManifestError(f"{manifest}: project file {key!r} leads out of the project through '..'")
        return
    try:
        inside_folder(base, key)
    except OutsideFolderError as exc:
        raise ManifestError(f"{manifest}: {exc}") from None


def verify_manifest(path: Path, project: Path | None = None) -> Verification:
    """Recompute every checksum the manifest lists and look for unlisted files in the folders it owns."""
    try:
        document = load_json(path.read_text(encoding="utf-8"))
        listed: Mapping[str, Mapping[str, Any]] = document["files"]
        owned: list[str] = list(document.get("owned_dirs", []))
        recorded_project = document.get("project")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ManifestError(f"{path}: not a readable manifest: {exc}") from exc
    if not isinstance(listed, Mapping) or not all(isinstance(entry, Mapping) for entry in listed.values()):
        raise ManifestError(f"{path}: not a readable manifest: field 'files' must map each file to its entry")
    base = path.parent.resolve()
    roots = [Path(p) for p in (project, recorded_project, Path.cwd()) if p]
    inputs = frozenset(key for key, entry in listed.items() if entry.get("role") == "input")
    check = Verification(manifest=path, checked=len(listed), inputs=inputs)
    for key in [*listed, *owned]:
        _refuse_leading_out(path, key, base, project=listed.get(key, {}).get("root") == "project")
    for key, entry in listed.items():
        if entry.get("root") in ("project", "pack"):
            found = _project_file(key, roots if entry["root"] == "project" else [_packs_base()])
            if found is None:
                check.not_here.append(key)
            elif sha256_file(found) != entry.get("sha256"):
                check.modified.append(key)
            continue
        file = _locate(key, base)
        if not file.is_file():
            check.missing.append(key)
        elif sha256_file(file) != entry.get("sha256"):
            check.modified.append(key)
    for folder_key in owned:
        folder = _locate(folder_key, base)
        if not folder.is_dir():
            continue
        for file in _owned_files([folder]):
            key = _key(file, base)
            if key not in listed:
                check.added.append(key)
    return check


def verify_recorded_run(
    results_path: Path, *, allow_unverified: bool, flag: str | None = ALLOW_UNVERIFIED, require_manifest: bool = True
) -> tuple[str, ...]:
    """The one check every reader of a recorded run makes before it reads it (a baseline, a run gated
    again, compared, merged, ranked, reported): its own files (the results, the run header, its clips)
    must match its manifest. An edited verdict, a dropped row or a changed header is refused, naming
    the manifest and each file, unless ``allow_unverified`` (``flag`` names that opt-in, None where
    there is none); then the same words come back as notes for the gate file and the terminal. A run
    without a manifest cannot be checked: refused alike where ``require_manifest`` (what judges a
    release: a baseline, the gate, a merge, a saved baseline), else read with a note (a comparison,
    a leaderboard, a report: the run model's reader).

    Not judged: the inputs the run read (case files and configuration evolve after a run), the
    gate file (``ttsbench gate`` writes it again), files added beside the run (a report) and clips
    gone (each reader reports a missing clip); a clip changed is.
    """
    no_manifest = False
    try:
        manifest = find_manifests(results_path)[0]
    except ManifestError as exc:
        problem, no_manifest = f"{exc}: the run cannot be checked (a run killed midway writes none)", True
    else:
        check = verify_manifest(manifest)
        gate_file = results_path.with_name(f"{results_path.stem}.gate.json").name
        records = {results_path.name, results_path.with_name(f"{results_path.stem}.run.json").name}
        own = [f"modified: {key}" for key in check.modified if key not in check.inputs and Path(key).name != gate_file]
        # a clip gone is the readers' to report (a missing clip); the results and the header must be there
        own += [f"missing: {key}" for key in check.missing if Path(key).name in records]
        if not own:
            return ()
        problem = f"{manifest}: the run no longer matches its manifest ({'; '.join(own)})"
    if not allow_unverified and (require_manifest or not no_manifest):
        raise UnverifiedRunError(problem + (f"; {flag} reads it anyway" if flag else ""), no_manifest=no_manifest)
    return (f"unverified: {problem}",)


# --- a pytest run --------------------------------------------------------------------------------


def _engine_inputs(settings: Settings, engines: Iterable[str]) -> list[Path]:
    """The files replay engines read: a ``transcripts`` file (or folder of them), an ``audio-dir``'s clips."""
    found: list[Path] = []
    for name in engines:
        profile = settings.engines.get(name)
        raw = profile.option("path") if profile is not None else None
        if profile is None or not isinstance(raw, str) or not raw:
            continue
        path = Path(raw) if Path(raw).is_absolute() else profile.base_dir / raw
        if profile.type == "transcripts":
            found.extend(expand_inputs([path], (".jsonl",)))
        elif profile.type == "audio-dir":
            found.extend(expand_inputs([path], _AUDIO_SUFFIXES))
    return found


def _inside_any(folders: Sequence[Path], recorded: str) -> Path | None:
    """``recorded`` resolved inside the first of ``folders`` that holds it, else None."""
    for folder in folders:
        try:
            return inside_folder(folder, recorded)
        except OutsideFolderError:
            continue
    return None


def write_session_manifest(
    settings: Settings,
    results_path: Path | None,
    audio_dir: Path | None,
    engine_names: Iterable[str],
    suite_files: Iterable[Path],
) -> Path | None:
    """The manifest of a finished pytest run (controller only): called once when the session closes.

    Case files come from the results' node ids (which also works under pytest-xdist, where the
    controller collects nothing) and from the suites this process collected itself (``suite_files``).
    """
    if results_path is None or not results_path.is_file():
        return None
    rows = list(iter_results(results_path))
    root = settings.base_dir
    cases: set[Path] = {Path(p) for p in suite_files}
    for row in rows:
        if row.node_id:
            # a node id read from the results file is data: only a case file inside the project counts
            candidate = _inside_any([root], row.node_id.split("::", 1)[0])
            if candidate is not None and candidate.is_file():
                cases.add(candidate)
    inputs = sorted(cases)
    inputs += _engine_inputs(settings, sorted({r.engine for r in rows} | set(engine_names)))
    if settings.source is not None:
        inputs.append(settings.source)
    # Rows of an earlier session (--tts-append, --tts-resume) are data too: a clip is hashed only
    # inside the run's folder or its configured audio folder.
    clip_folders = [results_path.parent, *([audio_dir] if audio_dir is not None else [])]
    outputs = [p for p in (_inside_any(clip_folders, r.audio_path) for r in rows if r.audio_path) if p is not None]
    owned = [audio_dir] if audio_dir is not None else []
    return write_manifest(results_path, inputs, outputs, owned, project=root)
