"""One BLAS thread in a run's process: numpy's matrix products here are small, and OpenBLAS's
idle threads spin on the cores Whisper and DNSMOS compute on.

The products are a clip's mel filterbank (a few hundred frames by 201 or 161 bins by 80 or 120
bands: faster-whisper's features, DNSMOS's P.808 input). OpenBLAS, left to itself, runs each on a
thread per core, and its threads wait for the next one spinning. Beside CTranslate2's threads
(Whisper) and onnxruntime's (DNSMOS) that spinning is CPU taken from them: scoring the 51 clips of
the main job with DNSMOS took 12.8 s of CPU for 7.6 s of work, 7.6 s with one BLAS thread, and
the main job with ``dnsmos,signal`` spent about 6 CPU seconds less (#28, on 2 cores).

The limit is set with threadpoolctl on the BLAS libraries already loaded, when Whisper or DNSMOS
loads its model (both import numpy first), and only in this process: the environment, and so the
engines' and recognizers' own processes, are left as they are. ``TTSBENCH_BLAS_THREADS`` sets
another number; ``0`` leaves BLAS as it is.
"""

from __future__ import annotations

import os

BLAS_THREADS_ENV = "TTSBENCH_BLAS_THREADS"
DEFAULT_BLAS_THREADS = 1


def blas_threads() -> int:
    """The BLAS threads a run uses (0: as BLAS decides), from ``TTSBENCH_BLAS_THREADS``."""
    text = os.environ.get(BLAS_THREADS_ENV, str(DEFAULT_BLAS_THREADS))
    try:
        threads = int(text)
    except ValueError:
        raise ValueError(
            f"{BLAS_THREADS_ENV} must be a whole number of threads (0: BLAS decides), not {text!r}"
        ) from None
    if threads < 0:
        raise ValueError(f"{BLAS_THREADS_ENV} must be 0 or more, not {threads}")
    return threads


def limit_blas_threads() -> None:
    """Hold every BLAS library loaded now to :func:`blas_threads` threads (once more for one loaded since)."""
    threads = blas_threads()
    if threads == 0:
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads, user_api="blas")
