"""DNSMOS on real eSpeak NG and piper clips (extra [quality], pulled in by the test extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("speechmos", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')

from pytest_ttsbench.quality.dnsmos import HOP, Dnsmos, _windows, p808_features, shared_dnsmos
from pytest_ttsbench.quality.meter import ClipToMeasure, QualityMeter


@pytest.fixture(scope="module")
def dnsmos() -> Dnsmos:
    return shared_dnsmos()


def mean_of(figures: list[dict[str, float | None]], name: str) -> float:
    return float(np.mean([f[name] for f in figures]))


def test_neural_voice_scores_higher_overall(dnsmos: Dnsmos, espeak_clips, piper_clips) -> None:
    espeak = dnsmos.score(espeak_clips)
    piper = dnsmos.score(piper_clips)
    for figures in espeak + piper:
        assert all(1.0 <= figures[name] <= 5.0 for name in ("dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "dnsmos_p808"))
    assert mean_of(piper, "dnsmos_ovrl") > mean_of(espeak, "dnsmos_ovrl") + 0.3
    assert mean_of(piper, "dnsmos_p808") > mean_of(espeak, "dnsmos_p808")


def test_white_noise_twin_scores_lower_background(dnsmos: Dnsmos, piper_clips) -> None:
    rng = np.random.default_rng(7)
    noisy = [np.clip(c + rng.normal(0, 0.02, c.size), -1, 1).astype(np.float32) for c in piper_clips]
    clean_scores, noisy_scores = dnsmos.score(piper_clips), dnsmos.score(noisy)
    for clean, hissing in zip(clean_scores, noisy_scores, strict=True):
        assert hissing["dnsmos_bak"] < clean["dnsmos_bak"] - 0.5
        assert hissing["dnsmos_ovrl"] < clean["dnsmos_ovrl"]


def test_batch_matches_one_clip_at_a_time(dnsmos: Dnsmos, espeak_clips, piper_clips) -> None:
    # A long clip (several 9 s windows) and short ones in one batch: each clip keeps its own figures.
    long_clip = np.concatenate([*piper_clips, espeak_clips[0]])
    clips = [espeak_clips[0], long_clip, piper_clips[1]]
    batched = dnsmos.score(clips)
    for clip, figures in zip(clips, batched, strict=True):
        assert dnsmos.score([clip])[0] == pytest.approx(figures, abs=1e-3)


def test_samples_past_full_scale_are_scored_not_rejected(dnsmos: Dnsmos, piper_clips) -> None:
    # speechmos refuses samples outside [-1, 1]; resampled clips overshoot, so they are clipped first.
    hot = piper_clips[0] * 1.05
    assert np.abs(hot).max() > 1
    assert dnsmos.score([hot])[0]["dnsmos_ovrl"] is not None
    assert dnsmos.score([np.zeros(0, np.float32)])[0] == dict.fromkeys(
        ("dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "dnsmos_p808")
    )


def test_meter_records_models_and_versions(espeak_clips) -> None:
    meter = QualityMeter(("signal", "dnsmos"))
    figures = meter.measure(ClipToMeasure(espeak_clips[0], "The new bridge"))
    assert list(figures)[:4] == ["dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "dnsmos_p808"]
    assert "clipping_ratio" in figures and "speaker_similarity" not in figures
    provenance = meter.provenance()
    assert provenance["dnsmos"].startswith("speechmos ") and "sig_bak_ovr.onnx sha256:" in provenance["dnsmos"]
    assert "pyloudnorm" in provenance["signal"]


def test_log_mel_features_equal_librosas(espeak_clips, piper_clips) -> None:
    # The numpy features must be what speechmos computes with librosa, window for window.
    reference = pytest.importorskip("speechmos.dnsmos", reason="the reference features need librosa")
    noisy = np.random.default_rng(3).normal(0, 0.3, 40_000).clip(-1, 1).astype(np.float32)
    quiet = (piper_clips[0] * 1e-4).astype(np.float32)
    long_clip = np.concatenate([*piper_clips, *espeak_clips])
    for clip in (espeak_clips[0], piper_clips[1], noisy, quiet, long_clip):
        for window in _windows(clip)[:3]:
            expected = reference.DNSMOS.audio_melspec(None, audio=window[:-HOP])
            ours = p808_features(window[:-HOP])
            assert ours.shape == expected.shape
            np.testing.assert_allclose(ours, expected, atol=1e-5)


def test_scores_match_the_reference_implementation(dnsmos: Dnsmos, espeak_clips, piper_clips) -> None:
    reference = pytest.importorskip("speechmos.dnsmos", reason="the reference implementation needs librosa")
    clips = [espeak_clips[0], piper_clips[0], np.concatenate([*piper_clips, espeak_clips[1]])]
    ours = dnsmos.score(clips)
    for clip, figures in zip(clips, ours, strict=True):
        expected = reference.run(np.clip(clip, -1, 1).astype(np.float32), 16_000)
        for name, key in (("dnsmos_ovrl", "ovrl_mos"), ("dnsmos_sig", "sig_mos"), ("dnsmos_bak", "bak_mos")):
            assert figures[name] == pytest.approx(float(expected[key]), abs=0.01)
        assert figures["dnsmos_p808"] == pytest.approx(float(expected["p808_mos"]), abs=0.01)


def test_background_measure_gives_the_same_figures(espeak_clips, piper_clips) -> None:
    meter = QualityMeter(("signal", "dnsmos"))
    clips = [ClipToMeasure(espeak_clips[0], "The new bridge"), ClipToMeasure(piper_clips[1], "Call me at nine")]
    pending = [meter.measure_later(clip) for clip in clips]
    assert [p.result(timeout=120) for p in pending] == [meter.measure(clip) for clip in clips]


def test_windows_follow_the_reference_cutting() -> None:
    # 1.5 s is doubled to 12 s (three 1 s hops), not tiled to 10.5 s (two).
    assert len(_windows(np.full(24_000, 0.1, np.float32))) == 3
    # 30 s: hops 0..20, of which the reference's truncated ends leave the 8th to 21st one sample short.
    windows = _windows(np.full(30 * 16_000, 0.1, np.float32))
    assert len(windows) == 7 and all(w.size == 144_160 for w in windows)
    assert _windows(np.zeros(0, np.float32)) == []
