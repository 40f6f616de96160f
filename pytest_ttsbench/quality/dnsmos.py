"""DNSMOS (Reddy et al., ICASSP 2021/2022): predicted P.835 SIG/BAK/OVRL and P.808 MOS, on CPU, batched.

The ONNX models ship inside the ``speechmos`` wheel (extra ``[quality]``); this module runs them
with onnxruntime over a *batch* of clips at once: every clip is cut into the models' 9.01 s
windows (hop 1 s; a shorter clip is doubled until it fills one window, as DNSMOS does), the
windows of all clips are stacked and scored together, and each clip gets the mean of its
windows.

The P.808 model's log-mel input is computed here with numpy (a cached Slaney mel filterbank
over a centred, zero-padded Hann STFT, power in dB against the window's peak, floored 80 dB
below it) instead of through librosa: the figures are the same (tests compare both), but
importing librosa and warming its numba kernels cost about two CPU seconds per process, and
its features take about half as long again as these per window. The P.835 calibration polynomials are DNSMOS's
published ones. Only the ONNX files are taken from the ``speechmos`` wheel.

DNSMOS rejects samples outside [-1, 1]; a clip resampled to 16 kHz can overshoot by a hair
(piper's reach 1.0), so samples are clipped to [-1, 1] first. That changes nothing a listener
hears; genuine clipping is what ``clipping_ratio`` reports.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Sequence
from functools import cache
from importlib.metadata import version
from pathlib import Path

import numpy as np

from pytest_ttsbench.quality.measures import QualityUnavailable, install_hint

SAMPLE_RATE = 16_000
WINDOW_S = 9.01
WINDOW = int(WINDOW_S * SAMPLE_RATE)
#: Windows per onnxruntime call: large enough to amortize the call, small enough for little memory.
BATCH = 16

# The P.808 model's input: 120 mel bands of a 321-point STFT, hop 10 ms, over a window minus its last 10 ms.
N_FFT = 321
HOP = 160
N_MELS = 120
TOP_DB = 80.0
POWER_FLOOR = 1e-10
#: DNSMOS's calibration of the raw P.835 outputs to MOS (non-personalized model), highest power first.
SIG_POLY = np.poly1d([-0.08397278, 1.22083953, 0.0052439])
BAK_POLY = np.poly1d([-0.13166888, 1.60915514, -0.39604546])
OVR_POLY = np.poly1d([-0.06766283, 1.11546468, 0.04602535])


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz, logarithmic above."""
    hz = np.asarray(hz, dtype=np.float64)
    linear = hz / (200.0 / 3)
    log_step = np.log(6.4) / 27.0
    return np.where(hz >= 1000.0, 15.0 + np.log(np.maximum(hz, 1e-12) / 1000.0) / log_step, linear)


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    mel = np.asarray(mel, dtype=np.float64)
    log_step = np.log(6.4) / 27.0
    return np.where(mel >= 15.0, 1000.0 * np.exp(log_step * (mel - 15.0)), mel * (200.0 / 3))


@cache
def mel_filterbank() -> np.ndarray:
    """(N_MELS, N_FFT // 2 + 1) triangular filters, area-normalized (Slaney), 0 Hz to Nyquist."""
    bins = np.fft.rfftfreq(N_FFT, 1.0 / SAMPLE_RATE)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(np.array(0.0)), _hz_to_mel(np.array(SAMPLE_RATE / 2)), N_MELS + 2))
    widths = np.diff(edges)
    offsets = edges[:, None] - bins[None, :]
    rising = -offsets[:-2] / widths[:-1, None]
    falling = offsets[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(rising, falling))
    weights *= (2.0 / (edges[2:] - edges[:-2]))[:, None]
    return weights


@cache
def _hann() -> np.ndarray:
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)  # periodic, as for spectral analysis


