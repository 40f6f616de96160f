"""Speaker similarity with Resemblyzer's pretrained GE2E encoder (extra ``[similarity]``, needs torch).

Each clip becomes a 256-dimensional utterance embedding (unit length), and similarity is the
cosine of two embeddings: against the profile's ``reference_audio`` per clip, and between the
generations of one item under ``--tts-repeats``. The encoder ships inside the wheel, so nothing
is downloaded. It tells whether two clips sound like the same voice; it does not tell whether
either sounds good.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pytest_ttsbench.audio.decoding import ASR_SAMPLE_RATE, decode_audio
from pytest_ttsbench.quality.measures import QualityUnavailable, install_hint

if TYPE_CHECKING:  # the summaries behind these import scipy.stats, which measuring a clip never needs
    from pytest_ttsbench.quality.repeats import GenerationSpread
    from pytest_ttsbench.run_model.results import ItemResult


class SpeakerEncoder:
    """Resemblyzer's voice encoder on CPU."""

    def __init__(self) -> None:
        try:
            with warnings.catch_warnings():  # webrtcvad imports the deprecated pkg_resources
                warnings.simplefilter("ignore")
                import resemblyzer
        except ImportError as exc:
            raise QualityUnavailable(
                f"--tts-quality similarity needs Resemblyzer and torch: {install_hint('similarity')}"
            ) from exc
        self._resemblyzer = resemblyzer
        self._encoder = resemblyzer.VoiceEncoder("cpu", verbose=False)
        self.provenance = f"resemblyzer {version('resemblyzer')} VoiceEncoder (GE2E, 256-d); torch {version('torch')}"

    def embed(self, samples: np.ndarray, sample_rate: int = ASR_SAMPLE_RATE) -> np.ndarray | None:
        """The utterance embedding of a mono clip; None when no speech is left after Resemblyzer's trimming."""
        if samples.size == 0:
            return None
        wav = self._resemblyzer.preprocess_wav(samples.astype(np.float32), source_sr=sample_rate)
        if wav.size < sample_rate // 4:
            return None
        return np.asarray(self._encoder.embed_utterance(wav), dtype=np.float64)

    def embed_file(self, path: Path) -> np.ndarray | None:
        return self.embed(decode_audio(path.read_bytes()).samples)


def cosine(first: np.ndarray | None, second: np.ndarray | None) -> float | None:
    if first is None or second is None:
        return None
    norm = float(np.linalg.norm(first) * np.linalg.norm(second))
    return round(float(np.dot(first, second)) / norm, 4) if norm else None


def pairwise_mean(embeddings: list[np.ndarray | None]) -> float | None:
    """Mean cosine over every pair of embeddings (generations of one item); None with fewer than two."""
    present = [e for e in embeddings if e is not None]
    pairs = [cosine(a, b) for i, a in enumerate(present) for b in present[i + 1 :]]
    values = [p for p in pairs if p is not None]
    return round(float(np.mean(values)), 4) if values else None


@cache
def shared_encoder() -> SpeakerEncoder:
    return SpeakerEncoder()


def between_generations(spreads: Sequence[GenerationSpread], results: Iterable[ItemResult]) -> list[GenerationSpread]:
    """``spreads`` with the mean similarity between each item's generations, embedded from the kept clips."""
    encoder = shared_encoder()
    clips: dict[tuple[str, str], list[Path]] = {}
    for row in results:
        if row.audio_path and Path(row.audio_path).is_file():
            clips.setdefault((row.engine, row.key), []).append(Path(row.audio_path))
    return [
        replace(s, speaker_similarity=pairwise_mean([encoder.embed_file(p) for p in clips.get((s.engine, s.key), [])]))
        for s in spreads
    ]
