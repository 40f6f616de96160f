"""Run folders are reserved atomically: runs started in the same second never share one (issue 22, failure 12).

The clock is frozen on one second for every reservation, so the test does not depend on timing:
on a checking-then-creating implementation every thread is handed the same folder.
"""

from __future__ import annotations

import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pytest_ttsbench.session import benchmark as session

_SECOND = datetime(2026, 12, 1, 14, 0, 0, tzinfo=timezone.utc)


class _FrozenClock(datetime):
    @classmethod
    def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
        return _SECOND


def _reserve_in_frozen_second(base: str) -> str:
    """One reservation with the clock frozen (runs in a worker process, so it patches its own module)."""
    session.datetime = _FrozenClock  # type: ignore[misc]
    return str(session.default_run_dir(Path(base), "runs", ["piper", "espeak"]))


def test_concurrent_runs_in_one_second_each_get_their_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session, "datetime", _FrozenClock)
    runners = 12
    start = threading.Barrier(runners)

    def reserve() -> Path:
        start.wait()  # all at once: the race the exists()-then-mkdir check lost
        return session.default_run_dir(tmp_path, "runs", ["piper", "espeak"])

    with ThreadPoolExecutor(runners) as pool:
        folders = list(pool.map(lambda _: reserve(), range(runners)))

    assert len(set(folders)) == runners
    assert all(folder.is_dir() for folder in folders)  # reserved, not merely named
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == sorted(f.name for f in folders)
    first = min(folders, key=lambda f: len(f.name))
    assert first.name.startswith("20261201T140000Z-")
    assert sorted(f.name for f in folders) == sorted(
        [first.name] + [f"{first.name}-{n}" for n in range(2, runners + 1)]
    )


def test_runs_in_separate_processes_in_one_second_each_get_their_own_folder(tmp_path: Path) -> None:
    with ProcessPoolExecutor(4) as pool:
        folders = list(pool.map(_reserve_in_frozen_second, [str(tmp_path)] * 8))
    assert len(set(folders)) == 8
    assert all(Path(folder).is_dir() for folder in folders)


def test_a_folder_left_by_an_earlier_run_is_never_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "datetime", _FrozenClock)
    first = session.default_run_dir(tmp_path, "runs", ["piper"])
    (first / "results.jsonl").write_text("kept\n", encoding="utf-8")
    second = session.default_run_dir(tmp_path, "runs", ["piper"])
    assert second != first and second.name == f"{first.name}-2"
    assert (first / "results.jsonl").read_text(encoding="utf-8") == "kept\n"
