"""The local ASR route: faster-whisper on the CPU, with decoding bounded by the clip's length.

Whisper sometimes loops on garbled audio (``base`` can emit "3-4-4-4-…" for 20 s of text on a
5 s clip, or "200,000,000,…" for hundreds of tokens on eSpeak's Mandarin). A loop must cost a
bounded, small amount of time and must never pass for a transcript, so:

* each 30 s window gets a token budget derived from the audio it holds (``max_new_tokens``);
* the clip as a whole gets a token budget, and segments past the clip's end stop the reading;
* repeated n-gram runs in the output are detected, and once a window's text loops (an n-gram
  run, or text that compresses like Whisper's own "too repetitive" rule) the windows after it
  are never decoded: on garbled audio the first looping window predicts the rest.

Three decoding modes. *Sequential* decodes a clip's 30 s windows one after another with
faster-whisper's ``WhisperModel.transcribe``. *Batched* (``batch_size: N`` > 1) hands the same
fixed windows (no voice-activity filter, so no audio is dropped) to faster-whisper's
``BatchedInferencePipeline``, which decodes up to N windows of one clip in one call and, as that
pipeline does, without timestamp tokens. The token budgets are the same in both modes; what
differs is the early stop: a batch's windows are decoded together, so a loop stops the windows
of the *next* batches, not those decoded alongside it, and a segment's end is its window's end
(no timestamps), so only the token budgets and loop checks bound a batched reading.
*Across items* (``batch_items: N`` > 1) decodes the clips of up to N items together, with the
sequential mode's prompt, timestamps and bounds (asr/whisper_batch.py; the pipeline gathers the
clips, asr/batching.py). ``auto`` is across items on every device (see :func:`resolve_batching`).
The mode is in every transcript's details, in the transcript cache's key and in the run header,
so runs in different modes are never compared silently.

Transcripts cut short (a budget spent, a segment past the clip's end, windows skipped after a
loop) carry the flag ``decoding_bounded``; loops carry ``repetition``. Both tell the scorer to
distrust the text.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from pytest_ttsbench.asr.base import AsrError, Transcription
from pytest_ttsbench.asr.models import AUTO, ModelNotFound, resolve_auto, resolve_model, weights_sha256
from pytest_ttsbench.audio.decoding import ASR_SAMPLE_RATE, DecodedAudio, resample
from pytest_ttsbench.languages import primary_language
from pytest_ttsbench.support.blas_threads import limit_blas_threads
from pytest_ttsbench.support.package_versions import installed_version

WINDOW_SECONDS = 30.0  # Whisper's fixed input window
# Whisper's decoder holds 448 positions. CTranslate2 lets one window generate at most half of
# ``len(prompt) + max_new_tokens`` (OpenAI's 224-token rule, CTranslate2 issue #1856), so the
# decoder is asked for twice the budget wanted; should that rule go, the bound still holds
# because read_bounded() counts the tokens itself.
MODEL_MAX_NEW_TOKENS = 440
MAX_WINDOW_TOKENS = 220
# Fast cloud voices reach about 10 Whisper tokens a second in Thai or Chinese (a CJK character
# or a Thai syllable is often two tokens), timestamps included; 12/s plus a fixed allowance
# covers every real transcript, while a loop stops after a few seconds of decoding.
TOKENS_PER_SECOND = 12.0
TOKENS_BASE = 24
END_TOLERANCE_SECONDS = 0.5  # Whisper timestamps are 20 ms steps and may overshoot slightly
# Whisper's compression_ratio_threshold: text whose gzip ratio is above it is a repetition loop.
COMPRESSION_RATIO_LIMIT = 2.4

BATCH_AUTO = "auto"
# ``batch_size: auto`` on a GPU: windows are decoded 16 at a time (faster-whisper's own suggestion for CUDA).
GPU_BATCH_SIZE = 16
# ``batch_size: auto`` on the CPU: sequential. Measured with benchmarks/throughput.py on this project's
# 2-core machine, batching a clip's windows gave no wall-time gain worth its memory on short
# clips (one window each: nothing to batch), see the README's "Throughput" section.
CPU_BATCH_SIZE = 1
# ``batch_items: auto``: clips of this many items decoded together. On the CPU the decoder's
# beam search gains from batching up to about 6-8 clips (the encoder, most of the CPU time,
# gains nothing), measured in benchmarks/throughput.py's ``batching`` part; on CUDA one call
# for 16 clips replaces 16.
CPU_ITEMS_BATCH = 8
GPU_ITEMS_BATCH = 16

FLAG_BOUNDED = "decoding_bounded"
FLAG_REPETITION = "repetition"


def whisper_language(tag: str) -> str:
    """Whisper's code for a BCP-47 tag: the primary subtag (``zh-CN`` → ``zh``, ``cmn`` → ``zh``)."""
    return primary_language(tag)


