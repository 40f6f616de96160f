"""Synthesis ahead of the tests: a bounded pool per engine, and what happens when a clip fails in it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tts_providers import wav_bytes

from pytest_ttsbench.asr.base import Transcription
from pytest_ttsbench.cases.model import CaseItem, Target
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import EngineError, Synthesis, SynthesisRequest
from pytest_ttsbench.pipeline.evaluator import Evaluator, RunOptions
from pytest_ttsbench.pipeline.prefetch import SynthesisPool
from pytest_ttsbench.support.cache import ClipCache

# --- the pool on its own --------------------------------------------------------------------------


def test_the_window_bounds_what_is_queued_ahead() -> None:
    release = threading.Event()
    pool: SynthesisPool[int] = SynthesisPool(lambda engine: 2)
    accepted = [pool.submit(n, "e", lambda n=n: release.wait(10) and n) for n in range(12)]
    assert accepted == [True] * 5 + [False] * 7  # two workers, window 2 × 2 + 1
    assert pool.submit(0, "e", lambda: -1) is False  # already started: not asked twice
    release.set()
    assert [pool.take(n) for n in range(5)] == [0, 1, 2, 3, 4]
    assert pool.take(7) is None  # never started
    assert pool.submit(7, "e", lambda: 7) and pool.take(7) == 7
    pool.close()


def test_a_job_that_raises_fails_only_the_test_that_takes_it() -> None:
    pool: SynthesisPool[str] = SynthesisPool(lambda engine: 1)

    def broken() -> str:
        raise KeyError("adapter bug")

    pool.submit("bad", "e", broken)
    pool.submit("good", "e", lambda: "clip")
    with pytest.raises(KeyError, match="adapter bug"):
        pool.take("bad")
    assert pool.take("good") == "clip"
    assert pool.run("again", "e", lambda: "fine") == "fine"
    pool.close()


def test_close_drops_jobs_not_started() -> None:
    started: list[int] = []
    gate = threading.Event()
    pool: SynthesisPool[int] = SynthesisPool(lambda engine: 1, window_factor=10)

    def job(n: int) -> int:
        started.append(n)
        gate.wait(5)
        return n

    for n in range(6):
        pool.submit(n, "e", lambda n=n: job(n))
    time.sleep(0.2)
    threading.Timer(0.3, gate.set).start()
    pool.close()
    assert started == [0]


# --- the evaluator prefetching from a fake engine --------------------------------------------------


class CountingEngine:
    """Says every text as a tone whose length depends on the text; records how many calls overlap; fails on request."""

    def __init__(self, concurrency: int | None, delay: float = 0.15) -> None:
        if concurrency is not None:
            self.concurrency = concurrency
        self.name = "counting"
        self.delay = delay
        self.calls: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self._lock = threading.Lock()

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        with self._lock:
            self.calls.append(request.item_id)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            time.sleep(self.delay)
            if "refused" in request.text:
                raise EngineError("provider said 400: text refused")
            if "bug" in request.text:
                raise ZeroDivisionError("adapter bug")
            seconds = 0.8 + sum(map(ord, request.text)) % 50 / 100  # another text, another clip
            return Synthesis(wav_bytes(16_000, seconds), "audio/wav", metadata={"seed": request.seed})
        finally:
            with self._lock:
                self.running -= 1

    def close(self) -> None:
        pass


class HeardSeven:
    name = "fake-asr"

    def __init__(self) -> None:
        self.calls = 0

    def cache_identity(self, language: str) -> dict[str, str]:
        return {"type": "fake", "name": self.name}

    def transcribe(self, audio: object, language: str) -> Transcription:
        self.calls += 1
        return Transcription("seven, 7", 0.0)


def _item(n: int, text: str = "7") -> CaseItem:
    target = Target(span=None, category="digits", expect={"values": ["7"]})
    return CaseItem("demo", f"i{n}", "en", "numbers", "digits", text, {"values": ["7"]}, (target,))


def _evaluator(
    engine: CountingEngine, tmp_path: Path, cache: ClipCache | None = None, route: HeardSeven | None = None
) -> Evaluator:
    profile = EngineProfile(name="counting", type="counting")
    route = route or HeardSeven()
    options = RunOptions(audio_dir=tmp_path / "audio", cache=cache)
    return Evaluator({"counting": profile}, lambda p: [route], options, engines={"counting": engine})


def test_clips_are_synthesized_ahead_within_the_engine_concurrency(tmp_path: Path) -> None:
    engine = CountingEngine(concurrency=3)
    evaluator = _evaluator(engine, tmp_path)
    items = [_item(n) for n in range(9)]
    for item in items:
        evaluator.prefetch(item, "counting")
    rows = [evaluator.evaluate(item, item.targets[0], "counting") for item in items]
    evaluator.close()
    assert [row.verdict for row in rows] == ["correct"] * 9
    assert 2 <= engine.most_at_once <= 3
    assert sorted(engine.calls) == sorted(item.full_id for item in items)  # each clip asked for once


def test_a_failed_clip_in_the_pool_is_kept_with_its_reason_and_the_rest_go_on(tmp_path: Path) -> None:
    engine = CountingEngine(concurrency=2)
    evaluator = _evaluator(engine, tmp_path)
    items = [_item(0), _item(1, "refused 7"), _item(2)]
    for item in items:
        evaluator.prefetch(item, "counting")
    rows = [evaluator.evaluate(item, item.targets[0], "counting") for item in items]
    evaluator.close()
    assert [row.verdict for row in rows] == ["correct", "error", "correct"]
    assert rows[1].error == "synthesis failed: provider said 400: text refused"
    assert rows[1].synth_seconds is not None and rows[1].cache == {"audio": "off"}


def test_an_adapter_bug_in_the_pool_surfaces_in_its_own_test(tmp_path: Path) -> None:
    engine = CountingEngine(concurrency=2)
    evaluator = _evaluator(engine, tmp_path)
    buggy, fine = _item(0, "bug 7"), _item(1)
    evaluator.prefetch(buggy, "counting")
    evaluator.prefetch(fine, "counting")
    with pytest.raises(ZeroDivisionError, match="adapter bug"):
        evaluator.evaluate(buggy, buggy.targets[0], "counting")
    assert evaluator.evaluate(fine, fine.targets[0], "counting").verdict == "correct"
    evaluator.close()


def test_an_engine_that_declares_no_concurrency_is_never_called_twice_at_once(tmp_path: Path) -> None:
    engine = CountingEngine(concurrency=None, delay=0.05)
    evaluator = _evaluator(engine, tmp_path)
    items = [_item(n) for n in range(6)]
    for item in items[::2]:
        evaluator.prefetch(item, "counting")
    # The test thread asks for the others itself while the pool works on the prefetched ones.
    rows = [evaluator.evaluate(item, item.targets[0], "counting") for item in reversed(items)]
    evaluator.close()
    assert all(row.verdict == "correct" for row in rows) and engine.most_at_once == 1


def test_a_rerun_takes_clips_and_transcripts_from_the_cache(tmp_path: Path) -> None:
    items = [_item(n, f"7, item {n}") for n in range(3)]
    first_engine = CountingEngine(concurrency=2)
    first_engine.reproducible = True  # type: ignore[attr-defined]  # as a local engine declares
    first = _evaluator(first_engine, tmp_path / "run1", ClipCache(tmp_path / "cache"))
    cold = [first.evaluate(item, item.targets[0], "counting") for item in items]
    first.close()
    again, listener = CountingEngine(concurrency=2), HeardSeven()
    again.reproducible = True  # type: ignore[attr-defined]
    second = _evaluator(again, tmp_path / "run2", ClipCache(tmp_path / "cache"), listener)
    warm = [second.evaluate(item, item.targets[0], "counting") for item in items]
    second.close()
    assert [r.cache for r in cold] == [{"audio": "miss", "asr:fake-asr": "miss"}] * 3
    assert [r.cache for r in warm] == [{"audio": "hit", "asr:fake-asr": "hit"}] * 3
    assert again.calls == [] and listener.calls == 0  # nothing synthesized or transcribed again
    assert [r.transcript for r in warm] == [r.transcript for r in cold]
    assert [r.audio_sha256 for r in warm] == [r.audio_sha256 for r in cold]
    # the clip is still copied into the new run's own folder
    assert all(r.audio_path and Path(r.audio_path).is_relative_to(tmp_path / "run2") for r in warm)
    assert all(Path(r.audio_path).is_file() for r in warm if r.audio_path)
    assert [r.generation["seed"] for r in warm] == [r.generation["seed"] for r in cold]


def test_an_engine_that_is_not_reproducible_is_asked_again_but_its_transcripts_are_reused(tmp_path: Path) -> None:
    item = _item(0, "7, item 0")
    rows = []
    for _ in range(2):
        engine, listener = CountingEngine(concurrency=1), HeardSeven()
        evaluator = _evaluator(engine, tmp_path / "run", ClipCache(tmp_path / "cache"), listener)
        rows.append(evaluator.evaluate(item, item.targets[0], "counting"))
        evaluator.close()
        assert engine.calls == [item.full_id]  # the engine is asked every run
    # the same audio again: its transcript, keyed by the clip's SHA-256, is reused
    assert [row.cache for row in rows] == [{"audio": "fresh", "asr:fake-asr": s} for s in ("miss", "hit")]


def test_an_engine_that_reads_files_is_never_cached(tmp_path: Path) -> None:
    item = _item(0)
    for _ in range(2):
        engine = CountingEngine(concurrency=1)
        engine.cacheable = False  # type: ignore[attr-defined]
        evaluator = _evaluator(engine, tmp_path / "run", ClipCache(tmp_path / "cache"))
        row = evaluator.evaluate(item, item.targets[0], "counting")
        evaluator.close()
        assert engine.calls == [item.full_id] and row.cache["audio"] == "off"
    assert not (tmp_path / "cache" / "audio").exists()
