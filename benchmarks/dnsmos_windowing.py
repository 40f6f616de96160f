"""How far DNSMOS's ``clip`` windowing moves the figures from Microsoft's reference windowing.

Run: ``python benchmarks/dnsmos_windowing.py [--suite cases/en-numerals.yaml] [--engine espeak]``.
Synthesizes every item of the suite with the engine (English items only), scores each clip
with both windowings, and prints per measure the mean difference (clip − reference), the mean
absolute difference and Pearson's r between the two. For scale it also scores each clip under
the reference windowing once more with 10 ms of silence put before it: how much the reference
moves for a change no listener hears. Last, the CPU seconds each windowing took.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.config import BUILTIN_PROFILES, EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.registry import create_engine
from pytest_ttsbench.quality.dnsmos import SAMPLE_RATE, Dnsmos

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "dnsmos_p808")


def clips(suite: Path, engine_name: str) -> list[np.ndarray]:
    spec = dict(BUILTIN_PROFILES[engine_name])
    profile = EngineProfile(name=engine_name, type=spec.pop("type"), voice=spec.pop("voice", None), options=spec)
    engine = create_engine(profile)
    try:
        items = [item for item in load_case_file(suite).items if item.language == "en"]
        requests = [SynthesisRequest(i.text, "en", profile.voice_for("en"), i.full_id) for i in items]
        return [decode_audio(engine.synthesize(request).audio).samples for request in requests]
    finally:
        engine.close()


def scored(dnsmos: Dnsmos, samples: list[np.ndarray]) -> tuple[np.ndarray, float]:
    started = time.process_time()
    figures = dnsmos.score(samples)
    return np.array([[f[name] for name in NAMES] for f in figures], dtype=float), time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "cases" / "en-numerals.yaml")
    parser.add_argument("--engine", default="espeak", choices=sorted(BUILTIN_PROFILES))
    args = parser.parse_args()
    samples = clips(args.suite, args.engine)
    shifted = [np.concatenate([np.zeros(SAMPLE_RATE // 100, np.float32), s]) for s in samples]
    clip, clip_cpu = scored(Dnsmos(windowing="clip"), samples)
    reference_dnsmos = Dnsmos(windowing="reference")
    reference, reference_cpu = scored(reference_dnsmos, samples)
    moved, _ = scored(reference_dnsmos, shifted)
    seconds = sum(s.size for s in samples) / SAMPLE_RATE
    print(f"{len(samples)} {args.engine} clips of {args.suite.name}, {seconds / len(samples):.2f} s on average")
    header = f"{'measure':<12} {'clip-ref mean':>13} {'|clip-ref|':>10} {'r':>6}"
    print(f"{header}   {'ref moved by 10 ms: |d|':>24} {'r':>6}")
    for column, name in enumerate(NAMES):
        difference = clip[:, column] - reference[:, column]
        drift = moved[:, column] - reference[:, column]
        print(
            f"{name:<12} {difference.mean():>+13.3f} {np.abs(difference).mean():>10.3f} "
            f"{pearsonr(clip[:, column], reference[:, column])[0]:>6.2f}   "
            f"{np.abs(drift).mean():>24.3f} {pearsonr(moved[:, column], reference[:, column])[0]:>6.2f}"
        )
    print(
        f"CPU: clip {clip_cpu:.1f} s, reference {reference_cpu:.1f} s "
        f"(ratio {reference_cpu / clip_cpu:.1f}); {clip_cpu / seconds:.3f} s per second of audio with clip"
    )


if __name__ == "__main__":
    main()
