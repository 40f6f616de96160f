"""Real clips for the quality tests (`from quality_clips import …`): eSpeak NG and piper, 16 kHz mono."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.config import BUILTIN_PROFILES, EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.registry import create_engine

SENTENCES = (
    "The new bridge over the river is scheduled to open in 2026.",
    "Flight 237 leaves from gate 14 at a quarter past six.",
    "She paid 45 dollars and 99 cents for the blue jacket.",
)


def synthesize(engine_name: str, texts: tuple[str, ...] = SENTENCES) -> list[np.ndarray]:
    spec = dict(BUILTIN_PROFILES[engine_name])
    profile = EngineProfile(name=engine_name, type=spec.pop("type"), voice=spec.pop("voice", None), options=spec)
    engine = create_engine(profile)
    try:
        return [
            decode_audio(engine.synthesize(SynthesisRequest(t, "en", profile.voice_for("en"), "q")).audio).samples
            for t in texts
        ]
    finally:
        engine.close()


def write_clip_wav(path: Path, samples: np.ndarray, sample_rate: int = 16_000) -> Path:
    """A 16 kHz mono float clip kept as a 16-bit WAV file, as a run keeps its clips."""
    path.write_bytes(pcm16_wav((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes(), sample_rate))
    return path
