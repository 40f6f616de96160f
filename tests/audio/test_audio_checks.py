"""Decoding every kind of body an engine returns, and the checks each clip must pass."""

from __future__ import annotations

import io

import av
import numpy as np
import pytest

from pytest_ttsbench.audio.decoding import AudioDecodeError, AudioPolicy, check_audio, decode_audio, decode_pcm16
from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.support.text import safe_name


def tone(seconds: float, rate: int = 22_050, amplitude: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def wav_bytes(samples: np.ndarray, rate: int = 22_050, channels: int = 1) -> bytes:
    pcm = (np.repeat(samples[:, None], channels, axis=1) * 32767).astype("<i2").tobytes()
    return pcm16_wav(pcm, rate, channels)


def mp3_bytes(samples: np.ndarray, rate: int = 22_050) -> bytes:
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp3") as container:
        stream = container.add_stream("mp3", rate=rate)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="flt", layout="mono")
        frame.sample_rate = rate
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return buffer.getvalue()


def test_wav_is_resampled_to_16k_mono() -> None:
    decoded = decode_audio(wav_bytes(tone(1.0), channels=2))
    assert decoded.sample_rate == 16_000
    assert decoded.source_sample_rate == 22_050
    assert decoded.source_channels == 2
    assert decoded.samples.ndim == 1
    assert decoded.seconds == pytest.approx(1.0, abs=0.02)


def test_mp3_decodes() -> None:
    decoded = decode_audio(mp3_bytes(tone(1.0)))
    assert decoded.source_format == "mp3"
    assert decoded.seconds == pytest.approx(1.0, abs=0.1)
    assert float(np.abs(decoded.samples).max()) > 0.1


def test_headerless_pcm_needs_its_rate() -> None:
    pcm = (tone(0.5, rate=24_000) * 32767).astype("<i2").tobytes()
    decoded = decode_audio(pcm, pcm_sample_rate=24_000)
    assert decoded.seconds == pytest.approx(0.5, abs=0.01)
    assert decode_pcm16(pcm[:-1], 24_000).source_format == "pcm_s16le"  # odd byte count tolerated


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty body"),
        (b"<!doctype html><html><title>Bad gateway</title></html>", "HTML/XML document"),
        (b'{"error": {"message": "quota"}}', "JSON document"),
    ],
)
def test_bodies_that_are_not_audio(body: bytes, message: str) -> None:
    with pytest.raises(AudioDecodeError, match=message):
        decode_audio(body)


def test_truncated_wav_still_decodes_what_arrived() -> None:
    body = wav_bytes(tone(1.0))
    decoded = decode_audio(body[: len(body) // 2])
    assert decoded.seconds == pytest.approx(0.5, abs=0.05)


def test_a_good_clip_passes() -> None:
    check = check_audio(decode_audio(wav_bytes(tone(2.0))), "The plant opened in 2026.")
    assert check.ok, check.problems


def test_silent_clip_fails() -> None:
    check = check_audio(decode_audio(wav_bytes(np.zeros(22_050, np.float32))), "Hello there.")
    assert any("silent" in p for p in check.problems)


def test_clip_too_short_for_its_text_fails() -> None:
    # The published case: 0.19 s of audio where the spelled number alone took 1.41 s.
    text = "The price rose to two thousand and twenty six dollars last spring."
    check = check_audio(decode_audio(wav_bytes(tone(0.19))), text)
    assert any("too short" in p for p in check.problems)
    # ... while a normal reading of the same text passes
    assert check_audio(decode_audio(wav_bytes(tone(3.5))), text).ok


def test_clip_too_long_for_its_text_fails() -> None:
    check = check_audio(decode_audio(wav_bytes(tone(40.0, amplitude=0.2))), "Hi.", AudioPolicy())
    assert any("too long" in p for p in check.problems)


@pytest.mark.parametrize("item_id", ["../../etc/passwd", "/abs/path", "..", ".hidden", "a/b\\c", "名字", "x" * 300])
def test_audio_names_cannot_escape(item_id: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = safe_name(item_id)
    assert "/" not in name and "\\" not in name and not name.startswith(".")
    assert (tmp_path / name).resolve().parent == tmp_path.resolve()


def test_distinct_ids_keep_distinct_names() -> None:
    assert safe_name("a/b") != safe_name("a_b")
    assert safe_name("year-2026") == "year-2026"
