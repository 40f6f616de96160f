"""The cache folder: entries round-trip, damage is a miss, concurrent writers never corrupt, LRU pruning."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from pytest_ttsbench.support.cache import CachedAudio, CachedTranscript, ClipCache

KEY = "5e" * 32


def _clip(seed: int, size: int = 200_000) -> CachedAudio:
    # Large enough that a write is many system calls: a torn write would show.
    body = hashlib.sha256(str(seed).encode()).digest() * (size // 32)
    return CachedAudio(body, "audio/wav", None, {"seed": seed})


def test_entries_round_trip(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path)
    cache.put_audio(KEY, _clip(1))
    cache.put_transcript(KEY, CachedTranscript("heard 2026", ("whisper:base:repetition",), "en", {"tokens": 3}))
    assert cache.get_audio(KEY) == _clip(1)
    heard = cache.get_transcript(KEY)
    assert heard is not None and heard.text == "heard 2026" and heard.flags == ("whisper:base:repetition",)
    assert cache.get_audio("00" * 32) is None


@pytest.mark.parametrize(
    ("mode", "reads", "writes"), [("off", False, False), ("read", True, False), ("write", False, True)]
)
def test_modes(tmp_path: Path, mode: str, reads: bool, writes: bool) -> None:
    ClipCache(tmp_path).put_audio(KEY, _clip(1))
    limited = ClipCache(tmp_path, mode)
    assert (limited.get_audio(KEY) is not None) is reads
    limited.put_audio("77" * 32, _clip(2))
    assert (ClipCache(tmp_path).get_audio("77" * 32) is not None) is writes


def test_damaged_audio_is_a_miss_not_a_wrong_clip(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path)
    cache.put_audio(KEY, _clip(1))
    (audio,) = (tmp_path / "audio").rglob("*.clip")
    audio.write_bytes(audio.read_bytes()[:1000])  # cut short behind the cache's back
    assert cache.get_audio(KEY) is None


def _writer(root: str, seed: int, rounds: int) -> None:
    cache = ClipCache(Path(root))
    for n in range(rounds):
        cache.put_audio(KEY, _clip(seed * 1000 + n))
        cache.put_transcript(KEY, CachedTranscript(f"text {seed}-{n}" * 50, (), "en", {}))


def _reader(root: str, rounds: int, queue: multiprocessing.Queue) -> None:
    """The entries exist before the readers start: each read must find a whole entry, old or new."""
    cache = ClipCache(Path(root))
    bad = 0
    for _ in range(rounds):
        entry = cache.get_audio(KEY)
        bad += entry is None or entry.audio != _clip(int(entry.metadata["seed"])).audio
        heard = cache.get_transcript(KEY)
        bad += heard is None or not heard.text.startswith("text ")
    queue.put(bad)


def test_concurrent_writers_never_leave_a_torn_entry(tmp_path: Path) -> None:
    _writer(str(tmp_path), 0, 1)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    writers = [context.Process(target=_writer, args=(str(tmp_path), seed, 40)) for seed in range(1, 5)]
    readers = [context.Process(target=_reader, args=(str(tmp_path), 300, queue)) for _ in range(2)]
    for process in writers + readers:
        process.start()
    for process in writers + readers:
        process.join(timeout=240)
        assert process.exitcode == 0
    assert [queue.get(timeout=10) for _ in readers] == [0, 0]
    # Every entry on disk is complete and consistent, and no temporary file is left behind.
    final = ClipCache(tmp_path).get_audio(KEY)
    assert final is not None and final.audio == _clip(int(final.metadata["seed"])).audio
    assert [p.name for p in tmp_path.rglob(".*")] == []


def test_prune_drops_the_least_recently_used_first(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path)
    keys = [f"{n:02d}" * 32 for n in range(4)]
    for n, key in enumerate(keys):
        cache.put_audio(key, _clip(n, 10_000))
        past = time.time() - 1000 + n * 10
        os.utime(next((tmp_path / "audio").rglob(f"{key}.*")), (past, past))
    assert cache.get_audio(keys[0]) is not None  # reading makes the oldest the most recent
    size = cache.stats().total_bytes
    removed, freed = cache.prune(size // 2 + 1)
    assert removed == 2 and freed > 0
    assert [cache.get_audio(k) is not None for k in keys] == [True, False, False, True]
    assert cache.stats().audio_entries == 2
