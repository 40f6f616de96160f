"""Synthesis ahead of the tests: a bounded thread pool per engine.

Tests run one after another, but a cloud engine answers in 0.3–3 s and allows several requests
at once. So while a test transcribes its clip, the clips of the next tests are already being
synthesized: each engine gets a pool as wide as its ``concurrency`` (an adapter's own limit;
one for engines that are not safe to call from several threads), and the adapter's rate limiter
(``requests_per_second``) paces the requests the pool makes. At most ``window`` clips per engine
are in flight or waiting to be used, so memory stays flat however many items a run has.

A job never raises: whatever went wrong is in the outcome it returns, and the test that uses the
clip records it like any other failed synthesis, so a failure mid-run loses nothing.

A route that transcribes several items' clips together (asr/batching.py) *claims* the clips that
are done: they wait for their tests outside the window, so synthesis goes on ahead of them, and
such an engine's window is at least ``min_window`` (two batches), so a batch finds its clips ready.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

Outcome = TypeVar("Outcome")


class SynthesisPool(Generic[Outcome]):
    """Jobs keyed by clip, run ahead of the test that needs them, on one bounded pool per engine."""

    def __init__(
        self,
        workers_for: Callable[[str], int],
        window_factor: int = 2,
        min_window: Callable[[str], int] | None = None,
    ) -> None:
        self._workers_for = workers_for
        self._window_factor = window_factor
        self._min_window = min_window
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._windows: dict[str, int] = {}
        self._pending: dict[Hashable, Future[Outcome]] = {}
        self._engine_of: dict[Hashable, str] = {}
        self._claimed: dict[Hashable, tuple[str, Outcome]] = {}  # done, waiting for their tests
        self._lock = threading.Lock()

    def _pool(self, engine: str) -> ThreadPoolExecutor:
        if engine not in self._pools:
            workers = max(1, int(self._workers_for(engine)))
            self._pools[engine] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"ttsbench-{engine}")
            # Enough queued work to keep every worker busy while the test thread consumes clips.
            self._windows[engine] = workers * self._window_factor + 1
            if self._min_window is not None:
                self._windows[engine] = max(self._windows[engine], int(self._min_window(engine)))
        return self._pools[engine]

    def has_room(self, engine: str) -> bool:
        """Whether another job for ``engine`` fits in its window."""
        self._pool(engine)
        with self._lock:
            held = sum(1 for name in self._engine_of.values() if name == engine)
        return held < self._windows[engine]

    def submit(self, key: Hashable, engine: str, job: Callable[[], Outcome], force: bool = False) -> bool:
        """Start ``job`` for ``key`` unless it is started already or (unless ``force``) the window is full."""
        with self._lock:
            if key in self._pending or key in self._claimed:
                return False
        if not force and not self.has_room(engine):
            return False
        future = self._pool(engine).submit(job)
        with self._lock:
            self._pending[key] = future
            self._engine_of[key] = engine
        return True

    def run(self, key: Hashable, engine: str, job: Callable[[], Outcome]) -> Outcome:
        """The outcome of ``key``'s job, started now on the engine's pool unless it was started ahead.

        Every call to an engine goes through its pool, so an engine whose pool is one thread wide
        is never called from two threads at once, prefetching or not.
        """
        self.submit(key, engine, job, force=True)
        outcome = self.take(key)
        assert outcome is not None  # submitted just now, or earlier
        return outcome

    def take(self, key: Hashable) -> Outcome | None:
        """The outcome of ``key``'s job (waiting for it when it is still running), or None when none was started."""
        with self._lock:
            claimed = self._claimed.pop(key, None)
            if claimed is not None:
                return claimed[1]
            future = self._pending.pop(key, None)
            self._engine_of.pop(key, None)
        return None if future is None else future.result()

    def claim_ready(self, engine: str) -> list[tuple[Hashable, Outcome]]:
        """The outcomes of ``engine``'s jobs that are done and not taken yet, in the order they were
        submitted; they stay here for their tests (:meth:`take`), out of the window.

        A job that raised (a bug) is left for its own test to raise.
        """
        with self._lock:
            done = [
                key
                for key, future in self._pending.items()
                if self._engine_of[key] == engine and future.done() and not future.cancelled()
                if future.exception() is None
            ]
            for key in done:
                self._claimed[key] = (engine, self._pending.pop(key).result())
                del self._engine_of[key]
            return [(key, outcome) for key, (owner, outcome) in self._claimed.items() if owner == engine]

    def close(self) -> None:
        """Drop jobs not started yet and wait for running ones (their requests are already paid for)."""
        with self._lock:
            pending = list(self._pending.values())
            self._pending.clear()
            self._engine_of.clear()
            self._claimed.clear()
        for future in pending:
            future.cancel()
        for pool in self._pools.values():
            pool.shutdown(wait=True, cancel_futures=True)
        self._pools.clear()
