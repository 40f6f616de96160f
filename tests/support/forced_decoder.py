"""A real Whisper model whose decoder loops because the test says so, for the decoding bounds.

Whether Whisper loops on some audio depends on the CPU: CTranslate2's int8 kernels differ
between machines (AVX2, AVX-512, its generic kernels), and a clip that sends one machine's
decoder round "200,000,000,…" for 440 tokens is transcribed plainly on another. So the tests of
the bounds never count on a model misbehaving. They put :class:`LoopingDecoder` in front of the
real CTranslate2 model, at the one place faster-whisper calls it (``WhisperModel.model``), in
both decoding modes:

* the real ``generate`` runs, on the real audio features, with the end-of-text token suppressed:
  the decoder cannot stop by itself, so it runs to the length limit the route asked for, as a
  looping decode does; the limit is CTranslate2's own rule, measured here on this machine;
* its output is replaced by a loop the test chooses (the same number of tokens, starting with a
  timestamp when timestamps are on), so the loop detector has the same thing to find on every CPU.

Everything else (features, encoder, prompts, segmenting, faster-whisper's lazy windows, the
route's budgets and checks) is the real code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from pytest_ttsbench.asr.base import Transcription
from pytest_ttsbench.asr.whisper import FLAG_BOUNDED, FLAG_REPETITION, WhisperRoute, window_token_budget
from pytest_ttsbench.audio.decoding import DecodedAudio, decode_audio
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine


@dataclass(frozen=True)
class Decoded:
    """One window's forced decode: its prompt length, the limit asked for, the tokens it made."""

    prompt: int
    max_length: int
    generated: int


@dataclass
class _Result:
    """What faster-whisper reads of a ``WhisperGenerationResult``."""

    sequences_ids: list[list[int]]
    scores: list[float]
    no_speech_prob: float


@dataclass
class LoopingDecoder:
    """Stands in for ``ctranslate2.models.Whisper``: delegates everything but ``generate``."""

    real: Any
    loop: list[int]  # text token ids repeated to fill each window
    end_of_text: int
    no_timestamps: int
    timestamp_begin: int
    decoded: list[Decoded] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def generate(self, features: Any, prompts: list[list[int]], **options: Any) -> list[_Result]:
        suppress = [*(options.get("suppress_tokens") or [-1]), self.end_of_text]
        results = self.real.generate(features, prompts, **{**options, "suppress_tokens": suppress})
        looped = []
        for prompt, result in zip(prompts, results, strict=True):
            length = len(result.sequences_ids[0])
            self.decoded.append(Decoded(len(prompt), int(options["max_length"]), length))
            head = [] if self.no_timestamps in prompt else [self.timestamp_begin]  # "<|0.00|>", then the loop
            ids = head + (self.loop * length)[: length - len(head)]
            looped.append(_Result([ids], list(result.scores), result.no_speech_prob))
        return looped


def force_a_loop(monkeypatch: pytest.MonkeyPatch, route: WhisperRoute, language: str, loop_text: str) -> LoopingDecoder:
    """Make ``route``'s model for ``language`` decode every window as ``loop_text`` repeated until
    its length limit; ``monkeypatch`` puts the real decoder back (the model is shared per process)."""
    whisper_model = route.load(language).model
    tokenizer = whisper_model.hf_tokenizer
    decoder = LoopingDecoder(
        real=whisper_model.model,
        loop=tokenizer.encode(loop_text, add_special_tokens=False).ids,
        end_of_text=tokenizer.token_to_id("<|endoftext|>"),
        no_timestamps=tokenizer.token_to_id("<|notimestamps|>"),
        timestamp_begin=tokenizer.token_to_id("<|notimestamps|>") + 1,
    )
    monkeypatch.setattr(whisper_model, "model", decoder)
    return decoder


def looping_clip(espeak: EspeakEngine, name: str) -> tuple[str, str, DecodedAudio]:
    """(model, language, clip) by name: eSpeak's Mandarin through ``auto`` (a Chinese item gets
    base), or five seconds of noise for base in English."""
    if name == "espeak-mandarin":
        synthesis = espeak.synthesize(SynthesisRequest("今天是2026年5月4日。", "zh"))
        return "auto", "zh", decode_audio(synthesis.audio)
    noise = (0.1 * np.random.default_rng(0).standard_normal(5 * 16_000)).astype(np.float32)
    return "base", "en", DecodedAudio(noise, 16_000, 16_000, 1, "wav", 2)


def transcribe_a_forced_loop(
    monkeypatch: pytest.MonkeyPatch, espeak: EspeakEngine, clip_name: str, batch_size: int
) -> tuple[Transcription, LoopingDecoder, DecodedAudio]:
    model, language, clip = looping_clip(espeak, clip_name)
    route = WhisperRoute(model, batch_size=batch_size)
    decoder = force_a_loop(monkeypatch, route, language, " 200,000,000")
    return route.transcribe(clip, language), decoder, clip


def assert_a_bounded_loop(heard: Transcription, decoder: LoopingDecoder, clip: DecodedAudio) -> None:
    """A decoder that never stops is cut at the window's budget, and the text is flagged as a loop."""
    budget = window_token_budget(clip.seconds)
    # The real decoder, unable to stop, ran to the limit the route asked for, and that limit is the
    # window's budget (within one timestamp token) on this machine's CTranslate2.
    assert decoder.decoded and all(budget - 2 <= d.generated <= budget + 1 for d in decoder.decoded), decoder.decoded
    assert FLAG_BOUNDED in heard.flags and FLAG_REPETITION in heard.flags, heard
    assert budget - 2 <= int(heard.details["tokens"]) <= budget  # type: ignore[call-overload]
    repetition = heard.details["repetition"]
    assert isinstance(repetition, dict) and repetition["repeats"] >= 4
    assert "200,000,000" in heard.text
