"""The one WAV writer: 16-bit PCM in a RIFF container, with the standard library's ``wave``.

Kept apart from :mod:`pytest_ttsbench.audio.decoding` so that engines can write WAV without loading the
decoder stack (PyAV, numpy).
"""

from __future__ import annotations

import io
import wave


def pcm16_wav(pcm: bytes, sample_rate: int, channels: int = 1) -> bytes:
    """Wrap little-endian 16-bit PCM frames in a WAV container."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm)
    return buffer.getvalue()
