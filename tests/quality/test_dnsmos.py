"""DNSMOS on real eSpeak NG and piper clips (extra [quality], pulled in by the test extra)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("speechmos", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')

from processes import run

from pytest_ttsbench.quality import dnsmos as dnsmos_module
from pytest_ttsbench.quality.dnsmos import (
    HOP,
    SHORTEST,
    WINDOW,
    Dnsmos,
    _clip_inputs,
    _free_length,
    _reference_windows,
    length_free_graph,
    model_paths,
    p808_features,
    shared_dnsmos,
)
from pytest_ttsbench.quality.measures import QualityUnavailable
from pytest_ttsbench.quality.meter import ClipToMeasure, QualityMeter


@pytest.fixture(scope="module")
def dnsmos() -> Dnsmos:
    return shared_dnsmos()


@pytest.fixture(scope="module")
def reference_dnsmos() -> Dnsmos:
    return shared_dnsmos("reference")


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
        for window in _reference_windows(clip)[:3]:
            expected = reference.DNSMOS.audio_melspec(None, audio=window[:-HOP])
            ours = p808_features(window[:-HOP])
            assert ours.shape == expected.shape
            np.testing.assert_allclose(ours, expected, atol=1e-5)


def test_reference_windowing_matches_the_reference_implementation(
    reference_dnsmos: Dnsmos, espeak_clips, piper_clips
) -> None:
    reference = pytest.importorskip("speechmos.dnsmos", reason="the reference implementation needs librosa")
    clips = [espeak_clips[0], piper_clips[0], np.concatenate([*piper_clips, espeak_clips[1]])]
    ours = reference_dnsmos.score(clips)
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
    assert len(_reference_windows(np.full(24_000, 0.1, np.float32))) == 3
    # 30 s: hops 0..20, of which the reference's truncated ends leave the 8th to 21st one sample short.
    windows = _reference_windows(np.full(30 * 16_000, 0.1, np.float32))
    assert len(windows) == 7 and all(w.size == 144_160 for w in windows)
    assert _reference_windows(np.zeros(0, np.float32)) == []


def test_clip_windowing_scores_each_second_once() -> None:
    ramp = np.linspace(-0.5, 0.5, 16_000, dtype=np.float32)
    # A 1 s clip is repeated to 3 s, not doubled to 16 s.
    (short,) = _clip_inputs(ramp)
    assert short.size == SHORTEST and np.array_equal(short[16_000:32_000], ramp)
    # A clip up to one window is scored whole, cut to whole 10 ms hops.
    clip = np.resize(ramp, 5 * 16_000 + 37)
    (whole,) = _clip_inputs(clip)
    assert whole.size == 5 * 16_000 and np.array_equal(whole, clip[: whole.size])
    (exact,) = _clip_inputs(np.resize(ramp, WINDOW))
    assert exact.size == WINDOW
    # 20 s: the fewest 9.01 s windows that cover it, first at the start and last at the end.
    long = np.resize(ramp, 20 * 16_000)
    windows = _clip_inputs(long)
    assert len(windows) == 3 and all(w.size == WINDOW for w in windows)
    assert np.array_equal(windows[0], long[:WINDOW]) and np.array_equal(windows[-1], long[-WINDOW:])
    assert sum(w.size for w in windows) < 2 * long.size  # the reference scores each second about nine times
    assert _clip_inputs(np.zeros(0, np.float32)) == []
    # Samples past full scale are clipped, as for the reference windowing.
    assert _clip_inputs(np.full(SHORTEST, 1.5, np.float32))[0].max() == 1.0


def test_free_length_models_compute_what_the_originals_do(
    dnsmos: Dnsmos, reference_dnsmos: Dnsmos, piper_clips
) -> None:
    # Given exactly one 9.01 s window, the graphs made free of their length give the same outputs.
    window = _reference_windows(piper_clips[0])[0][None, :]
    np.testing.assert_allclose(
        dnsmos._primary.run(None, {"input_1": window})[0],
        reference_dnsmos._primary.run(None, {"input_1": window})[0],
        rtol=1e-4,
        atol=1e-4,
    )
    mel = p808_features(window[0, :-HOP])[None]
    np.testing.assert_allclose(
        dnsmos._p808.run(None, {"input_1": mel})[0], reference_dnsmos._p808.run(None, {"input_1": mel})[0], atol=1e-4
    )
    # ... and take any other length: 4 s of speech is scored as 4 s.
    four_seconds = piper_clips[0][: 4 * 16_000][None, :]
    assert dnsmos._primary.run(None, {"input_1": four_seconds})[0].shape == (1, 3)


def test_clip_windowing_agrees_with_the_reference(
    dnsmos: Dnsmos, reference_dnsmos: Dnsmos, espeak_clips, piper_clips
) -> None:
    clips = [*espeak_clips, *piper_clips]
    ours, theirs = dnsmos.score(clips), reference_dnsmos.score(clips)
    for name in ("dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "dnsmos_p808"):
        differences = np.array([a[name] - b[name] for a, b in zip(ours, theirs, strict=True)])
        # The reference itself moves by up to 0.8 on BAK when 10 ms of silence lead a clip.
        assert np.abs(differences).max() < 0.8, name
        assert abs(differences.mean()) < 0.35, name
    # Both windowings hear the neural voice as the better one.
    for figures in (ours, theirs):
        assert mean_of(figures[3:], "dnsmos_ovrl") > mean_of(figures[:3], "dnsmos_ovrl") + 0.3


def test_an_unknown_graph_is_refused_not_guessed_at(tmp_path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    def identity(shape: list) -> Path:
        signal = helper.make_tensor_value_info("input_1", TensorProto.FLOAT, shape)
        scores = helper.make_tensor_value_info("scores", TensorProto.FLOAT, shape)
        graph = helper.make_graph([helper.make_node("Identity", ["input_1"], ["scores"])], "other", [signal], [scores])
        path = tmp_path / f"model-{len(list(tmp_path.iterdir()))}.onnx"
        onnx.save(helper.make_model(graph), str(path))
        return path

    # The P.835 graph's length is right but its framing is not there; the P.808 graph takes 901 frames.
    for path, primary in ((identity(["N", WINDOW]), True), (identity(["N", 901, 120]), False)):
        with pytest.raises(QualityUnavailable, match="set --tts-dnsmos-windowing=reference"):
            _free_length(path, primary=primary)


def test_windowing_is_named_in_the_provenance(dnsmos: Dnsmos, reference_dnsmos: Dnsmos) -> None:
    assert "; clip windowing;" in dnsmos.provenance
    assert "; reference windowing;" in reference_dnsmos.provenance
    with pytest.raises(ValueError, match="clip, reference"):
        Dnsmos(windowing="hops")


# --- the length-free graphs, derived once per machine (#28: importing onnx cost every cold run a second) ---


def test_the_length_free_graphs_are_derived_once_then_read_back(tmp_path, monkeypatch, espeak_clips) -> None:
    monkeypatch.setenv("TTSBENCH_CACHE_DIR", str(tmp_path))
    primary, p808 = model_paths()
    first = {flag: length_free_graph(path, primary=flag) for path, flag in ((primary, True), (p808, False))}
    kept = sorted((tmp_path / "models" / "dnsmos").glob("*.onnx"))
    assert len(kept) == 2
    assert {p.name.split("-")[0] for p in kept} == {primary.stem, p808.stem}

    def refuse(path: Path, primary: bool) -> bytes:
        raise AssertionError("derived again although a sound copy is kept")

    monkeypatch.setattr(dnsmos_module, "_free_length", refuse)
    assert {flag: length_free_graph(path, primary=flag) for path, flag in ((primary, True), (p808, False))} == first
    # A process that cannot import onnx scores from the kept graphs, with the same figures.
    script = (
        "import json, sys; sys.modules['onnx'] = None\n"
        "import numpy as np\n"
        "from pytest_ttsbench.quality.dnsmos import Dnsmos\n"
        "clip = np.load(sys.argv[1])\n"
        "print(json.dumps(Dnsmos(windowing='clip').score([clip])[0]))\n"
    )
    clip_file = tmp_path / "clip.npy"
    np.save(clip_file, espeak_clips[0])
    done = run([sys.executable, "-c", script, str(clip_file)], env={**os.environ, "TTSBENCH_CACHE_DIR": str(tmp_path)})
    assert json.loads(done.stdout) == shared_dnsmos().score([espeak_clips[0]])[0]


def test_a_damaged_kept_graph_is_derived_and_written_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TTSBENCH_CACHE_DIR", str(tmp_path))
    _, p808 = model_paths()
    sound = length_free_graph(p808, primary=False)
    (kept,) = (tmp_path / "models" / "dnsmos").glob("*.onnx")
    damaged = bytearray(kept.read_bytes())
    damaged[len(damaged) // 2] ^= 0x40
    kept.write_bytes(bytes(damaged))
    assert length_free_graph(p808, primary=False) == sound == _free_length(p808, primary=False)
    assert kept.read_bytes() != bytes(damaged), "the damaged copy is replaced by a sound one"
    assert length_free_graph(p808, primary=False) == sound


def test_the_clip_windowings_figures_are_keyed_by_the_rewrite_too(monkeypatch) -> None:
    """Figures cached through one length-free rewrite are not read back through another."""
    dnsmos_provenance = dnsmos_module.dnsmos_provenance
    dnsmos_provenance.cache_clear()
    before = dnsmos_provenance("clip")
    assert f"length-free graphs rewrite {dnsmos_module.FREE_LENGTH_VERSION};" in before
    assert "length-free" not in dnsmos_provenance("reference")
    monkeypatch.setattr(dnsmos_module, "FREE_LENGTH_VERSION", dnsmos_module.FREE_LENGTH_VERSION + 1)
    dnsmos_provenance.cache_clear()
    try:
        assert dnsmos_provenance("clip") != before
    finally:
        monkeypatch.undo()
        dnsmos_provenance.cache_clear()
