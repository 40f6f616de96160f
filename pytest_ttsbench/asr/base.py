"""The ASR route interface. Tests and the pipeline call routes only through this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: importing the routes' registry (for its options) decodes nothing
    from pytest_ttsbench.audio.decoding import DecodedAudio


class AsrError(RuntimeError):
    """A transcription that failed (the item gets verdict ``error``, the reason kept)."""


@dataclass(frozen=True)
class Transcription:
    """A route's transcript of one clip.

    ``flags`` marks transcripts to distrust, e.g. ``"decoding_bounded"`` when the recognizer hit
    the token budget derived from the clip's duration (a loop such as "3-4-4-4-…").
    """

    text: str
    seconds: float
    flags: tuple[str, ...] = ()
    language: str | None = None
    details: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class AsrRoute(Protocol):
    """One recognizer. ``name`` is the route's key in results (``whisper:tiny.en``, ``openai``…)."""

    name: str

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription: ...
