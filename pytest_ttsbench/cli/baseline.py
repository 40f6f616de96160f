"""``ttsbench baseline save RUN DIR [--with-audio]``: a compact baseline meant to be committed.

A run folder holds everything a run wrote (clips, sidecars, a report); a baseline is what the
next release is gated against, kept in the repository beside the known gaps and snapshots:

* ``results.jsonl`` — the run's rows, clip paths relative to the baseline folder;
* ``results.gate.json`` and ``results.run.json`` — the run's gate and its run header (what it
  was made with), when it has them;
* ``audio/…`` — the clips, only with ``--with-audio`` (before/after listening for regressions);
* ``manifest.sha256.json`` — checksums of the above plus the run's recorded inputs (case files,
  configuration), so ``ttsbench verify DIR`` proves nobody edited the baseline.

The run is verified against its own manifest first: a baseline is never made from a run whose
files no longer match what it wrote.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.run_model.manifest import (
    MANIFEST_NAME,
    RUN_RESULTS_NAME,
    ManifestError,
    find_manifests,
    manifest_path,
    sha256_file,
    verify_recorded_run,
)
from pytest_ttsbench.run_model.reader import RUNS_HELP, results_file
from pytest_ttsbench.run_model.reruns import claimed_output
from pytest_ttsbench.run_model.results import ItemResult, is_claim_file, read_results, write_results
from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder
from pytest_ttsbench.support.json_documents import dump_json, load_json

AUDIO_FOLDER = "audio"


class BaselineError(ValueError):
    """A run that cannot become a baseline; the message names the file."""


def _source_clip(row: ItemResult, source: Path) -> Path | None:
    """The row's clip, inside the folder of ``source`` (the run's results file, whose paths are data)."""
    if not row.audio_path:
        return None
    try:
        clip = inside_folder(source.parent, row.audio_path)
    except OutsideFolderError as exc:
        raise BaselineError(f"{source}: clip of {row.key} [{row.engine}] not copied: {exc}") from None
    if not clip.is_file():
        raise BaselineError(f"clip of {row.key} [{row.engine}] not found: {clip}")
    return clip


def _copy_clip(row: ItemResult, clip: Path | None, target: Path) -> ItemResult:
    """The row pointing at its clip copied under ``target/audio/<engine folder>/<suite folder>/``."""
    if clip is None:
        return row
    relative = Path(AUDIO_FOLDER, *clip.parts[-3:])  # <engine>/<suite>/<clip name>, as the run laid it out
    destination = target / relative
    destination.parent.mkdir(parents=True, exist_ok=True)
    if not destination.exists():
        shutil.copyfile(clip, destination)
    return dataclasses.replace(row, audio_path=str(destination))


def _clear(target: Path) -> None:
    """An empty folder to write into: a previous baseline there is replaced, anything else refused."""
    if target.is_dir() and any(not is_claim_file(path) for path in target.iterdir()):  # our claim is no content
        if not (target / MANIFEST_NAME).is_file():
            raise BaselineError(f"{target}: folder is not empty and holds no baseline; choose an empty folder")
        stem = Path(RUN_RESULTS_NAME).stem
        for name in (RUN_RESULTS_NAME, f"{stem}.gate.json", f"{stem}.run.json", MANIFEST_NAME):
            (target / name).unlink(missing_ok=True)
        shutil.rmtree(target / AUDIO_FOLDER, ignore_errors=True)
    target.mkdir(parents=True, exist_ok=True)


def save_baseline(run: Path, target: Path, with_audio: bool = False) -> Path:
    """Write the baseline of ``run`` into ``target``; returns the new results file."""
    source = results_file(run)
    try:  # a baseline is made only from a run that matches its checksum manifest
        verify_recorded_run(source, allow_unverified=False, flag=None)
        manifests = find_manifests(source)
    except ManifestError as exc:
        raise BaselineError(str(exc)) from exc
    rows = read_results(source)
    if not rows:
        raise BaselineError(f"{source}: no results in this run")
    clips = [_source_clip(row, source) for row in rows] if with_audio else []  # all checked before anything is cleared
    with claimed_output(target / RUN_RESULTS_NAME, "ttsbench baseline save"):  # as a run claims its --tts-results
        return _write_baseline(source, rows, clips, manifests[0], target, with_audio)


def _write_baseline(
    source: Path, rows: list[ItemResult], clips: list[Path | None], manifest: Path, target: Path, with_audio: bool
) -> Path:
    _clear(target)
    if with_audio:
        rows = [_copy_clip(row, clip, target) for row, clip in zip(rows, clips, strict=True)]
    else:
        # Without clips the rows name none: a path to a file that is not there would mislead.
        rows = [dataclasses.replace(row, audio_path=None) for row in rows]
    results = target / RUN_RESULTS_NAME
    write_results(results, rows)
    # the gate's outcome, and the run header that says what the run was made with (provenance)
    for suffix in (".gate.json", ".run.json"):
        sidecar = source.with_name(f"{source.stem}{suffix}")
        if sidecar.is_file():
            shutil.copyfile(sidecar, target / f"{results.stem}{suffix}")
    _write_manifest(results, manifest, target)
    return results


def _write_manifest(results: Path, source_manifest: Path, target: Path) -> None:
    """The baseline's manifest: its own files, plus the run's inputs as the run recorded them."""
    try:
        document = load_json(source_manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{source_manifest}: not a readable manifest: {exc}") from exc
    files: dict[str, Any] = {k: v for k, v in document["files"].items() if v.get("role") == "input"}
    for path in sorted(
        p for p in target.rglob("*") if p.is_file() and p.name != MANIFEST_NAME and not is_claim_file(p)
    ):
        key = path.relative_to(target).as_posix()
        files[key] = {"role": "output", "sha256": sha256_file(path), "bytes": path.stat().st_size}
    document.update(results=results.name, owned_dirs=["."], files=dict(sorted(files.items())))
    write_atomically(manifest_path(results), dump_json(document, ensure_ascii=False, indent=2) + "\n")


def _cmd_save(args: argparse.Namespace) -> int:
    try:
        results = save_baseline(Path(args.run), Path(args.dir), with_audio=args.with_audio)
    except BaselineError as exc:
        print(f"ttsbench baseline save: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except (OSError, ValueError) as exc:
        print(f"ttsbench baseline save: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"baseline written to {results.parent} (commit it; gate with --tts-baseline {results.parent})")
    return EXIT_OK


def add_command(subparsers: Any) -> None:
    p = subparsers.add_parser("baseline", help="keep a run as the baseline the next release is gated against")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    save = actions.add_parser("save", help="write a compact, verifiable baseline folder from a run")
    save.add_argument("run", metavar="RUN", help=RUNS_HELP)
    save.add_argument("dir", metavar="DIR", help="the baseline folder to write (e.g. baselines/espeak)")
    save.add_argument("--with-audio", action="store_true", help="copy the clips too (before/after listening)")
    save.set_defaults(func=_cmd_save)