def window_token_budget(seconds: float) -> int:
    """Tokens (timestamps included) one window holding ``seconds`` of audio may generate."""
    held = min(max(seconds, 0.0), WINDOW_SECONDS)
    return min(MAX_WINDOW_TOKENS, math.ceil(TOKENS_PER_SECOND * held) + TOKENS_BASE)


def decoder_max_new_tokens(window_budget: int) -> int:
    """The ``max_new_tokens`` that lets CTranslate2 generate ``window_budget`` tokens (see above)."""
    return min(MODEL_MAX_NEW_TOKENS, 2 * window_budget)


def clip_token_budget(seconds: float) -> int:
    """Tokens the whole clip may produce: its windows' budgets, summed."""
    windows = max(1, math.ceil(max(seconds, 0.0) / WINDOW_SECONDS))
    return math.ceil(TOKENS_PER_SECOND * max(seconds, 0.0)) + TOKENS_BASE * windows


def _is_auto(setting: object) -> bool:
    return isinstance(setting, str) and setting.strip().lower() == BATCH_AUTO


def _on_cuda(device: str) -> bool:
    """Whether ``device`` is CUDA (``auto`` counts as CUDA when CTranslate2 sees a CUDA device)."""
    if device == "auto":
        import ctranslate2

        return bool(ctranslate2.get_cuda_device_count() > 0)
    return device.startswith("cuda")


def _count_setting(setting: object, field: str) -> int:
    size = 0
    if isinstance(setting, int) and not isinstance(setting, bool):
        size = setting
    elif isinstance(setting, str) and setting.strip().isdigit():
        size = int(setting)
    if size < 1:
        raise ValueError(f"asr field {field!r}: expected 'auto' or an integer ≥ 1, got {setting!r}")
    return size


def resolve_batch_size(setting: int | str, device: str) -> int:
    """Windows decoded together for a ``batch_size`` setting (an integer ≥ 1, or ``auto``) on ``device``.

    ``auto`` is :data:`GPU_BATCH_SIZE` on CUDA (``device: auto`` counts as CUDA when CTranslate2
    sees a CUDA device) and :data:`CPU_BATCH_SIZE` on the CPU.
    """
    if _is_auto(setting):
        return GPU_BATCH_SIZE if _on_cuda(device) else CPU_BATCH_SIZE
    return _count_setting(setting, "batch_size")


def resolve_batch_items(setting: int | str, device: str) -> int:
    """Clips of different items decoded together for a ``batch_items`` setting (``auto``: per device)."""
    if _is_auto(setting):
        return GPU_ITEMS_BATCH if _on_cuda(device) else CPU_ITEMS_BATCH
    return _count_setting(setting, "batch_items")


def batching_mode(batch_size: int, batch_items: int = 1) -> str:
    """How a route decodes, as recorded: ``sequential``, ``batched:N`` (a clip's windows) or
    ``cross_item:N`` (clips of N items)."""
    if batch_size > 1:
        return f"batched:{batch_size}"
    return f"cross_item:{batch_items}" if batch_items > 1 else "sequential"


