"""Engines that need no synthesis: stored transcripts, and pre-rendered audio.

``type: transcripts`` with ``path`` (a JSON-lines file or a folder of them, relative to the
configuration file) replays fixed ASR transcripts: the pipeline scores them directly.
``type: audio-dir`` with ``path`` (a folder) serves ``{id}.wav`` (or .mp3/.flac/.ogg) clips,
which then go through the audio checks and ASR like any synthesized clip.
"""

from __future__ import annotations

from pathlib import Path

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.transcripts import TranscriptsError, load_transcripts

AUDIO_SUFFIXES = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".flac": "audio/flac", ".ogg": "audio/ogg"}


def _profile_path(profile: EngineProfile) -> Path:
    raw = profile.option("path")
    if not isinstance(raw, str) or not raw:
        raise EngineUnavailable(f"profile {profile.name!r} (type {profile.type}) needs a 'path'")
    path = Path(raw)
    return path if path.is_absolute() else profile.base_dir / path


class TranscriptsEngine:
    """Replays fixed transcripts; an item with no row gets an empty mapping (verdict unknown)."""

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
    """Serves pre-rendered clips named after the item id (``{id}.wav`` or ``{suite}/{id}.wav``)."""

    def __init__(self, profile: EngineProfile) -> None:
        self.name = profile.name
        self.folder = _profile_path(profile)
        if not self.folder.is_dir():
            raise EngineUnavailable(f"audio folder not found at {self.folder}")

    def _find(self, full_id: str) -> Path | None:
        suite, _, bare = full_id.partition("/")
        for stem in (Path(suite) / bare, Path(bare)):
            for suffix in AUDIO_SUFFIXES:
                candidate = self.folder / stem.with_name(stem.name + suffix)
                if candidate.resolve().is_relative_to(self.folder.resolve()) and candidate.is_file():
                    return candidate
        return None

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        path = self._find(request.item_id)
        if path is None:
            raise EngineError(f"no pre-rendered clip for {request.item_id} in {self.folder}")
        return Synthesis(audio=path.read_bytes(), media_type=AUDIO_SUFFIXES[path.suffix], metadata={"file": str(path)})

    def close(self) -> None:
        pass
