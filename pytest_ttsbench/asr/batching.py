"""Transcription across items: the clips of later tests, ready before their turn, decoded with this one's.

Tests run one after another, each transcribing its own clip, while the prefetch pool
(prefetch.py) synthesizes the clips of the next tests. When a test's clip reaches a route that
decodes several items' clips together (``batch_items`` > 1, asr/whisper.py), the stage asks the
pipeline for the clips already synthesized and checked for the tests that follow, groups them
(:func:`plan_batches`: one route and language per batch, at most N clips, in test order) and has
the route decode this clip's batch in one call. The others' transcripts are held here until their
own tests ask, so every test still makes and writes its own row as it finishes; a run stopped
midway loses only transcripts of tests that had not run yet.

A clip that cannot be decoded gets its own error; the rest of its batch is unaffected. With only
this clip ready, it is decoded alone, as the sequential mode does.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from pytest_ttsbench.asr.base import AsrError, AsrRoute, Transcription
from pytest_ttsbench.audio.decoding import DecodedAudio

Clip = TypeVar("Clip")


def plan_batches(clips: Sequence[Clip], group_of: Callable[[Clip], Hashable], limit: int) -> list[list[Clip]]:
    """``clips`` in batches of at most ``limit``, each of one group, in the order the clips came.

    A batch is closed when it is full; batches are listed by their first clip, so the batch of
    ``clips[0]`` is the first one.
    """
    size = max(1, limit)
    open_batches: dict[Hashable, list[Clip]] = {}
    batches: list[list[Clip]] = []
    for clip in clips:
        group = group_of(clip)
        batch = open_batches.get(group)
        if batch is None or len(batch) >= size:
            batch = open_batches[group] = []
            batches.append(batch)
        batch.append(clip)
    return batches


@dataclass(frozen=True)
class ReadyClip:
    """A later test's clip, decoded and checked, that a route will be asked to transcribe."""

    audio: DecodedAudio
    language: str


@runtime_checkable
class BatchingRoute(AsrRoute, Protocol):
    """A route that decodes the clips of several items in one call (WhisperRoute)."""

    items_batch: int

    def transcribe_together(self, audios: Sequence[DecodedAudio], language: str) -> list[Transcription | AsrError]: ...


@dataclass
class _Held:
    audio: DecodedAudio  # kept so the clip is the very one asked for (and its id is not reused)
    outcome: Transcription | AsrError


class TranscriptionStage:
    """Hands each test its route's transcript, decoding the clips of tests ready after it alongside.

    ``ready`` names the clips of later tests that ``route`` would be asked to transcribe (the
    pipeline's prefetched clips, decoded and checked, in test order).
    """

    def __init__(self, ready: Callable[[AsrRoute], Sequence[ReadyClip]]) -> None:
        self._ready = ready
        self._held: dict[tuple[int, int], _Held] = {}
        self.batches = 0  # decoder calls made for more than one clip

    def transcribe(self, route: AsrRoute, audio: DecodedAudio, language: str) -> Transcription:
        """``route``'s transcript of ``audio``: held from an earlier batch, decoded in a batch now, or alone."""
        held = self._held.pop((id(route), id(audio)), None)
        if held is not None and held.audio is audio:
            if isinstance(held.outcome, AsrError):
                raise held.outcome
            return held.outcome
        if not isinstance(route, BatchingRoute) or route.items_batch <= 1:
            return route.transcribe(audio, language)
        asking = ReadyClip(audio, language)
        waiting = [
            clip for clip in self._ready(route) if not self._holds(route, clip.audio) and clip.audio is not audio
        ]
        batch = plan_batches([asking, *waiting], lambda clip: clip.language, route.items_batch)[0]
        if len(batch) == 1:
            return route.transcribe(audio, language)
        self.batches += 1
        outcomes = route.transcribe_together([clip.audio for clip in batch], language)
        for clip, outcome in zip(batch[1:], outcomes[1:], strict=True):
            self._held[(id(route), id(clip.audio))] = _Held(clip.audio, outcome)
        if isinstance(outcomes[0], AsrError):
            raise outcomes[0]
        return outcomes[0]

    def _holds(self, route: AsrRoute, audio: DecodedAudio) -> bool:
        held = self._held.get((id(route), id(audio)))
        return held is not None and held.audio is audio

    def clear(self) -> None:
        """Forget transcripts no test asked for (a run that stopped early)."""
        self._held.clear()
