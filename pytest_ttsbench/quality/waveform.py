"""Signal measures of one clip: clipping, peak, loudness, silences and pace. numpy and pyloudnorm only.

Speech and silence are told apart by the RMS of 20 ms frames: a frame is speech when it is
within ``SPEECH_RANGE_DB`` of the clip's loudest frame and above ``SILENCE_FLOOR_DBFS``. Relative
to the loudest frame because engines differ by 20 dB in level; with an absolute floor because a
clip of pure hiss has a loudest frame too. The figures are measured on the 16 kHz mono samples
the ASR hears, so a resampled clip that touched full scale may read slightly below 1.0: the
clipping threshold is therefore ``FULL_SCALE`` (0.99), not exactly 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pytest_ttsbench.audio.decoding import spoken_units

FULL_SCALE = 0.99
FRAME_S = 0.02
SPEECH_RANGE_DB = 40.0
SILENCE_FLOOR_DBFS = -55.0
#: BS.1770 gates over 400 ms blocks: shorter clips have no integrated loudness.
MIN_LOUDNESS_S = 0.4


@dataclass(frozen=True)
class SpeechSpan:
    """Where speech starts and ends in a clip, and its longest inner silence, in seconds."""

    start_s: float
    end_s: float
    longest_pause_s: float


def _db(value: float) -> float:
    return 20.0 * math.log10(value) if value > 0 else -math.inf


def speech_span(samples: np.ndarray, sample_rate: int) -> SpeechSpan | None:
    """The first and last speech frame and the longest run of silent frames between them; None for no speech."""
    frame = max(1, round(FRAME_S * sample_rate))
    count = len(samples) // frame
    if count == 0:
        return None
    frames = samples[: count * frame].astype(np.float64).reshape(count, frame)
    rms = np.sqrt(np.mean(np.square(frames), axis=1))
    loudest = float(rms.max())
    if loudest <= 0:
        return None
    threshold = max(loudest * 10 ** (-SPEECH_RANGE_DB / 20), 10 ** (SILENCE_FLOOR_DBFS / 20))
    voiced = np.flatnonzero(rms >= threshold)
    if voiced.size == 0:
        return None
    first, last = int(voiced[0]), int(voiced[-1])
    gaps = np.diff(voiced) - 1  # silent frames between consecutive speech frames
    longest = int(gaps.max()) if gaps.size else 0
    return SpeechSpan(first * frame / sample_rate, (last + 1) * frame / sample_rate, longest * frame / sample_rate)


def signal_measures(samples: np.ndarray, sample_rate: int, text: str) -> dict[str, float | None]:
    """Every ``signal`` measure of a mono float clip; a figure that does not exist for the clip is None."""
    seconds = len(samples) / sample_rate if sample_rate else 0.0
    if samples.size == 0:
        return dict.fromkeys(
            (
                "clipping_ratio",
                "peak_dbfs",
                "loudness_lufs",
                "leading_silence_s",
                "trailing_silence_s",
                "longest_pause_s",
                "speaking_rate",
            )
        )
    magnitude = np.abs(samples)
    peak = float(magnitude.max())
    figures: dict[str, float | None] = {
        "clipping_ratio": round(float(np.mean(magnitude >= FULL_SCALE)), 6),
        "peak_dbfs": None if peak == 0 else round(_db(peak), 2),
        "loudness_lufs": None,
    }
    if seconds >= MIN_LOUDNESS_S:
        # Imported here: pyloudnorm brings scipy.signal (about a second), which a run whose
        # figures all come from the cache never needs.
        import pyloudnorm

        lufs = pyloudnorm.Meter(sample_rate).integrated_loudness(samples.astype(np.float64))
        figures["loudness_lufs"] = round(float(lufs), 2) if math.isfinite(lufs) else None
    span = speech_span(samples, sample_rate)
    if span is None:
        figures.update(leading_silence_s=None, trailing_silence_s=None, longest_pause_s=None, speaking_rate=None)
        return figures
    speech_s = span.end_s - span.start_s
    units = spoken_units(text)
    figures.update(
        leading_silence_s=round(span.start_s, 3),
        trailing_silence_s=round(max(0.0, seconds - span.end_s), 3),
        longest_pause_s=round(span.longest_pause_s, 3),
        speaking_rate=round(units / speech_s, 2) if speech_s > 0 and units else None,
    )
    return figures
