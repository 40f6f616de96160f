"""DNSMOS (Reddy et al., ICASSP 2021/2022): predicted P.835 SIG/BAK/OVRL and P.808 MOS, on CPU, batched.

The ONNX models ship inside the ``speechmos`` wheel (extra ``[quality]``); this module runs them
with onnxruntime over a *batch* of clips at once: every clip is cut into the models' 9.01 s
windows (hop 1 s; a shorter clip is repeated until it fills one window, as DNSMOS does), the
windows of all clips are stacked and scored together, and each clip gets the mean of its
windows. The feature and calibration steps are speechmos's own functions.

DNSMOS rejects samples outside [-1, 1]; a clip resampled to 16 kHz can overshoot by a hair
(piper's reach 1.0), so samples are clipped to [-1, 1] first. That changes nothing a listener
hears; genuine clipping is what ``clipping_ratio`` reports.
"""

from __future__ import annotations

import hashlib
import os
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


def _windows(samples: np.ndarray) -> list[np.ndarray]:
    audio = np.clip(samples.astype(np.float32, copy=False), -1.0, 1.0)
    if audio.size == 0:
        return []
    if audio.size < WINDOW:
        audio = np.tile(audio, int(np.ceil(WINDOW / audio.size)))
    hops = int(np.floor(audio.size / SAMPLE_RATE) - WINDOW_S) + 1
    return [audio[i * SAMPLE_RATE : i * SAMPLE_RATE + WINDOW] for i in range(max(hops, 1))]


class Dnsmos:
    """The two DNSMOS models in onnxruntime sessions, loaded once per process."""

    def __init__(self, threads: int | None = None) -> None:
        try:
            import onnxruntime
            import speechmos.dnsmos as reference
        except ImportError as exc:
            raise QualityUnavailable(
                f"--tts-quality dnsmos needs speechmos and librosa: {install_hint('dnsmos')}"
            ) from exc
        self._reference = reference
        folder = Path(reference.__file__).parent / "dnsmos_models"
        self.primary_path = folder / "sig_bak_ovr.onnx"
        self.p808_path = folder / "model_v8.onnx"
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
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
            # speechmos's feature and calibration functions use nothing of their instance.
            mel = np.stack([self._reference.DNSMOS.audio_melspec(None, audio=w[:-160]) for w in chunk])
            p808 = self._p808.run(None, {"input_1": mel.astype(np.float32)})[0][:, 0]
            sig_bak_ovr = self._primary.run(None, {"input_1": np.stack(chunk)})[0]
            sig, bak, ovr = self._reference.DNSMOS.get_polyfit_val(
                None, sig_bak_ovr[:, 0], sig_bak_ovr[:, 1], sig_bak_ovr[:, 2], False
            )
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
    """One model pair per process. One onnxruntime thread under pytest-xdist (each worker is a process)."""
    return Dnsmos(threads=1 if os.environ.get("PYTEST_XDIST_WORKER") else None)


def dnsmos_available() -> str | None:
    """None when DNSMOS can run here, else the reason with the install hint."""
    try:
        shared_dnsmos()
    except QualityUnavailable as exc:
        return str(exc)
    return None
