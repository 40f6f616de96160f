"""A vendor voice that is not deterministic, for the OpenAI-compatible fake (``FakeOpenAI(speak=...)``).

Most neural TTS services return a different clip for the same request each time. This module
renders real speech with piper and varies it the way such services do:

* ``steady`` (the release that did not change): each clip at a random speed between 0.9× and
  1.1×, and one request in ten with a word left out (never a
  word holding a digit: the voice is flaky in its wording, not in the numbers it reads);
* ``degraded`` (a bad release): spoken 1.8× faster, under noise louder than the speech.

Rendering is the slow part on a small machine, so :class:`StochasticVoice` renders a pool of
variants per text and mode once and answers each request with a randomly drawn variant: two
identical requests still get different audio, and each rerun of a test draws afresh.
"""

from __future__ import annotations

import io
import random
import re
import wave
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.registry import create_engine

STEADY_SPEEDS = (0.9, 1.1)
DROP_WORD_CHANCE = 0.1
DEGRADED_SPEED = 1.8
DEGRADED_SNR_DB = -2.0


def piper_wav(text: str, speed: float) -> bytes:
    """Real speech from the packaged piper voice at ``speed`` times the voice's own pace.

    piper's own sampling noise stays off, so a seed fixes the repertoire; the variation is the
    speed, the dropped words and which variant answers.
    """
    engine = create_engine(EngineProfile(name="vendor-voice", type="piper", options={"length_scale": 1 / speed}))
    try:
        return engine.synthesize(SynthesisRequest(text=text, language="en")).audio
    finally:
        engine.close()


def add_noise(wav: bytes, snr_db: float, rng: np.random.Generator) -> bytes:
    """White noise at ``snr_db`` below (negative: above) the speech's RMS level."""
    with wave.open(io.BytesIO(wav)) as source:
        rate = source.getframerate()
        samples = np.frombuffer(source.readframes(source.getnframes()), "<i2").astype(np.float64)
    rms = float(np.sqrt(np.mean(samples**2))) or 1.0
    noisy = samples + rng.normal(0.0, rms * 10 ** (-snr_db / 20), samples.size)
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(rate)
        target.writeframes(np.clip(noisy, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


def drop_a_word(text: str, rng: random.Random) -> str:
    """The text with one word (one without a digit) left out, as a voice that swallows a word."""
    words = text.split()
    candidates = [i for i, word in enumerate(words) if not re.search(r"\d", word)]
    if len(candidates) < 2:
        return text
    del words[rng.choice(candidates)]
    return " ".join(words)


@dataclass
class StochasticVoice:
    """Answers ``speak(text)`` with a random pre-rendered variant of the text in the current ``mode``."""

    variants: int = 3
    mode: str = "steady"
    #: fixes the repertoire (the variants rendered); which variant answers a request is always random
    seed: int | None = None
    pools: dict[tuple[str, str], list[bytes]] = field(default_factory=dict)
    served: list[tuple[str, str, int]] = field(default_factory=list)  # (text, mode, variant) per request

    def __post_init__(self) -> None:
        self._rng = random.Random()

    def render(self, texts: Iterable[str], modes: Iterable[str] = ("steady", "dropped", "degraded")) -> StochasticVoice:
        for mode in modes:
            for text in texts:
                self._pool(text, mode)
        return self

    def _pool(self, text: str, mode: str) -> list[bytes]:
        """Variants of one text: ``steady`` (clean), ``dropped`` (a word left out) or ``degraded``."""
        key = (mode, text)
        if key not in self.pools:
            rng = random.Random(f"{self.seed}/{mode}/{text}" if self.seed is not None else None)
            noise = np.random.default_rng(rng.randrange(2**32))
            clips = []
            for _ in range(self.variants):
                if mode == "steady":
                    clips.append(piper_wav(text, rng.uniform(*STEADY_SPEEDS)))
                elif mode == "dropped":
                    clips.append(piper_wav(drop_a_word(text, rng), rng.uniform(*STEADY_SPEEDS)))
                elif mode == "degraded":
                    clips.append(add_noise(piper_wav(text, DEGRADED_SPEED), DEGRADED_SNR_DB, noise))
                else:
                    raise ValueError(f"unknown voice mode {mode!r}")
            self.pools[key] = clips
        return self.pools[key]

    def __call__(self, text: str) -> bytes:
        mode = self.mode
        if mode == "steady" and self._rng.random() < DROP_WORD_CHANCE:
            mode = "dropped"
        pool = self._pool(text, mode)
        index = self._rng.randrange(len(pool))
        self.served.append((text, mode, index))
        return pool[index]
