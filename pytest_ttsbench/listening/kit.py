"""``ttsbench listening export``: a listening kit built from runs, anonymous to its listeners.

A kit folder holds two parts that must never be mixed up:

* ``listeners/`` — what listeners receive: every clip under a random id in ``clips/``, and per
  listener a listening page (``L01.html``) and a consistency page (``L01-consistency.html``),
  self-contained (no network), each with its own random order. Nothing here names an engine,
  voice, provider, path or key: ids are drawn at random (from ``--seed`` when given, so the
  same seed and runs rebuild the same kit), never derived from names, paths or their hashes,
  and clip copies carry no tags.
* ``private/`` — the organizer's: ``key.json`` (id → system, voice, prompt, generation,
  settings, seed, date), ``missing.json`` (clips that failed or are absent, with the reason)
  and ``workflow.json``.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_ttsbench.listening.anonymize import AnonymizeError, anonymous_audio
from pytest_ttsbench.listening.model import Kit, ListenerPlan, MissingClip, SourceClip
from pytest_ttsbench.listening.pages import render_consistency_page, render_listening_page
from pytest_ttsbench.listening.workflow import workflow_report
from pytest_ttsbench.run_model.reader import load_runs
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder
from pytest_ttsbench.support.json_documents import dump_json

LISTENERS_DIR = "listeners"
PRIVATE_DIR = "private"
KEY_FILE = "key.json"
MISSING_FILE = "missing.json"
WORKFLOW_FILE = "workflow.json"

# Ids are read aloud and typed by people: no 0/o, 1/l/i.
_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
_ID_LENGTH = 8


class KitError(ValueError):
    """A kit that cannot be built (bad runs, an output folder already in use); the message says why."""


def _resolve_audio(row: ItemResult, results: Path) -> Path | None:
    """The row's clip inside the results file's folder; OutsideFolderError for a path leading out."""
    if not row.audio_path:
        return None
    return inside_folder(results.parent, row.audio_path)


def _system_names(paths: Sequence[Path], allow_unverified: bool = False) -> list[tuple[Path, str, list[ItemResult]]]:
    """(results file, system name, rows) per engine per run; an engine name seen twice gets ``#2``, ``#3``."""
    seen: dict[str, int] = {}
    found = []
    for path in paths:
        try:
            runs = load_runs([path], allow_unverified=allow_unverified)
        except (OSError, ValueError) as exc:
            raise KitError(str(exc)) from exc
        for run in runs:
            seen[run.system] = seen.get(run.system, 0) + 1
            name = run.system if seen[run.system] == 1 else f"{run.system}#{seen[run.system]}"
            found.append((run.path, name, list(run.rows)))
    return found


def collect_clips(paths: Sequence[Path], allow_unverified: bool = False) -> tuple[list[SourceClip], list[MissingClip]]:
    """Every generation in the runs (targets of one clip count once), and those with no usable audio."""
    clips: list[SourceClip] = []
    missing: list[MissingClip] = []
    for file, system, rows in _system_names(paths, allow_unverified):
        done: set[tuple[str, int]] = set()
        for row in rows:
            if (row.id, row.repeat) in done:
                continue
            done.add((row.id, row.repeat))
            try:
                audio = _resolve_audio(row, file)
            except OutsideFolderError as exc:  # listed as missing; nothing outside the run is read
                missing.append(MissingClip(system, row.id, row.repeat + 1, f"clip not read: {exc}"))
                continue
            expected = row.expected if isinstance(row.expected, dict) else {}
            clip = SourceClip(
                system=system,
                prompt=row.id,
                generation=row.repeat + 1,
                text=row.text,
                language=row.language,
                variety=row.facets.get("variety"),
                review=row.review,
                reviewed=row.reviewed,
                focus=expected.get("focus"),
                audio_path=audio,
                error=row.error,
                details={**row.generation, "engine": row.engine, "results": str(file)},
            )
            reason = _unusable(clip)
            if reason is not None:
                missing.append(MissingClip(system, row.id, clip.generation, reason))
            else:
                clips.append(clip)
    clips.sort(key=lambda c: (c.system, c.prompt, c.generation))
    missing.sort(key=lambda m: (m.system, m.prompt, m.generation))
    return clips, missing


