"""Signal measures on real eSpeak NG clips and on copies changed in one known way."""

from __future__ import annotations

import numpy as np
import pytest
from quality_clips import SENTENCES

from pytest_ttsbench.audio.decoding import ASR_SAMPLE_RATE
from pytest_ttsbench.quality.waveform import signal_measures, speech_span

RATE = ASR_SAMPLE_RATE


def measures(samples: np.ndarray, text: str = SENTENCES[0]) -> dict[str, float | None]:
    return signal_measures(samples.astype(np.float32), RATE, text)


def test_clean_clip_figures_are_plausible(espeak_clips: list[np.ndarray]) -> None:
    found = measures(espeak_clips[0])
    assert found["clipping_ratio"] == 0.0
    assert -12 < found["peak_dbfs"] < 0
    assert -35 < found["loudness_lufs"] < -10
    assert found["leading_silence_s"] < 0.2 and found["trailing_silence_s"] < 0.3
    # eSpeak's default 175 words a minute: roughly 10-18 letters and digits a second
    assert 8 < found["speaking_rate"] < 20


def test_clipped_copy_raises_clipping_ratio(espeak_clips: list[np.ndarray]) -> None:
    clean = espeak_clips[1]
    clipped = np.clip(clean * 6.0, -1.0, 1.0)
    before, after = measures(clean, SENTENCES[1]), measures(clipped, SENTENCES[1])
    assert after["clipping_ratio"] > 0.01 > before["clipping_ratio"]
    assert after["peak_dbfs"] == pytest.approx(0.0, abs=0.01)


def test_padded_copy_raises_trailing_and_leading_silence(espeak_clips: list[np.ndarray]) -> None:
    clean = espeak_clips[2]
    padded = np.concatenate([np.zeros(RATE // 2), clean, np.zeros(2 * RATE)])
    before, after = measures(clean, SENTENCES[2]), measures(padded, SENTENCES[2])
    assert after["trailing_silence_s"] == pytest.approx(before["trailing_silence_s"] + 2.0, abs=0.03)
    assert after["leading_silence_s"] == pytest.approx(before["leading_silence_s"] + 0.5, abs=0.03)
    # padding outside the speech changes neither its pace nor its pauses
    assert after["speaking_rate"] == pytest.approx(before["speaking_rate"], rel=0.02)
    assert after["longest_pause_s"] == pytest.approx(before["longest_pause_s"], abs=0.02)


def test_inserted_pause_and_slower_speech(espeak_clips: list[np.ndarray]) -> None:
    first, second = espeak_clips[0], espeak_clips[1]
    joined = np.concatenate([first, np.zeros(int(1.5 * RATE)), second])
    found = measures(joined, SENTENCES[0] + " " + SENTENCES[1])
    assert found["longest_pause_s"] >= 1.5
    # the same text over twice the time: half the rate
    stretched = np.repeat(first, 2)
    assert measures(stretched)["speaking_rate"] == pytest.approx(measures(first)["speaking_rate"] / 2, rel=0.05)


def test_gain_moves_loudness_by_the_same_decibels(espeak_clips: list[np.ndarray]) -> None:
    clean = espeak_clips[0]
    quieter = clean * 10 ** (-6 / 20)
    assert measures(quieter)["loudness_lufs"] == pytest.approx(measures(clean)["loudness_lufs"] - 6, abs=0.05)
    assert measures(quieter)["peak_dbfs"] == pytest.approx(measures(clean)["peak_dbfs"] - 6, abs=0.05)


def test_silence_and_empty_clips_have_no_speech_figures() -> None:
    silent = measures(np.zeros(RATE))
    assert silent["clipping_ratio"] == 0.0
    assert silent["peak_dbfs"] is None and silent["loudness_lufs"] is None
    assert silent["speaking_rate"] is None and silent["trailing_silence_s"] is None
    empty = measures(np.zeros(0))
    assert set(empty.values()) == {None}
    assert speech_span(np.zeros(10), RATE) is None


def test_hiss_alone_is_not_speech() -> None:
    # Low-level noise below the absolute floor holds no speech, whatever its loudest frame.
    hiss = np.random.default_rng(3).normal(0, 10 ** (-70 / 20), RATE).astype(np.float32)
    assert speech_span(hiss, RATE) is None