@dataclass(frozen=True)
class Batching:
    """A route's decoding mode: a clip's windows decoded together, or clips of several items."""

    windows: int = 1
    items: int = 1

    @property
    def mode(self) -> str:
        return batching_mode(self.windows, self.items)


def resolve_batching(batch_size: int | str, batch_items: int | str, device: str) -> Batching:
    """The mode a route's ``batch_size`` and ``batch_items`` settings give on ``device``.

    Both ``auto``: across items (:func:`resolve_batch_items`). A set ``batch_size`` is today's
    meaning (``1`` sequential, ``N`` a clip's windows) and turns ``auto`` items off; both set
    above 1 is refused, a clip's windows and several items' clips being two different modes.
    """
    if _is_auto(batch_size):
        return Batching(1, resolve_batch_items(batch_items, device))
    windows = resolve_batch_size(batch_size, device)
    items = 1 if _is_auto(batch_items) else resolve_batch_items(batch_items, device)
    if windows > 1 and items > 1:
        raise ValueError(
            f"asr fields 'batch_size' ({windows}) and 'batch_items' ({items}): choose one mode, "
            "a clip's windows together (batch_size) or several items' clips together (batch_items)"
        )
    return Batching(windows, items)


def clip_windows(duration: float) -> list[dict[str, float]]:
    """The clip's fixed 30 s windows, as the batched pipeline's ``clip_timestamps`` (seconds)."""
    count = max(1, math.ceil(duration / WINDOW_SECONDS))
    return [{"start": n * WINDOW_SECONDS, "end": min((n + 1) * WINDOW_SECONDS, duration)} for n in range(count)]


@dataclass(frozen=True)
class Repetition:
    """A run of one n-gram repeated back to back: ``items[start : start + size * repeats]``."""

    start: int
    size: int
    repeats: int


def find_repetition(items: Sequence[Hashable], max_size: int = 12, min_span: int = 12) -> Repetition | None:
    """The longest back-to-back run of one n-gram (1 ≤ n ≤ ``max_size``) that is a loop.

    A loop repeats its n-gram at least 4 times and covers at least ``min_span`` items (so a
    single token needs 12 copies, a pair 6, longer n-grams 4): "no, no, no" or the digits of
    "1111" stay well below that, "-4-4-4-4-4-4" does not.
    """
    best: Repetition | None = None
    count = len(items)
    for size in range(1, max_size + 1):
        needed = max(4, math.ceil(min_span / size))
        start = 0
        while start + size * needed <= count:
            repeats = 1
            while (
                start + size * (repeats + 1) <= count
                and items[start + size * repeats : start + size * (repeats + 1)] == items[start : start + size]
            ):
                repeats += 1
            if repeats >= needed and (best is None or size * repeats > best.size * best.repeats):
                best = Repetition(start, size, repeats)
            start += max(1, (repeats - 1) * size) if repeats > 1 else 1
    return best


class SegmentLike(Protocol):
    """What the bounding logic reads from a faster-whisper ``Segment``."""

    seek: int
    start: float
    end: float
    text: str
    tokens: list[int]


@dataclass
class BoundedReading:
    """The segments kept from a (possibly endless) segment stream, and why reading stopped."""

    segments: list[Any] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    tokens: int = 0


