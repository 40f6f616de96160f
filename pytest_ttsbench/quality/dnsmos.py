"""DNSMOS (Reddy et al., ICASSP 2021/2022): predicted P.835 SIG/BAK/OVRL and P.808 MOS, on CPU, batched.

The ONNX models ship inside the ``speechmos`` wheel (extra ``[quality]``); this module runs them
with onnxruntime over a *batch* of clips at once. Two ways of cutting a clip into the models'
inputs (``windowing``), each clip getting the mean of its inputs' figures:

``clip`` (the default)
    The clip is scored as it is: both models end in a global max over time, so they take any
    length once the graph's fixed 9.01 s input is made free (:func:`_free_length`). A clip
    shorter than 3 s is repeated to 3 s; a clip longer than a 9.01 s window is cut into the
    fewest 9.01 s windows that cover it, evenly spaced. Every second of audio is scored once.
``reference``
    Microsoft's reference script: 9.01 s windows with 1 s hops, a clip under 9.01 s doubled
    until it fills one. A 4 s clip becomes 16 s and 8 windows, so every second is scored about
    nine times over: six times the CPU of ``clip`` on short TTS clips.

Why ``clip`` is the default: on eSpeak NG's en-numerals clips (3.6 s on average) its figures
agree with the reference's as well as the reference agrees with itself when 10 ms of silence
is put before the clip (Pearson r 0.78 vs 0.81 on OVRL, 0.75 vs 0.75 on BAK), and run 0.1-0.2
lower on average (short clips lose the doubled copies the reference's max is taken over).
Neither figure is a listening-test MOS; compare runs measured the same way (the provenance
names the windowing) and use ``reference`` to compare with figures published from the script.

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

import contextlib
import importlib.util
from collections.abc import Sequence
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from pytest_ttsbench.asr.models import cache_dir
from pytest_ttsbench.quality.measures import (
    DEFAULT_DNSMOS_WINDOWING,
    DNSMOS_WINDOWINGS,
    QualityUnavailable,
    install_hint,
)
from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.blas_threads import limit_blas_threads
from pytest_ttsbench.support.cache import open_entry, seal_entry
from pytest_ttsbench.support.file_hashes import hash_files

SAMPLE_RATE = 16_000
WINDOW_S = 9.01
WINDOW = int(WINDOW_S * SAMPLE_RATE)
#: Windows per onnxruntime call: large enough to amortize the call, small enough for little memory.
BATCH = 16
#: ``clip`` windowing repeats a shorter clip to this length: a second of speech is too little context.
SHORTEST = 3 * SAMPLE_RATE

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


def _clip_inputs(samples: np.ndarray) -> list[np.ndarray]:
    """The inputs ``clip`` windowing scores: the clip itself, each sample once where it can be.

    Lengths are whole STFT hops (the P.835 graph frames its input in 10 ms hops); a clip under
    :data:`SHORTEST` is repeated up to it, one over a 9.01 s window is covered by the fewest
    evenly spaced windows (overlapping by less than one window, never by 8 s as the reference's).
    """
    audio = np.clip(samples.astype(np.float32, copy=False), -1.0, 1.0)
    if audio.size == 0:
        return []
    if audio.size < SHORTEST:
        audio = np.resize(audio, SHORTEST)  # repeats the clip cyclically
    if audio.size <= WINDOW:
        return [audio[: audio.size - audio.size % HOP]]
    count = -(-audio.size // WINDOW)
    starts = np.linspace(0, audio.size - WINDOW, count).round().astype(int)
    return [audio[start : start + WINDOW] for start in starts]


def _reference_windows(samples: np.ndarray) -> list[np.ndarray]:
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


#: what :func:`_free_length` does to a graph: bump it when that changes, and graphs derived before are not used
FREE_LENGTH_VERSION = 1
#: the kind a derived graph is sealed as (support/cache.py's seal: a damaged file is derived again)
DERIVED_KIND = "dnsmos-graph"


def length_free_graph(path: Path, primary: bool) -> bytes:
    """:func:`_free_length` of the model at ``path``, derived once per machine and kept, sealed,
    beside the assembled Whisper models (``asr/models.py``'s cache folder).

    Deriving it imports onnx (its protobuf classes), about a second of one core that a cold run
    with DNSMOS spent beside Whisper every time (#28). The file kept is named by the source
    graph's SHA-256 and :data:`FREE_LENGTH_VERSION`, so another speechmos release or another
    rewrite derives its own; one whose seal does not match its bytes is derived and written again.
    """
    key = f"{path.stem}-{_graph_sha256(path)}-free-{FREE_LENGTH_VERSION}"
    kept = cache_dir() / "models" / "dnsmos" / f"{key}.onnx"
    with contextlib.suppress(OSError):
        body = open_entry(DERIVED_KIND, key, kept.read_bytes())
        if body is not None:
            return body
    body = _free_length(path, primary)
    with contextlib.suppress(OSError):  # a read-only cache folder: derived again next time
        write_atomically(kept, seal_entry(DERIVED_KIND, key, body))
    return body


def _free_length(path: Path, primary: bool) -> bytes:
    """The model with its time axis free, so ``clip`` windowing can feed a clip of any length.

    The graphs are fully convolutional up to a global max over time; only the declared input
    length and, in the P.835 graph, the framing (two 9 s slices reshaped into 900 frames of 160
    samples) name the 9.01 s. A graph shaped otherwise (another speechmos release) is refused
    rather than guessed at.
    """
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError as exc:
        raise QualityUnavailable(f"--tts-quality dnsmos needs onnx: {install_hint('dnsmos')}") from exc
    refused = QualityUnavailable(
        f"DNSMOS model {path} is not the graph this plugin knows how to score clips of any length with; "
        "set --tts-dnsmos-windowing=reference"
    )
    model = onnx.load(str(path))
    length = model.graph.input[0].type.tensor_type.shape.dim[1]
    if length.dim_value != (WINDOW if primary else 900):  # 9.01 s of samples, or 900 log-mel frames
        raise refused
    length.dim_param = "time"
    del model.graph.value_info[:]  # the shapes inferred for 900 frames; onnxruntime infers them again
    if primary:
        found = {init.name: init for init in model.graph.initializer}
        expected = {
            "shape_tensor": [-1, 900, HOP],
            "shape_tensor1": [-1, 900, HOP],
            "input_1:01_cropping_end": [np.iinfo(np.int64).max, WINDOW - HOP],
        }
        for name, value in expected.items():
            if name not in found or numpy_helper.to_array(found[name]).tolist() != value:
                raise refused
        replace = {
            "shape_tensor": [0, -1, HOP],  # batch kept, frames from the length
            "shape_tensor1": [0, -1, HOP],
            "input_1:01_cropping_end": [np.iinfo(np.int64).max, -HOP],  # all but the last hop
        }
        for name, value in replace.items():
            found[name].CopyFrom(numpy_helper.from_array(np.array(value, dtype=np.int64), name))
    return bytes(model.SerializeToString())


class Dnsmos:
    """The two DNSMOS models in onnxruntime sessions, loaded once per process."""

    def __init__(self, threads: int | None = 1, windowing: str = DEFAULT_DNSMOS_WINDOWING) -> None:
        if windowing not in DNSMOS_WINDOWINGS:
            raise ValueError(f"DNSMOS windowing must be one of {', '.join(DNSMOS_WINDOWINGS)}, not {windowing!r}")
        self.windowing = windowing
        try:
            import onnxruntime
        except ImportError as exc:
            raise QualityUnavailable(f"--tts-quality dnsmos needs onnxruntime: {install_hint('dnsmos')}") from exc
        self.primary_path, self.p808_path = model_paths()
        options = onnxruntime.SessionOptions()
        if threads:
            # One thread by default: DNSMOS scores beside Whisper, and spinning pool threads on a
            # small machine take CPU from it without making a 9 s window faster.
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        if windowing == "clip":
            primary: str | bytes = length_free_graph(self.primary_path, primary=True)
            p808: str | bytes = length_free_graph(self.p808_path, primary=False)
        else:
            primary, p808 = str(self.primary_path), str(self.p808_path)
        self._primary = onnxruntime.InferenceSession(primary, options, providers=providers)
        self._p808 = onnxruntime.InferenceSession(p808, options, providers=providers)
        limit_blas_threads()  # the P.808 input's mel product on one thread (support/blas_threads.py)
        self.provenance = dnsmos_provenance(windowing)

    def inputs(self, clip: np.ndarray) -> list[np.ndarray]:
        """The pieces of one 16 kHz mono clip the models score, cut as ``windowing`` says."""
        return _clip_inputs(clip) if self.windowing == "clip" else _reference_windows(clip)

    def score(self, clips: Sequence[np.ndarray]) -> list[dict[str, float | None]]:
        """DNSMOS figures for each 16 kHz mono clip, in order; an empty clip gets None for each.

        Pieces of one length are scored together, in batches, so a clip's figures never depend
        on the clips it is batched with.
        """
        owners: list[int] = []
        windows: list[np.ndarray] = []
        for index, clip in enumerate(clips):
            for window in self.inputs(clip):
                owners.append(index)
                windows.append(window)
        raw = np.zeros((len(windows), 4), dtype=np.float64)
        by_length: dict[int, list[int]] = {}
        for position, window in enumerate(windows):
            by_length.setdefault(window.size, []).append(position)
        for positions in by_length.values():
            for start in range(0, len(positions), BATCH):
                chunk = positions[start : start + BATCH]
                raw[chunk] = self._score_batch(np.stack([windows[p] for p in chunk]))
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

    def _score_batch(self, batch: np.ndarray) -> np.ndarray:
        """(n, 4) OVRL, SIG, BAK and P.808 of n equally long pieces."""
        mel = np.stack([p808_features(piece[:-HOP]) for piece in batch])
        p808 = self._p808.run(None, {"input_1": mel})[0][:, 0]
        sig_bak_ovr = self._primary.run(None, {"input_1": batch})[0]
        sig, bak, ovr = SIG_POLY(sig_bak_ovr[:, 0]), BAK_POLY(sig_bak_ovr[:, 1]), OVR_POLY(sig_bak_ovr[:, 2])
        return np.column_stack([ovr, sig, bak, p808])


def model_paths() -> tuple[Path, Path]:
    """The P.835 and P.808 ONNX files inside the installed ``speechmos`` (found, not imported)."""
    # The models only: importing speechmos.dnsmos would import librosa, which nothing here needs.
    spec = importlib.util.find_spec("speechmos")
    if spec is None or not spec.submodule_search_locations:
        raise QualityUnavailable(f"--tts-quality dnsmos needs speechmos: {install_hint('dnsmos')}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "dnsmos_models"
    return folder / "sig_bak_ovr.onnx", folder / "model_v8.onnx"


def check_available(windowing: str = DEFAULT_DNSMOS_WINDOWING) -> None:
    """Raise :class:`QualityUnavailable` (with the install line) unless DNSMOS can run here, loading nothing.

    A run checks this at start-up instead of loading the models, so a rerun whose figures all
    come from the cache never imports onnxruntime; the models load on the first clip measured.
    """
    needed = ("onnxruntime", "onnx") if windowing == "clip" else ("onnxruntime",)
    for module in needed:
        if importlib.util.find_spec(module) is None:
            raise QualityUnavailable(f"--tts-quality dnsmos needs {module}: {install_hint('dnsmos')}")
    for path in model_paths():
        if not path.is_file():
            raise QualityUnavailable(f"DNSMOS model {path} is missing: {install_hint('dnsmos')}")


@cache
def dnsmos_provenance(windowing: str = DEFAULT_DNSMOS_WINDOWING) -> str:
    """The models' files, checksums, windowing and runtime version, worked out without loading them.

    Part of each clip's quality cache key (meter.py), so reading cached figures costs no model load;
    with ``clip`` windowing it names the length-free rewrite's version too (figures made through
    another rewrite are not read back).
    """
    primary, p808 = model_paths()
    return (
        f"speechmos {version('speechmos')} DNSMOS {primary.name} sha256:{_digest(primary)} "
        f"+ P.808 {p808.name} sha256:{_digest(p808)}; {windowing} windowing; "
        + (f"length-free graphs rewrite {FREE_LENGTH_VERSION}; " if windowing == "clip" else "")
        + f"onnxruntime {_onnxruntime_version()} CPU"
    )


def _onnxruntime_version() -> str:
    """onnxruntime's version from its distribution's metadata (the CPU, GPU or other build), not an import."""
    for distribution in ("onnxruntime", "onnxruntime-gpu", "onnxruntime-openvino", "onnxruntime-directml"):
        try:
            return version(distribution)
        except PackageNotFoundError:
            continue
    import onnxruntime  # installed some other way: ask the module itself

    return str(onnxruntime.__version__)


def _digest(path: Path) -> str:
    return _graph_sha256(path)[:12]


@cache
def _graph_sha256(path: Path) -> str:
    """A model file's SHA-256, read once per process: the provenance and the kept graph's name both need it."""
    return hash_files([path])


@cache
def shared_dnsmos(windowing: str = DEFAULT_DNSMOS_WINDOWING) -> Dnsmos:
    """One model pair per process and windowing, on one onnxruntime thread (it runs beside Whisper, see meter.py)."""
    return Dnsmos(threads=1, windowing=windowing)