def _unusable(clip: SourceClip) -> str | None:
    """Why a generation cannot go to listeners, or None. Failed clips are listed, never replaced."""
    if clip.audio_path is None:
        return clip.error or "no audio recorded for this generation"
    if not clip.audio_path.is_file():
        return f"audio file missing: {clip.audio_path}" + (f" ({clip.error})" if clip.error else "")
    if clip.error and clip.error.startswith(("synthesis failed", "audio check failed")):
        return clip.error  # the audio exists but is what failed: kept in the run, not rated
    return None


def _draw_ids(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    ids: list[str] = []
    while len(ids) < count:
        candidate = "".join(rng.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH))
        if candidate not in taken:
            taken.add(candidate)
            ids.append(candidate)
    return ids


def plan_kit(
    clips: Sequence[SourceClip], missing: Sequence[MissingClip], listeners: int, seed: int | None, root: Path
) -> Kit:
    """Ids, groups and per-listener orders; all randomness comes from one generator (``seed`` or the OS)."""
    if listeners < 1:
        raise KitError(f"--listeners must be at least 1, got {listeners}")
    if not clips:
        raise KitError("no usable clips in these runs: " + "; ".join(m.reason for m in missing[:3]))
    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
    taken: set[str] = set()
    clip_ids = _draw_ids(rng, len(clips), taken)
    by_id = dict(zip(clip_ids, clips, strict=True))
    grouped: dict[tuple[str, str], list[str]] = {}
    for clip_id, clip in by_id.items():
        grouped.setdefault(clip.group_key, []).append(clip_id)
    # Consistency needs at least two generations to compare.
    comparable = [ids for ids in grouped.values() if len(ids) > 1]
    group_ids = _draw_ids(rng, len(comparable), taken)
    groups = {gid: rng.sample(ids, len(ids)) for gid, ids in zip(group_ids, comparable, strict=True)}
    plans = [
        ListenerPlan(f"L{n:02d}", rng.sample(clip_ids, len(clip_ids)), rng.sample(group_ids, len(group_ids)))
        for n in range(1, listeners + 1)
    ]
    files = {}
    for clip_id, clip in by_id.items():
        suffix = clip.audio_path.suffix.lower() if clip.audio_path else ".wav"
        files[clip_id] = clip_id + (suffix if suffix in (".wav", ".mp3", ".ogg", ".opus", ".flac") else ".audio")
    token = _draw_ids(rng, 1, taken)[0]
    return Kit(root, by_id, files, groups, plans, list(missing), seed, token)


def key_document(kit: Kit) -> dict[str, Any]:
    """``key.json``: everything the pages hide, for the organizer and ``ttsbench listening report``."""
    return {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seed": kit.seed,
        "clips": {
            clip_id: {
                "system": c.system,
                "prompt": c.prompt,
                "generation": c.generation,
                "variety": c.variety,
                "language": c.language,
                "text": c.text,
                "file": f"{LISTENERS_DIR}/clips/{kit.files[clip_id]}",
                "source_audio": str(c.audio_path),
                **{k: v for k, v in c.details.items() if k != "results"},
                "results": c.details.get("results"),
            }
            for clip_id, c in sorted(kit.clips.items(), key=lambda kv: (kv[1].system, kv[1].prompt, kv[1].generation))
        },
        "groups": {
            gid: {"system": kit.clips[ids[0]].system, "prompt": kit.clips[ids[0]].prompt, "clips": ids}
            for gid, ids in kit.groups.items()
        },
        "prompts": _prompts(kit),
        "listeners": {p.listener: {"clips": p.clips, "groups": p.groups} for p in kit.listeners},
        "missing": [asdict(m) for m in kit.missing],
    }