def read_bounded(
    segments: Iterable[SegmentLike],
    duration: float,
    window_budget: int,
    clip_budget: int,
    timestamp_begin: int | None = None,
) -> BoundedReading:
    """Consume segments until the clip is done, its token budget is spent, or they pass its end.

    Segments are pulled lazily, so stopping here also stops the decoder: the windows it has not
    decoded yet are never decoded. ``timestamp_begin`` (the tokenizer's first timestamp id)
    lets text tokens be counted apart from timestamps.

    A window whose text loops is read to its end (its segments are decoded already, and
    keeping them leaves a one-window transcript unchanged), then reading stops.
    """
    reading = BoundedReading()
    per_window: dict[int, int] = {}
    text_tokens_so_far: list[int] = []
    looping_window: int | None = None

    def bounded(reason: str) -> None:
        if FLAG_BOUNDED not in reading.flags:
            reading.flags.append(FLAG_BOUNDED)
        reading.reasons.append(reason)

    for segment in segments:
        if looping_window is not None and segment.seek != looping_window:
            bounded("the windows after a looping one were not decoded")
            break
        if segment.start >= duration + END_TOLERANCE_SECONDS:
            bounded(f"segment starts at {segment.start:.2f} s, after the clip's end ({duration:.2f} s)")
            break
        text_tokens = [t for t in segment.tokens if timestamp_begin is None or t < timestamp_begin]
        reading.segments.append(segment)
        reading.tokens += len(text_tokens)
        text_tokens_so_far.extend(text_tokens)
        if looping_window is None:
            loop = _loop_reason(segment, text_tokens_so_far)
            if loop is not None:
                looping_window = segment.seek
                reading.flags.append(FLAG_REPETITION)
                reading.reasons.append(loop)
        per_window[segment.seek] = per_window.get(segment.seek, 0) + len(segment.tokens)
        if per_window[segment.seek] >= window_budget - 2:
            bounded(f"a window used its whole budget of {window_budget} tokens")
        if segment.end > duration + END_TOLERANCE_SECONDS:
            bounded(f"segment ends at {segment.end:.2f} s, after the clip's end ({duration:.2f} s)")
            break
        if reading.tokens >= clip_budget:
            bounded(f"the clip used its whole budget of {clip_budget} tokens")
            break
    return reading


def _loop_reason(segment: SegmentLike, text_tokens: Sequence[int]) -> str | None:
    """Why the text read so far is a decoding loop, or None while it is not."""
    ratio = getattr(segment, "compression_ratio", None)  # faster-whisper's gzip ratio of the window's text
    if ratio is not None and ratio > COMPRESSION_RATIO_LIMIT:
        return f"text compresses {ratio:.1f}x (above {COMPRESSION_RATIO_LIMIT}): a repetition loop"
    loop = find_repetition(text_tokens)
    if loop is not None:
        return f"a {loop.size}-token sequence repeated {loop.repeats} times"
    return None


@dataclass
class _Loaded:
    model: Any  # faster_whisper.WhisperModel
    path: Path
    load_seconds: float


_MODELS: dict[tuple[str, str, str, int], _Loaded] = {}
_MODELS_LOCK = threading.Lock()


def load_model(path: Path, device: str = "cpu", compute_type: str = "int8", cpu_threads: int = 0) -> _Loaded:
    """One WhisperModel per (folder, device, compute type, threads) per process, loaded on first use."""
    key = (str(path.resolve()), device, compute_type, cpu_threads)
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            from faster_whisper import WhisperModel

            started = time.perf_counter()
            try:
                model = WhisperModel(str(path), device=device, compute_type=compute_type, cpu_threads=cpu_threads)
            except (RuntimeError, ValueError, OSError) as exc:
                raise AsrError(f"cannot load Whisper model from {path} on {device}/{compute_type}: {exc}") from exc
            loaded = _Loaded(model, path, time.perf_counter() - started)
            _MODELS[key] = loaded
            limit_blas_threads()  # numpy is loaded now: its mel products on one thread (support/blas_threads.py)
        return loaded


def _route_label(model: str) -> str:
    path = Path(model).expanduser()
    return path.name if path.is_dir() else model


