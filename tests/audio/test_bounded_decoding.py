"""Decoding stops at max_clip_seconds while it decodes, whatever the container says.

A few kilobytes of FLAC silence decode to twenty minutes (77 MB of samples at 16 kHz); a WAV
with a streaming writer's placeholder sizes says nothing of its length. Each is refused once the
frames decoded pass the limit, and the memory taken stays near what the limit allows.
"""

from __future__ import annotations

import io
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest
import soundfile as sf

from pytest_ttsbench.audio.decoding import ClipTooLong, decode_audio, is_playable

LONG_SECONDS = 20 * 60
RATE = 8_000
LIMIT = 30.0
# The whole clip at the decoder's 16 kHz float32 is LONG_SECONDS * 16000 * 4 = 77 MB; the limit's
# share is 2 MB. Anything below this bound was not decoded whole.
PEAK_BOUND = 20 * 1024 * 1024


def _silence(format: str, subtype: str, seconds: int = LONG_SECONDS) -> bytes:
    buffer = io.BytesIO()
    block = np.zeros(RATE * 60, dtype=np.float32)
    with sf.SoundFile(buffer, "w", samplerate=RATE, channels=1, format=format, subtype=subtype) as out:
        for _ in range(seconds // 60):
            out.write(block)
    return buffer.getvalue()


def flac() -> bytes:
    return _silence("FLAC", "PCM_16")


def wav_with_placeholder_sizes() -> bytes:
    data = bytearray(_silence("WAV", "PCM_U8"))
    data[4:8] = (0xFFFFFFFF).to_bytes(4, "little")  # RIFF size: "unknown", as streaming writers put it
    data[40:44] = (0xFFFFFFFF).to_bytes(4, "little")  # data size likewise
    return bytes(data)


CLIPS: dict[str, Callable[[], bytes]] = {"flac": flac, "wav-placeholder-sizes": wav_with_placeholder_sizes}


@pytest.mark.parametrize("make", CLIPS.values(), ids=CLIPS.keys())
def test_a_long_clip_is_refused_while_decoding_with_bounded_memory(make: Callable[[], bytes]) -> None:
    data = make()
    tracemalloc.start()
    try:
        with pytest.raises(ClipTooLong, match=r"more than 30 s .*max_clip_seconds"):
            decode_audio(data, max_seconds=LIMIT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BOUND


def test_flac_names_what_its_header_claims() -> None:
    with pytest.raises(ClipTooLong, match=r"its header claims 1,200 s"):
        decode_audio(flac(), max_seconds=LIMIT)


def test_headerless_pcm_over_the_limit_is_refused_before_decoding() -> None:
    pcm = bytes(2 * 16_000 * 31)
    with pytest.raises(ClipTooLong, match="max_clip_seconds"):
        decode_audio(pcm, pcm_sample_rate=16_000, max_seconds=LIMIT)
    assert decode_audio(pcm, pcm_sample_rate=16_000, max_seconds=31.0).seconds == pytest.approx(31.0)


def test_a_clip_within_the_limit_decodes_whole() -> None:
    short = _silence("FLAC", "PCM_16", seconds=60)
    assert decode_audio(short, max_seconds=61.0).seconds == pytest.approx(60.0, abs=0.01)


def test_the_default_limit_holds_for_every_caller() -> None:
    """No caller can forget the limit: without max_seconds the default (600 s) applies."""
    with pytest.raises(ClipTooLong, match="more than 600 s"):
        decode_audio(flac())


def test_a_long_stream_is_playable_from_its_first_frame() -> None:
    assert is_playable(flac())
