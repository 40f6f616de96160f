"""Engines that need no synthesis: stored transcripts, and pre-rendered audio.

``type: transcripts`` with ``path`` (a JSON-lines file or a folder of them, relative to the
configuration file) replays fixed ASR transcripts: the pipeline scores them directly.
``type: audio-dir`` with ``path`` (a folder) serves ``{id}.wav`` (or .mp3/.flac/.ogg) clips,
which then go through the audio checks and ASR like any synthesized clip. When ``path`` is a run
folder (or results file) written with ``--tts-synth-only``, its results rows name each item's clip
(``audio_path``, checked against ``audio_sha256``); ``engine`` picks one engine's clips when the
run holds several.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.run_model.results import read_results
from pytest_ttsbench.run_model.transcripts import TranscriptsError, load_transcripts
from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder

AUDIO_SUFFIXES = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".flac": "audio/flac", ".ogg": "audio/ogg"}


def _profile_path(profile: EngineProfile) -> Path:
    raw = profile.option("path")
    if not isinstance(raw, str) or not raw:
        raise EngineUnavailable(f"profile {profile.name!r} (type {profile.type}) needs a 'path'")
    path = Path(raw)
    return path if path.is_absolute() else profile.base_dir / path


class TranscriptsEngine:
    """Replays fixed transcripts; an item with no row gets an empty mapping (verdict unknown)."""

    cacheable = False  # reads its file on every run: nothing to save, and the file may change

    def __init__(self, profile: EngineProfile) -> None:
        self.name = profile.name
        path = _profile_path(profile)
        if not path.exists():
            raise EngineUnavailable(f"transcripts not found at {path}")
        try:
            self.store = load_transcripts(path)
        except TranscriptsError as exc:
            raise EngineUnavailable(str(exc)) from exc

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        found = self.store.lookup(request.item_id)
        return Synthesis(
            transcripts=dict(found or {}),
            metadata={"routes": list(self.store.routes), "replayed": True, "found": found is not None},
        )

    def close(self) -> None:
        pass


class AudioDirEngine:
    """Serves pre-rendered clips named after the item id (``{id}.wav`` or ``{suite}/{id}.wav``), or
    the clips a synthesize-only run recorded in its results."""

    # Never cached: the clips on disk are the input, and a changed clip must be seen (and refused).
    cacheable = False

    def __init__(self, profile: EngineProfile) -> None:
        self.name = profile.name
        path = _profile_path(profile)
        results = path / "results.jsonl" if path.is_dir() else path
        if path.is_file() and path.suffix != ".jsonl":
            raise EngineUnavailable(f"audio folder not found at {path}")
        self.folder = path if path.is_dir() else path.parent
        if not self.folder.is_dir():
            raise EngineUnavailable(f"audio folder not found at {path}")
        self.recorded = _recorded_clips(results, profile.option("engine")) if results.is_file() else {}

    def _find(self, full_id: str) -> Path | None:
        suite, _, bare = full_id.partition("/")
        for stem in (Path(suite) / bare, Path(bare)):
            for suffix in AUDIO_SUFFIXES:
                try:  # an item id is data too: never a way out of the folder
                    candidate = inside_folder(self.folder, stem.with_name(stem.name + suffix))
                except OutsideFolderError:
                    continue
                if candidate.is_file():
                    return candidate
        return None

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        if request.item_id in self.recorded:
            return self._recorded(request.item_id)
        path = self._find(request.item_id)
        if path is None:
            raise EngineError(f"no pre-rendered clip for {request.item_id} in {self.folder}")
        return Synthesis(audio=path.read_bytes(), media_type=AUDIO_SUFFIXES[path.suffix], metadata={"file": str(path)})

    def _recorded(self, item_id: str) -> Synthesis:
        """The clip a synthesize-only run wrote for ``item_id``, refused if it changed since."""
        recorded_path, sha256 = self.recorded[item_id]
        refused: OutsideFolderError | None = None
        try:
            # The results file is data: its path must lead to a clip inside this folder, never out.
            path = inside_folder(self.folder, recorded_path)
        except OutsideFolderError as exc:
            refused, path = exc, None
        if path is None or not path.is_file():
            # The run folder was moved (an old absolute path): the clip keeps its place inside it.
            name = Path(recorded_path).name
            moved = [p for p in self.folder.rglob(name) if _inside(self.folder, p)] if name not in ("", "..") else []
            if not moved and refused is not None:
                raise EngineError(f"clip of {item_id} refused, nothing read: {refused}")
            if not moved:
                raise EngineError(f"clip of {item_id} not found: {recorded_path}")
            path = moved[0]
        data = path.read_bytes()
        if sha256 and hashlib.sha256(data).hexdigest() != sha256:
            raise EngineError(f"clip of {item_id} changed since it was synthesized: {path}")
        media_type = AUDIO_SUFFIXES.get(path.suffix, "application/octet-stream")
        return Synthesis(audio=data, media_type=media_type, metadata={"file": str(path), "synth_only_run": True})

    def close(self) -> None:
        pass


def _inside(folder: Path, path: Path) -> bool:
    """Whether ``path`` is a file inside ``folder`` once its links are followed."""
    try:
        return inside_folder(folder, path).is_file()
    except OutsideFolderError:
        return False


def _recorded_clips(results: Path, engine: object) -> dict[str, tuple[str, str | None]]:
    """Item id → (clip path, sha256) from a run's results; one engine's clips when it holds several."""
    rows = [r for r in read_results(results) if r.audio_path]
    engines = sorted({r.engine for r in rows})
    if engine is None and len(engines) > 1:
        raise EngineUnavailable(f"{results} holds clips of several engines ({', '.join(engines)}); set 'engine'")
    if engine is not None and engine not in engines:
        raise EngineUnavailable(f"{results} holds no clips of engine {engine!r} (found: {', '.join(engines)})")
    return {r.id: (str(r.audio_path), r.audio_sha256) for r in rows if engine is None or r.engine == engine}
