"""The engine interface: text + language + voice in, audio bytes + metadata out.

Adapters never see pytest. They raise :class:`EngineError` for anything that should become an
``error`` verdict (a provider error, a body that is not audio, a timeout after retries), with a
message that names no secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pytest_ttsbench.audio.decoding import sample_rate_problem


class EngineError(RuntimeError):
    """A synthesis that failed for a reason worth recording (the item gets verdict ``error``)."""


class EngineUnavailable(RuntimeError):
    """The engine cannot run at all here (missing key, missing package); its items are skipped."""


class MissingCredentials(EngineUnavailable):
    """The engine's key (or another credential) is not set: a usage error of the run that selects it,
    found before its first test. The message names the environment variable, never a value."""


@dataclass(frozen=True)
class SynthesisRequest:
    """What an engine is asked to say. ``text`` is the item's text, verbatim."""

    text: str
    language: str
    voice: str | None = None
    item_id: str = ""
    # A fresh seed for this generation; adapters whose provider takes one send it (and record it
    # as ``metadata["seed"]``), the others ignore it.
    seed: int | None = None


@dataclass
class Synthesis:
    """What an engine returned.

    ``audio`` holds the encoded bytes as received (WAV, MP3, OGG, FLAC…) or headerless PCM, in
    which case ``pcm_sample_rate`` says its rate (16-bit little-endian mono). Replay engines
    that hold fixed transcripts instead of audio set ``transcripts`` (route → text) and leave
    ``audio`` empty; the pipeline then skips ASR.
    """

    audio: bytes = b""
    media_type: str = "audio/wav"
    pcm_sample_rate: int | None = None
    transcripts: dict[str, str] | None = None
    first_byte_seconds: float | None = None
    # Seconds from the request to the first audio that decodes (the first playable chunk of a
    # streamed reply; not the first byte, which may be a bare header). None: not measured.
    first_audio_seconds: float | None = None
    # True when the reply was streamed, so first_audio_seconds says when playback could start.
    streamed: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


def synthesis_problem(synthesis: object) -> str | None:
    """Why what an engine's ``synthesize`` returned is no :class:`Synthesis` the pipeline can use, or None.

    The first half of the one check every engine's reply passes (the pipeline calls it on each
    reply, whatever the engine); the audio itself is checked by ``audio.decoding.decode_audio``.
    """
    if not isinstance(synthesis, Synthesis):
        return f"synthesize() returned {type(synthesis).__name__}, not a Synthesis"
    if not isinstance(synthesis.audio, (bytes, bytearray)):
        return f"its audio is {type(synthesis.audio).__name__}, not bytes"
    if synthesis.pcm_sample_rate is not None and (problem := sample_rate_problem(synthesis.pcm_sample_rate)):
        return f"headerless PCM: {problem}"
    if not isinstance(synthesis.media_type, str):
        return f"its media_type is {type(synthesis.media_type).__name__}, not text"
    transcripts = synthesis.transcripts
    if transcripts is not None and not (
        isinstance(transcripts, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in transcripts.items())
    ):
        return "its transcripts are not a mapping of route names to text"
    if not isinstance(synthesis.metadata, Mapping):
        return f"its metadata is {type(synthesis.metadata).__name__}, not a mapping"
    return None


@runtime_checkable
class Engine(Protocol):
    """A TTS engine configured from one profile.

    Optional attributes tune the pipeline: ``concurrency`` (how many ``synthesize`` calls may run
    at once from different threads; absent means one, for engines that are not thread-safe),
    ``cache_identity()`` (a mapping that names what, beyond the request and the profile,
    determines the audio, such as a library version; it becomes part of the audio cache key) and
    ``cacheable = False`` (never cache this engine's audio: it reads files or runs a program
    whose changes no key could see) and ``reproducible = True`` (the same request makes the same
    audio, from nothing the cache key and ``cache_identity()`` do not name: a local library or
    model, never a service; only such an engine's clips are read from the cache by default, see
    clip_reuse.py).
    """

    name: str

    def synthesize(self, request: SynthesisRequest) -> Synthesis: ...

    def close(self) -> None: ...
