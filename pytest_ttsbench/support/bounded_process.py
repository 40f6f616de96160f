"""Running a program with its output bounded: a deadline, a cap on standard output, the end of standard error.

Shared by the ``command`` engine and the ``command`` ASR route. The program runs without a
shell, in its own process group, so a timeout or an over-size output ends its children too.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pytest_ttsbench.support.limits import MAX_STDERR_BYTES


@dataclass
class ProcessOutcome:
    """What a program did: its exit code (None when it was killed), output and timings."""

    code: int | None
    stdout: bytes
    stderr: bytes  # the last MAX_STDERR_BYTES only
    first_byte_seconds: float | None
    seconds: float
    timed_out: bool = False
    too_large: bool = False  # stdout crossed the cap and the program was killed


def run_bounded(
    argv: Sequence[str],
    *,
    timeout_s: float,
    max_stdout_bytes: int,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> ProcessOutcome:
    """Run ``argv``; raises OSError when it cannot start (the caller words the message).

    ``timeout_s`` is a deadline for the whole run: the program must have exited and closed its
    output by then. A program that exits but leaves a child holding its pipes open (a daemon
    that escaped its process group) would otherwise keep the read waiting; at the deadline its
    group is killed and the pipes are let go, whoever still holds them.
    """
    start = time.perf_counter()
    due = time.monotonic() + timeout_s
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so killing it ends its children too
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        read = _read_pipes(proc.stdout.fileno(), proc.stderr.fileno(), start, due, max_stdout_bytes)
        timed_out = read.timed_out
        if not (read.too_large or timed_out):
            try:  # the pipes are closed: the program has until the deadline to exit
                proc.wait(timeout=max(due - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                timed_out = True
        if read.too_large or timed_out:
            _kill_group(proc.pid)
        code = proc.wait()
    finally:
        proc.stdout.close()
        proc.stderr.close()
    return ProcessOutcome(
        code=None if (read.too_large or timed_out) else code,
        stdout=b"" if read.too_large else b"".join(read.chunks),
        stderr=bytes(read.stderr_tail),
        first_byte_seconds=read.first_byte_seconds,
        seconds=time.perf_counter() - start,
        timed_out=timed_out,
        too_large=read.too_large,
    )


@dataclass
class _PipeReading:
    """What was read from a program's two pipes, and why the reading stopped early if it did."""

    chunks: list[bytes] = field(default_factory=list)
    stderr_tail: bytearray = field(default_factory=bytearray)
    first_byte_seconds: float | None = None
    too_large: bool = False
    timed_out: bool = False


def _read_pipes(stdout: int, stderr: int, start: float, due: float, max_stdout_bytes: int) -> _PipeReading:
    """Read both pipes to their end, the stdout cap or the deadline, whichever comes first."""
    read = _PipeReading()
    size = 0
    selector = selectors.DefaultSelector()
    selector.register(stdout, selectors.EVENT_READ)
    selector.register(stderr, selectors.EVENT_READ)
    try:
        # Both pipes in one loop, so a full stderr pipe never blocks the program and no read
        # ever waits past the deadline.
        while selector.get_map():
            left = due - time.monotonic()
            if left <= 0:
                read.timed_out = True
                return read
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == stderr:
                    keep_tail(read.stderr_tail, chunk)
                else:
                    if read.first_byte_seconds is None:
                        read.first_byte_seconds = time.perf_counter() - start
                    size += len(chunk)
                    if size > max_stdout_bytes:
                        read.too_large = True
                        return read
                    read.chunks.append(chunk)
        return read
    finally:
        selector.close()


def _kill_group(pid: int) -> None:
    # The program leads its group (start_new_session), so this ends it and the children that stayed.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def keep_tail(tail: bytearray, chunk: bytes) -> None:
    """Add ``chunk`` to a standard-error tail, keeping only its last MAX_STDERR_BYTES."""
    tail.extend(chunk)
    del tail[: max(len(tail) - MAX_STDERR_BYTES, 0)]


def drain_tail(stream: IO[bytes], tail: bytearray) -> None:
    """Read a pipe to its end (a full pipe would block the program), keeping only its last bytes.

    For a long-lived program (the persistent ``command`` worker), read on a thread of its own.
    """
    try:
        while chunk := stream.read(65536):
            keep_tail(tail, chunk)
    finally:
        stream.close()
