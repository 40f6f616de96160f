"""A run's own outputs that the file system refused: the one place such a failure is caught and told.

The results file, the run header, the gate file and the manifest are what a run is for. A folder
that cannot be written at all is refused before the run, as a usage error (exit 4, see
``session/option_paths.py``). A write that fails once the run has started (a full disk, a folder
made read-only, an I/O error) is caught here instead of escaping a pytest hook as an INTERNALERROR
traceback with pytest's exit status 1, which a sharded workflow reads as a failed gate:

- the rows measured stay in memory, later writes of the run's outputs are not attempted, and the
  session stops after the test running (no more work whose rows cannot be kept);
- the gate fails, saying why, and the run ends with pytest's status for an internal error, 3;
- one line names the path and the error (``ttsbench: internal error: cannot write PATH: [Errno
  28] No space left on device``).

Writes that are an optimisation (the cache) or belong to one item (a kept clip) are not caught
here: the cache counts its failures and goes on (support/cache.py); a clip that cannot be kept
fails its item (pipeline/evaluator.py).

SIGTERM (a CI job cancelled) is made to end the run as Ctrl-C does (:func:`stop_on_sigterm`): the
rows written stay, the gate file is written with ``passed: false``, and the engines are closed, so
every ``persistent: true`` command worker's process group is stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from pytest_ttsbench.support.atomic_files import refused_write
from pytest_ttsbench.support.outside_text import shown

#: pytest's exit status for an internal error
INTERNAL_ERROR = 3


@dataclass
class OutputFailures:
    """The first failed write of the run's outputs (None: none failed)."""

    first: str | None = None
    told: bool = False

    @property
    def failed(self) -> bool:
        return self.first is not None

    @contextlib.contextmanager
    def writing(self, path: Path | None) -> Iterator[None]:
        """Run a write of ``path``; an ``OSError`` is kept as the run's failure (the first one), not raised."""
        try:
            yield
        except OSError as exc:
            if self.first is None:
                self.first = refused_write(path or "", exc)

    def reason(self) -> str:
        """Why the gate cannot pass, for the gate file and the terminal."""
        return f"the run's outputs could not be written ({self.first}): the run is incomplete"

    def tell(self) -> None:
        """The one line on stderr, once."""
        if self.first is not None and not self.told:
            self.told = True
            sys.stderr.write(f"ttsbench: internal error: {shown(self.first)}\n")
            sys.stderr.flush()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def stop_on_sigterm() -> Any:
    """From now on SIGTERM interrupts the run as Ctrl-C does (its rows, gate file and engines closed);
    returns the handler it replaced, for :func:`restore_sigterm` (None when it replaced none).

    Only in the main thread, and only where SIGTERM still has its default action: a handler the
    user or another plugin installed is left alone.
    """
    if threading.current_thread() is not threading.main_thread() or os.name != "posix":
        return None
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    signal.signal(signal.SIGTERM, _interrupt)
    return signal.SIG_DFL


def restore_sigterm(previous: Any) -> None:
    """Put back the SIGTERM handler :func:`stop_on_sigterm` replaced (nothing when it replaced none)."""
    main = threading.current_thread() is threading.main_thread()
    if previous is not None and main and signal.getsignal(signal.SIGTERM) is _interrupt:
        signal.signal(signal.SIGTERM, previous)


def _after_the_run(signum: int, frame: FrameType | None) -> None:
    """A signal once the run's files are written: its work is on disk, so the signal changes nothing."""


def hold_signals() -> dict[int, Any]:
    """From the gate's files written to the session's close, SIGINT and SIGTERM are let pass: raised
    then, they would only tear the summary and end the process with a traceback (exit -2), over a
    run already complete. Returns the handlers replaced, for :func:`release_signals`."""
    if threading.current_thread() is not threading.main_thread() or os.name != "posix":
        return {}
    return {signum: signal.signal(signum, _after_the_run) for signum in (signal.SIGINT, signal.SIGTERM)}


def release_signals(held: dict[int, Any]) -> None:
    """Put back what :func:`hold_signals` replaced."""
    for signum, handler in held.items():
        signal.signal(signum, handler)