class WhisperRoute:
    """faster-whisper as an :class:`~pytest_ttsbench.asr.base.AsrRoute`.

    ``model`` is a name (``tiny.en``, ``base``…), a CTranslate2 folder, or ``auto`` (tiny.en
    for English items when installed, base otherwise; the model used is in the details).

    Two defaults differ from faster-whisper's, both so that a verdict is reproducible:
    ``temperatures`` is ``(0.0,)`` (faster-whisper falls back to sampling at rising
    temperatures, which gives a different transcript each run and decodes a looping window up
    to six times), and ``no_speech_threshold`` is None (a clip reaching ASR already passed the
    silence check, so Whisper must not drop it as "no speech": an empty transcript of audible
    synthesis is a result worth keeping).
    """

    def __init__(
        self,
        model: str = AUTO,
        device: str = "cpu",
        compute_type: str = "int8",
        beam_size: int = 5,
        cpu_threads: int = 0,
        temperatures: tuple[float, ...] = (0.0,),
        no_speech_threshold: float | None = None,
        batch_size: int | str = BATCH_AUTO,
        batch_items: int | str = BATCH_AUTO,
    ) -> None:
        self.model = model
        self.device = device
        self.compute_type = compute_type
        self.beam_size = beam_size
        self.cpu_threads = cpu_threads
        self.temperatures = tuple(temperatures)
        self.no_speech_threshold = no_speech_threshold
        mode = resolve_batching(batch_size, batch_items, device)
        self.batch_size = mode.windows  # a clip's windows decoded together (BatchedInferencePipeline)
        #: clips of different items decoded together (transcribe_together; the pipeline gathers them)
        self.items_batch = mode.items
        self.batching = mode.mode
        self.name = f"whisper:{_route_label(model)}"
        self._identities: dict[str, dict[str, object]] = {}

    def model_name_for(self, language: str) -> str:
        """The model name or path this route uses for items in ``language``."""
        return resolve_auto(language) if self.model == AUTO else self.model

    def load(self, language: str = "en") -> _Loaded:
        """Resolve and load the model for ``language`` now (the first transcription does it otherwise)."""
        try:
            path = resolve_model(self.model_name_for(language))
        except ModelNotFound as exc:
            raise AsrError(str(exc)) from exc
        return load_model(path, self.device, self.compute_type, self.cpu_threads)

    def cache_identity(self, language: str) -> dict[str, object]:
        """Everything besides the audio that decides this route's transcript of a clip in ``language``
        (the transcript cache's key): the weights by content, the decoding settings and bounds, the
        batching mode, and the faster-whisper and CTranslate2 versions. Worked out once per
        language: every clip's transcript key asks for it, and a warm rerun asks for nothing else."""
        known = self._identities.get(language)
        if known is not None:  # the name is the one thing set after construction (asr/registry.py)
            return {**known, "name": self.name}
        try:
            path = resolve_model(self.model_name_for(language))  # located, not loaded: a warm rerun loads nothing
        except ModelNotFound as exc:
            raise AsrError(str(exc)) from exc
        identity: dict[str, object] = {
            "type": "whisper",
            "name": self.name,
            "weights_sha256": weights_sha256(path),
            "language": whisper_language(language),
            "beam_size": self.beam_size,
            "compute_type": self.compute_type,
            "device": self.device,
            "temperatures": list(self.temperatures),
            "no_speech_threshold": self.no_speech_threshold,
            "batching": self.batching,
            "bounds": [TOKENS_PER_SECOND, TOKENS_BASE, MAX_WINDOW_TOKENS, COMPRESSION_RATIO_LIMIT],
            "faster_whisper": installed_version("faster-whisper"),
            "ctranslate2": installed_version("ctranslate2"),
        }
        self._identities[language] = identity
        return dict(identity)

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription:
        loaded, code = self._model_for(language)
        clip = prepare_clip(audio)
        started = time.perf_counter()
        try:
            segments = self._segments(loaded.model, clip, code)
            reading = read_bounded(
                segments, clip.duration, clip.window_budget, clip.clip_budget, _timestamp_begin(loaded)
            )
        except (RuntimeError, ValueError) as exc:
            raise AsrError(f"faster-whisper failed: {exc}") from exc
        return self._transcription(loaded, language, clip, reading, time.perf_counter() - started)

    def transcribe_together(self, audios: Sequence[DecodedAudio], language: str) -> list[Transcription | AsrError]:
        """Clips of several items in ``language``, their first windows decoded in one call, in order.

        Each clip gets its own outcome: one that cannot be decoded gets its :class:`AsrError` and
        the others their transcripts; should the batched call itself fail, every clip is decoded
        alone, so a bad clip fails only itself. A wrong language fails them all (they share it).
        """
        from pytest_ttsbench.asr.whisper_batch import decode_together

        loaded, code = self._model_for(language)
        prepared = [_prepared_or_error(audio) for audio in audios]
        clips = [clip for clip in prepared if isinstance(clip, ClipToDecode)]
        if not clips:  # every clip failed before the decoder
            return [clip for clip in prepared if isinstance(clip, AsrError)]
        started = time.perf_counter()
        try:
            decodings = [self._decoding(code, clip) for clip in clips]
            streams = decode_together(loaded.model, [clip.samples for clip in clips], decodings)
        except (RuntimeError, ValueError):
            return [self._transcribed_alone(audio, language) for audio in audios]
        heard: list[Transcription | AsrError] = []
        for clip, stream in zip(clips, streams, strict=True):
            try:  # a clip's later windows are decoded here, lazily, as the sequential mode does
                reading = read_bounded(
                    stream, clip.duration, clip.window_budget, clip.clip_budget, _timestamp_begin(loaded)
                )
            except (RuntimeError, ValueError) as exc:
                heard.append(AsrError(f"faster-whisper failed: {exc}"))
                continue
            heard.append(self._transcription(loaded, language, clip, reading, 0.0, together=len(clips)))
        share = (time.perf_counter() - started) / max(1, len(clips))  # the batch's time, shared out
        done = iter(replace(h, seconds=share) if isinstance(h, Transcription) else h for h in heard)
        return [next(done) if isinstance(clip, ClipToDecode) else clip for clip in prepared]

    def _transcribed_alone(self, audio: DecodedAudio, language: str) -> Transcription | AsrError:
        try:
            return self.transcribe(audio, language)
        except AsrError as exc:
            return exc

    def _model_for(self, language: str) -> tuple[_Loaded, str]:
        """The loaded model for ``language`` and Whisper's code for it; AsrError when it cannot hear it."""
        code = whisper_language(language)
        loaded = self.load(language)
        model = loaded.model
        if code not in model.supported_languages:
            if not model.model.is_multilingual:
                raise AsrError(
                    f"Whisper model {self.model_name_for(language)!r} is English-only and the item is in "
                    f"{language!r}: use a multilingual model (e.g. asr model 'base' or 'auto')"
                )
            raise AsrError(f"Whisper does not know language {language!r} (code {code!r})")
        return loaded, code

    def _decoding(self, code: str, clip: ClipToDecode) -> dict[str, Any]:
        """faster-whisper's ``transcribe`` settings for one clip: forced language, this route's beam
        and temperatures, no VAD, no conditioning on earlier text, the clip's token budget."""
        return {
            "language": code,
            "beam_size": self.beam_size,
            "condition_on_previous_text": False,
            "vad_filter": False,
            "max_new_tokens": decoder_max_new_tokens(clip.window_budget),
            "temperature": list(self.temperatures),
            "no_speech_threshold": self.no_speech_threshold,
        }

    def _segments(self, model: Any, clip: ClipToDecode, code: str) -> Iterable[SegmentLike]:
        """The clip's segments, lazily: sequential, or its windows batched (BatchedInferencePipeline)."""
        decoding = self._decoding(code, clip)
        if self.batch_size <= 1:
            segments, _ = model.transcribe(clip.samples, **decoding)
            return segments
        from faster_whisper import BatchedInferencePipeline
        from faster_whisper.tokenizer import Tokenizer

        # The halving rule above counts the prompt, which here ends in <|notimestamps|>:
        # the prompt's length comes off, so a window's budget is the same in both modes.
        sot = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, "transcribe", code).sot_sequence
        decoding["max_new_tokens"] -= len(sot) + 1
        segments, _ = BatchedInferencePipeline(model).transcribe(
            clip.samples, batch_size=self.batch_size, clip_timestamps=clip_windows(clip.duration), **decoding
        )
        return segments

    def _transcription(
        self,
        loaded: _Loaded,
        language: str,
        clip: ClipToDecode,
        reading: BoundedReading,
        seconds: float,
        together: int = 1,
    ) -> Transcription:
        """The transcript of a bounded reading, with what decoded it and the facts of each segment."""
        timestamp_begin = _timestamp_begin(loaded)
        text = "".join(s.text for s in reading.segments).strip()
        flags = list(reading.flags)
        tokens = [t for s in reading.segments for t in s.tokens if t < timestamp_begin]
        details: dict[str, object] = {
            "model": self.model_name_for(language),
            "model_path": str(loaded.path),
            "model_load_seconds": round(loaded.load_seconds, 3),
            "device": self.device,
            "compute_type": self.compute_type,
            "beam_size": self.beam_size,
            "batching": self.batching,
            "audio_seconds": round(clip.duration, 3),
            "window_token_budget": clip.window_budget,
            "clip_token_budget": clip.clip_budget,
            "tokens": len(tokens),
            "segments": [_segment_facts(s) for s in reading.segments],
        }
        if together > 1:
            details["decoded_with_clips"] = together  # this clip's first window shared a decoder call
        if reading.reasons:
            details["bounded_because"] = reading.reasons
        loop = find_repetition(tokens)
        if loop is not None:
            if FLAG_REPETITION not in flags:
                flags.append(FLAG_REPETITION)
            ngram = tokens[loop.start : loop.start + loop.size]
            details["repetition"] = {"ngram": loaded.model.hf_tokenizer.decode(ngram), "repeats": loop.repeats}
        language_code = whisper_language(language)  # what faster-whisper reports for a forced language
        return Transcription(text=text, seconds=seconds, flags=tuple(flags), language=language_code, details=details)


