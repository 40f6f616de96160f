"""Speaker similarity with Resemblyzer, where the [similarity] extra is installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from quality_clips import synthesize, write_clip_wav

pytest.importorskip(
    "resemblyzer",
    reason='speaker similarity needs the [similarity] extra (torch): pip install "pytest-ttsbench[similarity]"',
)

from pytest_ttsbench.quality.meter import ClipToMeasure, QualityMeter
from pytest_ttsbench.quality.similarity import pairwise_mean, shared_encoder


def test_same_speaker_is_more_similar_than_another(tmp_path: Path, espeak_clips, piper_clips) -> None:
    # The reference is eSpeak saying other sentences; an eSpeak clip must sit closer to it than piper's voice.
    other_sentences = np.concatenate(synthesize("espeak", ("Good morning to you all.",)))
    reference = write_clip_wav(tmp_path / "ref.wav", other_sentences)
    meter = QualityMeter(("similarity",))
    same = meter.measure(ClipToMeasure(espeak_clips[0], "x", reference))["speaker_similarity"]
    other = meter.measure(ClipToMeasure(piper_clips[0], "x", reference))["speaker_similarity"]
    assert same is not None and other is not None
    assert same > other + 0.05
    assert "resemblyzer" in meter.provenance()["similarity"]
    # no reference_audio: nothing to compare with
    assert meter.measure(ClipToMeasure(espeak_clips[0], "x"))["speaker_similarity"] is None


def test_between_generations_same_voice_beats_mixed(espeak_clips, piper_clips) -> None:
    encoder = shared_encoder()
    espeak = [encoder.embed(c) for c in espeak_clips]
    mixed = [espeak[0], encoder.embed(piper_clips[0])]
    assert pairwise_mean(espeak) > pairwise_mean(mixed)
