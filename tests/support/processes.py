"""Child processes in tests: one way to run them to their end, and one way a failure shows what they printed.

A test that runs a command (``pytest`` in a project, ``ttsbench``, ``pip``, a probe script) calls
:func:`run`. It captures the output as text and, unless told which exit statuses the test expects,
fails on any but 0 with the command, its status and what it wrote to stdout and stderr; a test that
checks the status itself puts :func:`shown` in its assertion message, and one that reads a file the
child should have written gets it from :func:`written_by`. So a child that failed is never reported
as a missing file or a bare ``assert 1 == 0``. tests/architecture/test_test_processes.py keeps every
test on this module. (Long-lived children a test talks to while they run use ``subprocess.Popen``.)
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

#: how much of each stream an assertion message quotes (the end, where tracebacks and summaries are)
TAIL_CHARS = 6000


def _tail(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= TAIL_CHARS else f"[… {len(text) - TAIL_CHARS} characters before]\n{text[-TAIL_CHARS:]}"


def shown(done: subprocess.CompletedProcess[str]) -> str:
    """What a finished child did, for an assertion message: its command, exit status, stdout and stderr."""
    argv = done.args if isinstance(done.args, str) else " ".join(str(part) for part in done.args)
    return (
        f"\n$ {argv}\nexit status {done.returncode}\n"
        f"--- stdout ---\n{_tail(done.stdout)}\n--- stderr ---\n{_tail(done.stderr)}\n--- end ---"
    )


def run(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
    input: str | None = None,
    expect: int | Collection[int] | None = 0,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to its end with its output captured as text.

    ``expect``: the exit status (or statuses) the test needs; any other fails here, showing the
    output. ``None`` when the test checks the status itself (with :func:`shown` in its message).
    """
    done = subprocess.run(
        [str(part) for part in argv],
        cwd=cwd,
        env=None if env is None else dict(env),
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if expect is not None:
        wanted = {expect} if isinstance(expect, int) else set(expect)
        assert done.returncode in wanted, f"expected exit status {sorted(wanted)}{shown(done)}"
    return done


def written_by(done: subprocess.CompletedProcess[str], path: Path) -> Path:
    """``path``, which the finished child should have written; if it did not, fail showing what the child printed."""
    assert path.is_file(), f"{path} was not written{shown(done)}"
    return path
