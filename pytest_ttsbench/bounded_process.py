"""Running a program with its output bounded: a timeout, a cap on standard output, the end of standard error.

Shared by the ``command`` engine and the ``command`` ASR route. The program runs without a
shell, in its own process group, so a timeout or an over-size output ends its children too.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from pytest_ttsbench.limits import MAX_STDERR_BYTES


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
    """Run ``argv``; raises OSError when it cannot start (the caller words the message)."""
    start = time.perf_counter()
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
    stderr_tail = bytearray()
    reader = threading.Thread(target=_drain_tail, args=(proc.stderr, stderr_tail), daemon=True)
    reader.start()
    timed_out = threading.Event()

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def on_timeout() -> None:
        timed_out.set()
        kill()

    timer = threading.Timer(timeout_s, on_timeout)
    timer.start()
    chunks: list[bytes] = []
    size = 0
    first: float | None = None
    too_large = False
    try:
        # The stdout pipe is a BufferedReader: read1 returns as soon as some bytes arrive.
        while chunk := cast(io.BufferedReader, proc.stdout).read1(65536):
            if first is None:
                first = time.perf_counter() - start
            size += len(chunk)
            if size > max_stdout_bytes:
                too_large = True
                kill()
                break
            chunks.append(chunk)
        code = proc.wait()
    finally:
        timer.cancel()
        proc.stdout.close()
    reader.join(timeout=5)
    return ProcessOutcome(
        code=None if (too_large or timed_out.is_set()) else code,
        stdout=b"" if too_large else b"".join(chunks),
        stderr=bytes(stderr_tail),
        first_byte_seconds=first,
        seconds=time.perf_counter() - start,
        timed_out=timed_out.is_set(),
        too_large=too_large,
    )


def _drain_tail(stream: IO[bytes], tail: bytearray) -> None:
    """Read a pipe to its end (a full pipe would block the program), keeping only its last bytes."""
    try:
        while chunk := stream.read(65536):
            tail.extend(chunk)
            if len(tail) > MAX_STDERR_BYTES:
                del tail[: len(tail) - MAX_STDERR_BYTES]
    finally:
        stream.close()
