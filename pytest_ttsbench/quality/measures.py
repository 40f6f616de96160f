"""What each quality measure is: its name, the set that computes it, and which way is better.

The sets are chosen with ``--tts-quality``: ``signal`` (numpy and pyloudnorm, near-free, the
default), ``dnsmos`` (Microsoft's DNSMOS ONNX models, extra ``[quality]``) and ``similarity``
(Resemblyzer speaker embeddings, extra ``[similarity]``). The direction decides what a
regression against a baseline is: a drop for ``higher`` measures, a rise for ``lower`` ones,
and a move either way beyond the tolerance for ``neutral`` ones (loudness, pace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pytest_ttsbench.support.plugin_options import DNSMOS_WINDOWINGS as DNSMOS_WINDOWINGS

Direction = Literal["higher", "lower", "neutral"]


@dataclass(frozen=True)
class Measure:
    """One per-clip figure stored under ``quality`` in a results row."""

    name: str
    measure_set: str
    direction: Direction
    unit: str
    meaning: str


MEASURES: tuple[Measure, ...] = (
    Measure("dnsmos_ovrl", "dnsmos", "higher", "MOS 1-5", "DNSMOS P.835 overall quality"),
    Measure("dnsmos_sig", "dnsmos", "higher", "MOS 1-5", "DNSMOS P.835 speech signal quality"),
    Measure("dnsmos_bak", "dnsmos", "higher", "MOS 1-5", "DNSMOS P.835 background noise (higher: quieter)"),
    Measure("dnsmos_p808", "dnsmos", "higher", "MOS 1-5", "DNSMOS P.808 overall quality"),
    Measure("clipping_ratio", "signal", "lower", "share", "share of samples at full scale"),
    Measure("peak_dbfs", "signal", "neutral", "dBFS", "highest sample level"),
    Measure("loudness_lufs", "signal", "neutral", "LUFS", "integrated loudness, ITU-R BS.1770"),
    Measure("leading_silence_s", "signal", "lower", "s", "silence before the first speech"),
    Measure("trailing_silence_s", "signal", "lower", "s", "silence after the last speech"),
    Measure("longest_pause_s", "signal", "lower", "s", "longest silence between speech"),
    Measure("speaking_rate", "signal", "neutral", "chars/s", "letters and digits sent per second of speech"),
    Measure("speaker_similarity", "similarity", "higher", "cosine", "speaker embedding vs reference_audio"),
)

BY_NAME: dict[str, Measure] = {m.name: m for m in MEASURES}
MEASURE_SETS: tuple[str, ...] = ("signal", "dnsmos", "similarity")
DEFAULT_SETS: tuple[str, ...] = ("signal",)
#: How DNSMOS cuts a clip into its models' inputs (see dnsmos.py); ``clip`` unless chosen otherwise.
DEFAULT_DNSMOS_WINDOWING = "clip"

#: What to install for a set that needs an extra.
EXTRAS: dict[str, str] = {"dnsmos": "quality", "similarity": "similarity"}


class QualityOptionError(ValueError):
    """A quality option that cannot be used; the message names the option and the value."""


class QualityUnavailable(RuntimeError):
    """A chosen measure set cannot run here; the message says what to install."""


def parse_measure_sets(values: list[str] | None, where: str = "--tts-quality") -> tuple[str, ...]:
    """``["dnsmos,signal"]`` → ``("dnsmos", "signal")`` in the given order; ``none`` turns every set off."""
    chosen: list[str] = []
    for value in values or []:
        for name in value.split(","):
            name = name.strip()
            if not name:
                continue
            if name == "none":
                return ()
            if name not in MEASURE_SETS:
                raise QualityOptionError(f"{where}: unknown measure set {name!r}; known: {', '.join(MEASURE_SETS)}")
            if name not in chosen:
                chosen.append(name)
    return tuple(chosen) if values else DEFAULT_SETS


def measure_names(sets: tuple[str, ...]) -> list[str]:
    """The measures the chosen sets take, in the fixed order of :data:`MEASURES`."""
    return [m.name for m in MEASURES if m.measure_set in sets]


def measure(name: str, where: str) -> Measure:
    """The measure called ``name``; an unknown one names ``where`` it was given and lists the known ones."""
    found = BY_NAME.get(name)
    if found is None:
        raise QualityOptionError(f"{where}: unknown quality measure {name!r}; known: {', '.join(BY_NAME)}")
    return found


def install_hint(measure_set: str) -> str:
    extra = EXTRAS.get(measure_set)
    return f'pip install "pytest-ttsbench[{extra}]"' if extra else "pip install pytest-ttsbench"
