"""What the run header's weights hash costs: hashing a Whisper model's weights against the cached figure.

Run: ``python benchmarks/weights_hash.py [--models tiny.en base]``. For each model it times one
full SHA-256 of ``model.bin`` (a cold cache) and a header's later lookup (warm cache), both in
this run, and prints the ratio. The cache lives in a temporary folder, so nothing of the
machine's own cache is used or changed.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pytest_ttsbench.asr import models
from pytest_ttsbench.asr.models import resolve_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["tiny.en", "base"])
    parser.add_argument("--lookups", type=int, default=20, help="warm lookups to average")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "weights-sha256.json"
        models._cache_file = lambda: cache  # type: ignore[assignment]
        for name in args.models:
            folder = resolve_model(name)
            size = (folder / "model.bin").stat().st_size
            started = time.perf_counter()
            digest = models.weights_sha256(folder)
            cold = time.perf_counter() - started
            started = time.perf_counter()
            for _ in range(args.lookups):
                assert models.weights_sha256(folder) == digest
            warm = (time.perf_counter() - started) / args.lookups
            print(
                f"{name}: {size / 1e6:.0f} MB, full hash {1000 * cold:.0f} ms, cached lookup {1000 * warm:.2f} ms, "
                f"ratio {cold / warm:.0f}x ({digest[:12]})"
            )


if __name__ == "__main__":
    main()