@dataclass(frozen=True)
class ClipToDecode:
    """One clip as the decoder takes it: 16 kHz float32 samples and the token budgets its length gives."""

    samples: np.ndarray
    duration: float
    window_budget: int
    clip_budget: int


def prepare_clip(audio: DecodedAudio) -> ClipToDecode:
    """The clip at Whisper's rate with its budgets; AsrError for an empty one."""
    samples = audio.samples
    if audio.sample_rate != ASR_SAMPLE_RATE:
        samples = resample(samples, audio.sample_rate, ASR_SAMPLE_RATE)
    samples = np.ascontiguousarray(samples, dtype=np.float32)
    if samples.size == 0:
        raise AsrError("empty clip: nothing to transcribe")
    duration = samples.size / ASR_SAMPLE_RATE
    return ClipToDecode(samples, duration, window_token_budget(duration), clip_token_budget(duration))


def _prepared_or_error(audio: DecodedAudio) -> ClipToDecode | AsrError:
    try:
        return prepare_clip(audio)
    except AsrError as exc:
        return exc


def _timestamp_begin(loaded: _Loaded) -> int:
    """Token ids from here up are timestamps (faster-whisper's own rule)."""
    return int(loaded.model.hf_tokenizer.token_to_id("<|notimestamps|>")) + 1


def _segment_facts(segment: Any) -> dict[str, object]:
    """What a row keeps of one faster-whisper segment."""
    return {
        "start": round(segment.start, 2),
        "end": round(segment.end, 2),
        "text": segment.text,
        "avg_logprob": round(segment.avg_logprob, 4),
        "no_speech_prob": round(segment.no_speech_prob, 4),
        "compression_ratio": round(segment.compression_ratio, 3),
        "temperature": segment.temperature,
    }
