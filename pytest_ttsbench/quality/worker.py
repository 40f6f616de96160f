"""Where a clip's quality figures are computed: off the test's critical path, one clip after another.

The pipeline hands a clip to :func:`measure_later` the moment it is synthesized (in the prefetch
pool, several items ahead of its test) and joins the future just before the clip's row is
built, so the figures are computed while earlier items are transcribed and every row still
carries them. Two kinds of worker do it:

``thread``
    One thread of this process. onnxruntime and CTranslate2 release the GIL (DNSMOS's time is
    almost all the P.835 model's convolutions), so DNSMOS runs beside Whisper. The models load
    there with the first clip measured, so a run whose figures all come from the cache never
    loads them.
``process``
    One spawned process holding its own copy of the models: no GIL shared with the test thread,
    at the price of its start-up (an interpreter, numpy and onnxruntime) and of pickling each
    clip's samples across.

Which is used is :data:`WORKER_KIND` (``TTSBENCH_QUALITY_WORKER`` overrides it, and
``TTSBENCH_QUALITY_NICE`` the worker's nice value, for the benchmark that compares them:
``benchmarks/quality_overhead.py --workers-compared``). On this project's two cores (the 51-item
main job, load 12 from other jobs) the thread at the tests' own priority came out best: the tests
waited 0.8 s in all for figures, against 1.7 s with a process, which also cost 3 s more CPU (its
own interpreter and imports), and 42 s with the thread niced by 10. A niced worker yields to
everything else on the machine, so when a test does need its figures the worker is the last to
get a core; the thread un-niced takes its fair share, and DNSMOS's one onnxruntime thread leaves
Whisper the other core.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol


class QualityMeter(Protocol):
    """What the worker needs of :class:`~pytest_ttsbench.quality.meter.QualityMeter` (named here, not
    imported: the meter starts the worker, so the worker must not import the meter)."""

    sets: tuple[str, ...]
    dnsmos_windowing: str

    def measure(self, clip: Any) -> dict[str, float | None]: ...


#: a :class:`~pytest_ttsbench.quality.meter.ClipToMeasure`
ClipToMeasure = Any

WORKER_KINDS = ("thread", "process")
#: the kind a run uses unless ``TTSBENCH_QUALITY_WORKER`` says otherwise
WORKER_KIND = "thread"
#: the nice value the worker adds to its own (0: none, see above); ``TTSBENCH_QUALITY_NICE`` overrides it
WORKER_NICE = 0


def worker_kind() -> str:
    kind = os.environ.get("TTSBENCH_QUALITY_WORKER", WORKER_KIND)
    if kind not in WORKER_KINDS:
        raise ValueError(f"TTSBENCH_QUALITY_WORKER must be one of {', '.join(WORKER_KINDS)}, not {kind!r}")
    return kind


def worker_nice() -> int:
    return int(os.environ.get("TTSBENCH_QUALITY_NICE", WORKER_NICE))


def measure_later(meter: QualityMeter, clip: ClipToMeasure) -> Future[dict[str, float | None]]:
    """Start measuring ``clip`` on the worker; ``.result()`` gives ``meter.measure(clip)``'s figures."""
    kind = worker_kind()
    if kind == "process":
        return _worker(kind).submit(_measure_in_process, meter, clip)
    return _worker(kind).submit(meter.measure, clip)


@dataclass
class Waiting:
    """How long tests waited for figures still being computed: the measures' share of the critical path."""

    joins: int = 0
    waits: int = 0
    seconds: float = 0.0


#: this process's tally (read by benchmarks/quality_overhead.py)
WAITING = Waiting()


def join(pending: Future[dict[str, float | None]]) -> dict[str, float | None]:
    """The figures of a clip handed to :func:`measure_later` (or read from the cache), waiting for them if need be.

    The caller builds the clip's row only after this returns, so a row never goes out without
    its figures: an interrupt while waiting stops the row from being written at all.
    """
    WAITING.joins += 1
    if pending.done():
        return pending.result()
    started = time.perf_counter()
    try:
        return pending.result()
    finally:
        WAITING.waits += 1
        WAITING.seconds += time.perf_counter() - started


_meters: dict[tuple[tuple[str, ...], str], QualityMeter] = {}


def _measure_in_process(meter: QualityMeter, clip: ClipToMeasure) -> dict[str, float | None]:
    """In a process worker: the figures of one clip, by the worker's own meter for these sets (each
    clip brings a fresh copy of the caller's; the reference voices embedded stay with the first)."""
    return _meters.setdefault((meter.sets, meter.dnsmos_windowing), meter).measure(clip)


def _lower_priority() -> None:
    """Lower the worker's priority by the nice value set (none by default: see the module's note)."""
    nice = worker_nice()
    if nice <= 0:
        return
    import contextlib
    import threading

    with contextlib.suppress(AttributeError, OSError):  # another system, or not permitted: CPU shared alike
        # Linux applies a thread's nice value to that thread alone (a process worker's main thread).
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(os.getpriority(os.PRIO_PROCESS, 0) + nice, 19))


@cache
def _worker(kind: str) -> Executor:
    """One worker per process and kind: clips are measured one after another, each beside the next step."""
    if kind == "process":
        import atexit
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor  # imports multiprocessing: only when asked for

        # spawn, not fork: the test process runs Whisper's and the prefetch pool's threads.
        pool = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority
        )
        atexit.register(pool.shutdown)  # while the interpreter is whole: left to its teardown, it complains
        return pool
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttsbench-quality", initializer=_lower_priority)