def _prompts(kit: Kit) -> dict[str, dict[str, Any]]:
    prompts: dict[str, dict[str, Any]] = {}
    for clip in kit.clips.values():
        prompts.setdefault(
            clip.prompt,
            {"text": clip.text, "variety": clip.variety, "review": clip.review, "reviewed": clip.reviewed},
        )
    return dict(sorted(prompts.items()))


def _organizer_notes(kit: Kit) -> str:
    lines = [
        "Listening kit",
        "",
        f"Send each listener the folder {LISTENERS_DIR}/ (or just clips/ and their own two pages):",
    ]
    lines += [f"  {p.listener}: {p.listener}.html and {p.listener}-consistency.html" for p in kit.listeners]
    lines += [
        "",
        f"Keep {PRIVATE_DIR}/ to yourself: {KEY_FILE} says which system made each clip.",
        f"Clips in the kit: {len(kit.clips)}; missing or failed generations: {len(kit.missing)} "
        f"(see {PRIVATE_DIR}/{MISSING_FILE}).",
        "Collect the CSV files the pages download and run: ttsbench listening report KIT SHEET.csv ...",
    ]
    pending = kit.pending_reviews
    if pending:
        lines += ["", "Prompts still needing review before any comparison built on them is published:"]
        lines += [f"  {prompt}: {review} review pending" for prompt, review in sorted(pending.items())]
    return "\n".join(lines) + "\n"


def write_kit(kit: Kit, runs: Sequence[Path], allow_unverified: bool = False) -> None:
    """Write the kit's files; the audio copies first, so a failed copy is listed rather than lost."""
    listen = kit.root / LISTENERS_DIR
    private = kit.root / PRIVATE_DIR
    (listen / "clips").mkdir(parents=True)
    private.mkdir()
    for clip_id in list(kit.clips):
        clip = kit.clips[clip_id]
        assert clip.audio_path is not None  # unusable clips went to the missing list
        try:
            data = anonymous_audio(clip.audio_path.read_bytes())
        except (OSError, AnonymizeError) as exc:
            kit.missing.append(MissingClip(clip.system, clip.prompt, clip.generation, f"cannot copy audio: {exc}"))
            _drop_clip(kit, clip_id)
            continue
        (listen / "clips" / kit.files[clip_id]).write_bytes(data)
    for plan in kit.listeners:
        (listen / f"{plan.listener}.html").write_text(render_listening_page(kit, plan), encoding="utf-8")
        (listen / f"{plan.listener}-consistency.html").write_text(render_consistency_page(kit, plan), encoding="utf-8")
    _write_json(private / KEY_FILE, key_document(kit))
    _write_json(private / MISSING_FILE, [asdict(m) for m in kit.missing])
    _write_json(private / WORKFLOW_FILE, workflow_report(runs, allow_unverified=allow_unverified).to_dict())
    (kit.root / "README.txt").write_text(_organizer_notes(kit), encoding="utf-8")


def _drop_clip(kit: Kit, clip_id: str) -> None:
    kit.clips.pop(clip_id)
    kit.files.pop(clip_id)
    for gid in list(kit.groups):
        kit.groups[gid] = [c for c in kit.groups[gid] if c != clip_id]
        if len(kit.groups[gid]) < 2:
            del kit.groups[gid]
    for plan in kit.listeners:
        plan.clips = [c for c in plan.clips if c != clip_id]
        plan.groups = [g for g in plan.groups if g in kit.groups]


def _write_json(path: Path, document: Any) -> None:
    path.write_text(dump_json(document, null_non_finite=True, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def export_kit(
    runs: Sequence[Path], out: Path, listeners: int, seed: int | None = None, *, allow_unverified: bool = False
) -> Kit:
    """Build a listening kit from runs into ``out`` (which must not exist or be empty)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise KitError(f"{out}: already exists and is not empty; choose a new kit folder")
    clips, missing = collect_clips(runs, allow_unverified)
    kit = plan_kit(clips, missing, listeners, seed, out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        write_kit(kit, runs, allow_unverified)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # no half-written kit that looks complete
        raise
    return kit