def p808_features(audio: np.ndarray) -> np.ndarray:
    """(frames, N_MELS) log-mel input of the P.808 model for one window, scaled as DNSMOS does."""
    padded = np.pad(audio.astype(np.float64), N_FFT // 2)
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    power = np.abs(np.fft.rfft(frames * _hann(), axis=1)) ** 2
    mel = power @ mel_filterbank().T
    decibels = 10.0 * np.log10(np.maximum(mel, POWER_FLOOR))
    decibels -= 10.0 * np.log10(max(float(mel.max()), POWER_FLOOR))
    decibels = np.maximum(decibels, decibels.max() - TOP_DB)
    return ((decibels + 40.0) / 40.0).astype(np.float32)


def _windows(samples: np.ndarray) -> list[np.ndarray]:
    """The 9.01 s windows DNSMOS scores, cut exactly as Microsoft's reference script cuts them.

    A short clip is doubled until it fills a window (not tiled to the nearest length: the number
    of 1 s hops, and so the figures, depend on it). Window ends are computed in floating point and
    truncated, which leaves some windows (the 8th to 24th, for instance) one sample short; the
    reference skips those, and so does this, so the figures stay comparable with published ones.
    """
    audio = np.clip(samples.astype(np.float32, copy=False), -1.0, 1.0)
    if audio.size == 0:
        return []
    while audio.size < WINDOW:
        audio = np.concatenate([audio, audio])
    hops = int(np.floor(audio.size / SAMPLE_RATE) - WINDOW_S) + 1
    cut = [audio[int(i * SAMPLE_RATE) : int((i + WINDOW_S) * SAMPLE_RATE)] for i in range(hops)]
    return [window for window in cut if window.size == WINDOW]


class Dnsmos:
    """The two DNSMOS models in onnxruntime sessions, loaded once per process."""

    def __init__(self, threads: int | None = 1) -> None:
        try:
            import onnxruntime
        except ImportError as exc:
            raise QualityUnavailable(f"--tts-quality dnsmos needs onnxruntime: {install_hint('dnsmos')}") from exc
        # The models only: importing speechmos.dnsmos would import librosa, which nothing here needs.
        spec = importlib.util.find_spec("speechmos")
        if spec is None or not spec.submodule_search_locations:
            raise QualityUnavailable(f"--tts-quality dnsmos needs speechmos: {install_hint('dnsmos')}")
        folder = Path(next(iter(spec.submodule_search_locations))) / "dnsmos_models"
        self.primary_path = folder / "sig_bak_ovr.onnx"
        self.p808_path = folder / "model_v8.onnx"
        options = onnxruntime.SessionOptions()
        if threads:
            # One thread by default: DNSMOS scores beside Whisper, and spinning pool threads on a
            # small machine take CPU from it without making a 9 s window faster.
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        self._primary = onnxruntime.InferenceSession(str(self.primary_path), options, providers=providers)
        self._p808 = onnxruntime.InferenceSession(str(self.p808_path), options, providers=providers)
        self.provenance = (
            f"speechmos {version('speechmos')} DNSMOS {self.primary_path.name} sha256:{_digest(self.primary_path)} "
            f"+ P.808 {self.p808_path.name} sha256:{_digest(self.p808_path)}; onnxruntime {onnxruntime.__version__} CPU"
        )

    def score(self, clips: Sequence[np.ndarray]) -> list[dict[str, float | None]]:
        """DNSMOS figures for each 16 kHz mono clip, in order; an empty clip gets None for each."""
        owners: list[int] = []
        windows: list[np.ndarray] = []
        for index, clip in enumerate(clips):
            for window in _windows(clip):
                owners.append(index)
                windows.append(window)
        raw = np.zeros((len(windows), 4), dtype=np.float64)
        for start in range(0, len(windows), BATCH):
            chunk = windows[start : start + BATCH]
            mel = np.stack([p808_features(w[:-HOP]) for w in chunk])
            p808 = self._p808.run(None, {"input_1": mel})[0][:, 0]
            sig_bak_ovr = self._primary.run(None, {"input_1": np.stack(chunk)})[0]
            sig, bak, ovr = SIG_POLY(sig_bak_ovr[:, 0]), BAK_POLY(sig_bak_ovr[:, 1]), OVR_POLY(sig_bak_ovr[:, 2])
            raw[start : start + len(chunk)] = np.column_stack([ovr, sig, bak, p808])
        owner = np.asarray(owners)
        figures: list[dict[str, float | None]] = []
        for index in range(len(clips)):
            rows = raw[owner == index] if owners else raw[:0]
            if not len(rows):
                figures.append(dict.fromkeys(("dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "dnsmos_p808")))
                continue
            ovrl, sig, bak, p808 = (round(float(v), 3) for v in rows.mean(axis=0))
            figures.append({"dnsmos_ovrl": ovrl, "dnsmos_sig": sig, "dnsmos_bak": bak, "dnsmos_p808": p808})
        return figures


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


@cache
def shared_dnsmos() -> Dnsmos:
    """One model pair per process, on one onnxruntime thread (it runs beside Whisper, see meter.py)."""
    return Dnsmos(threads=1)


def dnsmos_available() -> str | None:
    """None when DNSMOS can run here, else the reason with the install hint."""
    try:
        shared_dnsmos()
    except QualityUnavailable as exc:
        return str(exc)
    return None
