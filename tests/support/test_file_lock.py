"""support/file_lock.py: one holder at a time, the holder named to whoever is refused, nothing left behind.

The claims race in real processes (flock is the operating system's, so threads of one process
would prove less); each holder logs when it enters and leaves, and the log must show no overlap.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from disk_faults import fill, small_tmpfs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ttsbench.support.file_lock import FileClaimed, claim_file

HOLD_UNTIL_TOLD = """\
import sys, time
from pathlib import Path
from pytest_ttsbench.support.file_lock import claim_file
claim = claim_file(Path(sys.argv[1]), "the test's holder")
print("held", flush=True)
while not Path(sys.argv[2]).exists():
    time.sleep(0.02)
if sys.argv[3] == "release":
    claim.release()
# "die": the process ends holding the claim, as a killed run does
"""


def _holder(lock: Path, go: Path, ending: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_UNTIL_TOLD, str(lock), str(go), ending], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


@pytest.mark.parametrize("ending", ["release", "die"])
def test_a_second_claim_is_refused_naming_the_holder_until_the_holder_is_gone(tmp_path: Path, ending: str) -> None:
    lock, go = tmp_path / "runs" / ".results.jsonl.lock", tmp_path / "go"
    child = _holder(lock, go, ending)
    try:
        with pytest.raises(FileClaimed) as refused:
            claim_file(lock, "second")
        assert refused.value.lock_path == lock
        assert f"process {child.pid}" in refused.value.holder and "the test's holder" in refused.value.holder
    finally:
        go.touch()
        child.wait(timeout=30)
    assert lock.exists() == (ending == "die")  # a released claim leaves nothing; a dead holder's file stays...
    claim = claim_file(lock, "second")  # ...and never blocks the next claim
    assert json.loads(lock.read_text(encoding="utf-8"))["pid"] == os.getpid()
    claim.release()
    claim.release()  # idempotent
    assert not lock.exists() and not claim.held


def test_two_claims_in_one_process_exclude_each_other(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    first = claim_file(lock)
    with pytest.raises(FileClaimed, match=f"process {os.getpid()}"):
        claim_file(lock)
    first.release()
    claim_file(lock).release()


def test_a_holders_line_still_being_written_is_reported_as_another_process(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    first = claim_file(lock)
    lock.write_text("", encoding="utf-8")  # as if the holder had not written its line yet
    with pytest.raises(FileClaimed) as refused:
        claim_file(lock)
    assert refused.value.holder == "another process"
    first.release()


_start: Any = None


def _share_start(barrier: Any) -> None:
    global _start
    _start = barrier  # a barrier reaches pool workers only through their initializer


def _contend(lock: str, log: str, rounds: int, hold_s: float) -> int:
    """Claim ``rounds`` times (retrying while refused); log enter/leave around each hold."""
    _start.wait()
    held = 0
    while held < rounds:
        try:
            claim = claim_file(Path(lock))
        except FileClaimed:
            time.sleep(0.0005)
            continue
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"enter {os.getpid()}\n")
        time.sleep(hold_s)
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"leave {os.getpid()}\n")
        claim.release()  # removes the file while held: the race the inode check closes
        held += 1
    return held


# Many short holds: the window between a claimant's open and its lock, in which a releasing holder
# removes the file, is a few microseconds, and only hundreds of hand-overs cross it reliably.
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claimants=st.integers(3, 4), rounds=st.integers(120, 200), hold_ms=st.sampled_from([0.0, 0.05]))
def test_concurrent_claimants_never_hold_at_once(tmp_path: Path, claimants: int, rounds: int, hold_ms: float) -> None:
    folder = tmp_path / f"c{claimants}-r{rounds}-h{hold_ms}-{time.monotonic_ns()}"
    folder.mkdir()
    lock, log = folder / ".results.jsonl.lock", folder / "log"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(claimants)
    with context.Pool(claimants, initializer=_share_start, initargs=(barrier,)) as pool:
        done = pool.starmap(_contend, [(str(lock), str(log), rounds, hold_ms / 1000)] * claimants)
    assert done == [rounds] * claimants
    events = log.read_text(encoding="utf-8").splitlines()
    assert len(events) == 2 * rounds * claimants
    assert events[0::2] == [e.replace("leave", "enter") for e in events[1::2]]  # enter, leave, enter, leave…
    assert not lock.exists()


def test_a_claim_refused_by_a_full_disk_leaves_no_lock_file(tmp_path: Path) -> None:
    """The file system takes the lock file's name but not its line: the claim fails with ENOSPC, as it
    came, and leaves no empty lock file beside the results."""
    with small_tmpfs(tmp_path / "full", size_kb=16) as folder:
        fill(folder, leave_bytes=0)
        lock = folder / "results.jsonl.lock"
        with pytest.raises(OSError) as raised:
            claim_file(lock, "a run")
        assert raised.value.errno == errno.ENOSPC
        assert not lock.exists()
