"""Clips of several items decoded together: their first 30 s windows in one decoder call.

Benchmark clips are a few seconds long, one Whisper window each, so batching the windows of one
clip (``BatchedInferencePipeline``) has nothing to batch. Here the first windows of N clips go
through the encoder and then through one beam search together, and everything after that is
faster-whisper's own sequential code, run once per clip:

* the settings (suppressed tokens, timestamp rules, …) are the ones ``WhisperModel.transcribe``
  builds, read from a call on a tenth of a second of silence, which decodes nothing;
* the decoder call's arguments are the ones ``WhisperModel.generate_with_fallback`` passes,
  recorded from it, so the batch is decoded exactly as each clip would be alone;
* each clip's segments come from ``WhisperModel.generate_segments`` (prompt, timestamp splitting,
  empty segments dropped, later windows of a long clip decoded lazily so the route's early stop
  still works), with its first decoder call answered by the batch's result for it.

One difference is inherent: the batch is decoded with the longest token limit of its clips. A
decode that stops by itself before its own limit is the same under a longer one; a clip whose
result reaches its own limit (a loop, or a budget spent) is decoded again alone with its own
limit, so its budget and text are the sequential ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

#: clips encoded per encoder call on the CPU: the encoder gains nothing from larger batches there
#: (measured with benchmarks/throughput.py's ``batching`` part), only the decoder's beam search does
CPU_ENCODER_BATCH = 1
_SILENCE = np.zeros(1600, dtype=np.float32)  # 0.1 s: enough for transcribe() to build its settings


class _Recorded(Exception):
    """Carries the arguments of the decoder call that generate_with_fallback was about to make."""

    def __init__(self, options: dict[str, Any]) -> None:
        super().__init__("decoder call recorded")
        self.options = options


class _RecordingDecoder:
    def generate(self, features: Any, prompts: Any, **options: Any) -> Any:
        raise _Recorded(options)


@dataclass
class _FirstCallAnswered:
    """Stands in for the CTranslate2 model of one clip: its first decoder call is answered by the
    batch's result for it; a call the batch does not match, and every later one, is made for real."""

    real: Any
    batched: Any  # this clip's WhisperGenerationResult from the batch
    batch_options: dict[str, Any]  # what the batch was decoded with
    prompt_length: int
    first_window: np.ndarray  # its padded features, to encode it alone when it must be decoded again
    encode: Any
    answered: bool = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def generate(self, features: Any, prompts: list[list[int]], **options: Any) -> Any:
        if not self.answered:
            self.answered = True
            if self._batch_holds(options):
                return [self.batched]
            features = self.encode(self.first_window)  # decoded again alone, with its own limit
        return self.real.generate(features, prompts, **options)

    def _batch_holds(self, options: Mapping[str, Any]) -> bool:
        """Whether this clip alone would have been decoded as in the batch: the same arguments but
        the length limit, and a result that stopped before its own limit (CTranslate2 generates at
        most half of ``max_length``, prompt included: see asr/whisper.py)."""
        own_limit = int(options.get("max_length", 0))
        others = {key: value for key, value in options.items() if key != "max_length"}
        if others != {key: value for key, value in self.batch_options.items() if key != "max_length"}:
            return False
        if own_limit == self.batch_options.get("max_length"):
            return True
        return len(self.batched.sequences_ids[0]) < own_limit // 2 - self.prompt_length


class _OneClip:
    """The WhisperModel as generate_segments sees it for one clip: its decoder is the clip's stand-in."""

    def __init__(self, model: Any, decoder: Any) -> None:
        self._model = model
        self.model = decoder

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def generate_with_fallback(self, *args: Any) -> Any:
        from faster_whisper.transcribe import WhisperModel

        return WhisperModel.generate_with_fallback(self, *args)  # calls self.model.generate: the stand-in


_ENCODED_IN_BATCH = object()  # generate_segments' encoder output for a first window the batch decodes


def transcription_options(model: Any, decoding: Mapping[str, Any]) -> Any:
    """The ``TranscriptionOptions`` faster-whisper's ``transcribe`` builds from ``decoding``."""
    _, info = model.transcribe(_SILENCE, **decoding)  # segments are lazy: nothing is decoded
    return info.transcription_options


def first_window(model: Any, features: np.ndarray) -> np.ndarray:
    """A clip's first 30 s of features as generate_segments cuts and pads them (its last frame is dropped)."""
    from faster_whisper.audio import pad_or_trim

    content_frames = features.shape[-1] - 1
    return pad_or_trim(features[:, : min(model.feature_extractor.nb_max_frames, content_frames)])


def decode_together(
    model: Any, clips: Sequence[np.ndarray], decodings: Sequence[Mapping[str, Any]]
) -> list[Iterator[Any]]:
    """Each clip's faster-whisper segments (lazy iterators), their first windows decoded in one call.

    ``decodings`` are ``WhisperModel.transcribe`` keyword arguments, one per clip, differing at most
    in ``max_new_tokens``. Raises what CTranslate2 raises (RuntimeError, ValueError) for the batch.
    """
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import WhisperModel

    options = [replace(transcription_options(model, decodings[0]), **_limit(d)) for d in decodings]
    language = str(decodings[0]["language"])
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language)
    features = [model.feature_extractor(samples) for samples in clips]
    windows = [first_window(model, f) for f in features]
    prompt = model.get_prompt(tokenizer, [], without_timestamps=options[0].without_timestamps)
    longest = max(options, key=lambda o: o.max_new_tokens or 0)
    try:
        WhisperModel.generate_with_fallback(
            _OneClip(model, _RecordingDecoder()), _ENCODED_IN_BATCH, prompt, tokenizer, longest
        )
        raise RuntimeError("faster-whisper's generate_with_fallback made no decoder call")
    except _Recorded as recorded:
        batch_options = recorded.options
    results = model.model.generate(_encode(model, windows), [list(prompt) for _ in clips], **batch_options)
    streams = []
    for features_i, window, option, result in zip(features, windows, options, results, strict=True):
        stand_in = _FirstCallAnswered(model.model, result, batch_options, len(prompt), window, model.encode)
        clip_model = _OneClip(model, stand_in)
        streams.append(
            WhisperModel.generate_segments(clip_model, features_i, tokenizer, option, False, _ENCODED_IN_BATCH)
        )
    return streams


def _limit(decoding: Mapping[str, Any]) -> dict[str, Any]:
    return {"max_new_tokens": decoding.get("max_new_tokens")}


def _encode(model: Any, windows: Sequence[np.ndarray]) -> Any:
    """The windows through the encoder: all at once on a GPU, a few at a time on the CPU, stacked."""
    import ctranslate2

    if model.model.device != "cpu" or len(windows) <= CPU_ENCODER_BATCH:
        return model.encode(np.stack(windows))
    parts = [
        np.asarray(model.encode(np.stack(windows[i : i + CPU_ENCODER_BATCH])))
        for i in range(0, len(windows), CPU_ENCODER_BATCH)
    ]
    return ctranslate2.StorageView.from_array(np.ascontiguousarray(np.concatenate(parts)))
