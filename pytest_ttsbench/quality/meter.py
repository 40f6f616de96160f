"""Measuring clips with the chosen measure sets: one entry point for the pipeline, rescoring and benchmarks.

:meth:`QualityMeter.measure_later` scores a clip on the quality worker (worker.py) while the
caller goes on: the pipeline starts it as soon as a clip is synthesized, in the prefetch pool, so
it runs while earlier clips are transcribed. Nothing here loads a model before a clip is
measured: the cache key (:meth:`QualityMeter.cache_identity`) names each model by its files'
checksums, so a rerun whose figures all come from the cache never loads one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ttsbench.audio.decoding import ASR_SAMPLE_RATE
from pytest_ttsbench.quality.measures import DEFAULT_DNSMOS_WINDOWING, measure_names

# Each set's module loads when that set is used: numpy, pyloudnorm and the models behind them cost
# a listing (which measures nothing) or a rerun whose figures are all cached (cache.py) nothing.
if TYPE_CHECKING:
    import numpy as np

    from pytest_ttsbench.quality.dnsmos import Dnsmos
    from pytest_ttsbench.quality.similarity import SpeakerEncoder


@dataclass(frozen=True)
class ClipToMeasure:
    """One decoded clip (16 kHz mono), the text sent for it, and the voice it should sound like."""

    samples: np.ndarray
    text: str
    reference_audio: Path | None = None


@dataclass
class QualityMeter:
    """Computes the chosen sets' measures; models load on first use and are shared within the process."""

    sets: tuple[str, ...]
    #: how DNSMOS cuts a clip into model inputs: ``clip`` or ``reference`` (see dnsmos.py)
    dnsmos_windowing: str = DEFAULT_DNSMOS_WINDOWING
    _references: dict[Path, np.ndarray | None] = field(default_factory=dict)

    def check_available(self) -> None:
        """Stop the run before anything is synthesized when a chosen set cannot run here (QualityUnavailable).

        DNSMOS is only looked for (packages and model files), not loaded: its models load on the
        worker with the first clip measured, so a rerun served from the cache never loads them.
        """
        if "dnsmos" in self.sets:
            from pytest_ttsbench.quality.dnsmos import check_available

            check_available(self.dnsmos_windowing)
        if "similarity" in self.sets:
            from pytest_ttsbench.quality.similarity import shared_encoder

            shared_encoder()

    @property
    def measure_names(self) -> list[str]:
        return measure_names(self.sets)

    def cache_identity(self) -> dict[str, object]:
        """What the figures of a clip depend on besides the clip: the sets, each set's model and
        versions (provenance), and the code that computes them, so a changed measure never reads
        figures an earlier version of it stored (quality entries in cache.py)."""
        return {"sets": list(self.sets), "models": self.provenance(), "code": _measuring_code_sha256()}

    def provenance(self) -> dict[str, str]:
        """Each chosen set's model and version, for the results rows and the gate file."""
        found: dict[str, str] = {}
        if "signal" in self.sets:
            found["signal"] = signal_provenance()
        if "dnsmos" in self.sets:
            from pytest_ttsbench.quality.dnsmos import dnsmos_provenance

            found["dnsmos"] = dnsmos_provenance(self.dnsmos_windowing)
        if "similarity" in self.sets:
            found["similarity"] = self._encoder.provenance
        return found

    @property
    def _dnsmos(self) -> Dnsmos:
        from pytest_ttsbench.quality.dnsmos import shared_dnsmos

        return shared_dnsmos(self.dnsmos_windowing)

    @property
    def _encoder(self) -> SpeakerEncoder:
        from pytest_ttsbench.quality.similarity import shared_encoder

        return shared_encoder()

    def measure(self, clip: ClipToMeasure) -> dict[str, float | None]:
        return self.measure_many([clip])[0]

    def measure_later(self, clip: ClipToMeasure) -> Future[dict[str, float | None]]:
        """Start measuring ``clip`` on the quality worker; ``.result()`` gives :meth:`measure`'s figures."""
        from pytest_ttsbench.quality.worker import measure_later

        return measure_later(self, clip)

    def measure_many(self, clips: Sequence[ClipToMeasure]) -> list[dict[str, float | None]]:
        """Figures per clip, in order, keyed by measure name; DNSMOS scores the clips as one batch."""
        figures: list[dict[str, float | None]] = [{} for _ in clips]
        if "dnsmos" in self.sets:
            for found, scores in zip(figures, self._dnsmos.score([c.samples for c in clips]), strict=True):
                found.update(scores)
        if "signal" in self.sets:
            from pytest_ttsbench.quality.waveform import signal_measures

            for found, clip in zip(figures, clips, strict=True):
                found.update(signal_measures(clip.samples, ASR_SAMPLE_RATE, clip.text))
        if "similarity" in self.sets:
            from pytest_ttsbench.quality.similarity import cosine

            for found, clip in zip(figures, clips, strict=True):
                reference = self._reference(clip.reference_audio)
                found["speaker_similarity"] = cosine(self._encoder.embed(clip.samples), reference)
        order = self.measure_names
        return [{name: found.get(name) for name in order} for found in figures]

    def _reference(self, path: Path | None) -> np.ndarray | None:
        if path is None:
            return None
        if path not in self._references:
            self._references[path] = self._encoder.embed_file(path)
        return self._references[path]


@cache
def _measuring_code_sha256() -> str:
    """The SHA-256 of the modules that decode and measure a clip, read once per process."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    measuring = ("meter.py", "measures.py", "waveform.py", "dnsmos.py", "similarity.py")
    for path in (here.parent / "audio" / "decoding.py", *(here / name for name in measuring)):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@cache  # asked for every row; importlib.metadata reads the installed distributions each time
def signal_provenance() -> str:
    """The signal measures' libraries (quality/waveform.py), named without importing them: a rerun
    whose every figure is cached keys its cache reads on this and loads neither."""
    return f"numpy {version('numpy')} frame RMS; pyloudnorm {version('pyloudnorm')} (ITU-R BS.1770-4)"
