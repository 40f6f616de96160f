"""The ``command`` engine's persistent mode: one long-lived program answering a request per line.

With ``persistent: true`` the profile's ``command`` is started once (per process, so once per
xdist worker) and a local model loads once, not once per clip. Each item is one JSON line on the
program's standard input::

    {"id": "suite/item", "text": "...", "language": "th", "voice": "somchai", "seed": 1234,
     "out": "/tmp/ttsbench-cmd-…/out.wav"}

and the program answers with one JSON line on its standard output, in order::

    {"out": "/tmp/ttsbench-cmd-…/out.wav"}          # the audio is written there (or any path it names)
    {"error": "text too long for this voice"}         # this item failed; the worker goes on
    {"out": "...", "metadata": {"model": "v3"}}      # optional facts for the row's generation record

Standard output lines that are not JSON objects (a library's progress print) are skipped.
Every request must be answered within ``timeout_s`` (the first after a start also gets
``startup_timeout_s`` for the model to load). A worker that exits, answers with something
else, or stays silent past the deadline is killed with its process group, the item becomes an
``error`` row saying so, and the next item starts a fresh worker: the run never hangs.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.support.bounded_process import drain_tail
from pytest_ttsbench.support.checked_numbers import NON_NEGATIVE
from pytest_ttsbench.support.json_documents import dump_json

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# One answer line is a path and a little metadata; a longer line is not an answer.
MAX_ANSWER_BYTES = 1 << 20
_SKIPPED_LINES_KEPT = 3


class WorkerFailure(RuntimeError):
    """An item the worker did not deliver: it reported an error, or it exited, hung or answered
    garbage (then it was stopped, and the next item starts it again)."""


@dataclass(frozen=True)
class WorkerAnswer:
    """What the worker said for one request: the audio's path, or the error it reported."""

    out: Path | None
    error: str | None
    metadata: dict[str, Any]
    seconds: float


_EOF = object()


def _read_lines(stream: IO[bytes], lines: queue.Queue[object]) -> None:
    """Hand each stdout line to the waiting request; EOF when the worker's stdout closes."""
    try:
        while line := stream.readline(MAX_ANSWER_BYTES + 1):
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(_EOF)


class PersistentWorker:
    """One running copy of the program; :meth:`ask` sends a request and waits for its answer."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        timeout_s: float,
        startup_timeout_s: float,
        redact: Callable[[str], str],
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.timeout_s = timeout_s
        self.startup_timeout_s = startup_timeout_s
        self.redact = redact
        self.starts = 0  # how many times the program was started (1 + restarts)
        self._lock = threading.Lock()  # one request at a time: answers come back in order
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr = bytearray()
        self._stderr_reader: threading.Thread | None = None
        self._fresh = False

    def _start(self) -> subprocess.Popen[bytes]:
        self._lines = queue.Queue()
        self._stderr = bytearray()
        proc = subprocess.Popen(
            self.argv,
            cwd=self.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: stopping it ends its children too
        )
        assert proc.stdout is not None and proc.stderr is not None
        threading.Thread(target=_read_lines, args=(proc.stdout, self._lines), daemon=True).start()
        self._stderr_reader = threading.Thread(target=drain_tail, args=(proc.stderr, self._stderr), daemon=True)
        self._stderr_reader.start()
        self.starts += 1
        self._fresh = True
        return proc

    def _stop(self) -> int | None:
        """Kill the program and its group; its exit status (None when it had to be killed)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        code = proc.poll()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        if self._stderr_reader is not None:
            # The group is gone, so its stderr closes: what it printed last is read before it is quoted.
            self._stderr_reader.join(timeout=2)
        return code

    def stderr_tail(self, limit: int = 500) -> str:
        text = self.redact(bytes(self._stderr).decode("utf-8", errors="replace")).strip()
        return text if len(text) <= limit else "…" + text[-limit:]

    def _fail(self, why: str) -> WorkerFailure:
        tail = self.stderr_tail()
        stderr = f"; stderr: {tail!r}" if tail else ""
        return WorkerFailure(f"{why}; the worker was stopped and restarts for the next item{stderr}")

    def _stale_output_ended(self) -> bool:
        """Drop lines printed since the last answer (an extra line must not answer the next item);
        True when among them the worker's output ended."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return False
            if line is _EOF:
                return True

    def ask(self, request: Mapping[str, Any]) -> WorkerAnswer:
        """Send one request and wait for its answer line; raises :class:`WorkerFailure` (worker stopped)."""
        with self._lock:
            if self._proc is not None and self._stale_output_ended():
                self._stop()  # it closed its output after the last answer: it is no longer serving
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                try:
                    self._proc = self._start()
                except OSError as exc:
                    raise WorkerFailure(f"could not start {self.argv[0]}: {exc}") from None
            proc = self._proc
            started = time.perf_counter()
            deadline = started + self.timeout_s + (self.startup_timeout_s if self._fresh else 0.0)
            self._fresh = False
            try:
                assert proc.stdin is not None
                proc.stdin.write(dump_json(dict(request), ensure_ascii=False).encode("utf-8") + b"\n")
                proc.stdin.flush()
            except OSError:
                pass  # it already exited: the EOF on its stdout says so below
            skipped: list[str] = []
            while True:
                try:
                    line = self._lines.get(timeout=max(0.0, deadline - time.perf_counter()))
                except queue.Empty:
                    self._stop()
                    raise self._fail(f"no answer within the deadline ({self.timeout_s:g} s, timeout_s)") from None
                if line is _EOF:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=2)  # its stdout closed: it is exiting
                    code = self._stop()
                    status = f"status {code}" if code is not None else "its output closed"
                    raise self._fail(f"the worker exited ({status}) before answering")
                assert isinstance(line, bytes)
                if len(line) > MAX_ANSWER_BYTES:
                    self._stop()
                    raise self._fail(f"answered with a line over {MAX_ANSWER_BYTES:,} bytes")
                answer = _parse(line)
                if answer is None:
                    skipped = [*skipped, line.decode("utf-8", errors="replace").strip()][-_SKIPPED_LINES_KEPT:]
                    continue
                return self._answer(answer, request, started, skipped)

    def _answer(
        self, answer: Mapping[str, Any], request: Mapping[str, Any], started: float, skipped: list[str]
    ) -> WorkerAnswer:
        seconds = time.perf_counter() - started
        metadata = answer.get("metadata") if isinstance(answer.get("metadata"), Mapping) else {}
        if answer.get("id") not in (None, request.get("id")):
            self._stop()  # out of step: every later answer would belong to another item
            raise self._fail(f"answered for item {answer.get('id')!r} while asked for {request.get('id')!r}")
        if isinstance(answer.get("error"), str):
            return WorkerAnswer(None, self.redact(answer["error"]), dict(metadata or {}), seconds)
        out = answer.get("out")
        if not isinstance(out, str) or not out:
            self._stop()
            shown = dump_json(answer, ensure_ascii=False)[:200]
            raise self._fail(f"answer has neither 'out' nor 'error': {self.redact(shown)!r}")
        path = Path(out)
        return WorkerAnswer(path if path.is_absolute() else self.cwd / path, None, dict(metadata or {}), seconds)

    def close(self) -> None:
        """End the worker: its stdin closes (a clean exit), and whatever is still running is killed."""
        with self._lock:
            proc = self._proc
            if proc is None:
                return
            with contextlib.suppress(OSError, ValueError):
                if proc.stdin is not None:
                    proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            self._stop()


def persistent_worker(
    profile: EngineProfile,
    argv: Sequence[str],
    cwd: Path,
    timeout_s: float,
    redact: Callable[[str], str],
    placeholders: Callable[[str], object],
) -> PersistentWorker | None:
    """With ``persistent: true`` in the profile, its one long-lived program (started at the first item).

    ``placeholders(arg)`` finds a per-item placeholder, which a persistent command's arguments
    cannot hold: the items come on stdin."""
    persistent = profile.option("persistent", False)
    if not isinstance(persistent, bool):
        raise ConfigError(f"engine profile {profile.name!r}: persistent must be true or false")
    if not persistent:
        return None
    if any(placeholders(arg) for arg in argv[1:]):
        raise ConfigError(
            f"engine profile {profile.name!r}: a persistent command gets each item as a JSON line on "
            "stdin; its arguments take no placeholders"
        )
    startup = profile.number("startup_timeout_s", timeout_s, NON_NEGATIVE)
    return PersistentWorker(argv, cwd, timeout_s, float(startup), redact)


def synthesize_with_worker(
    worker: PersistentWorker, request: SynthesisRequest, voice: str, out_suffix: str, max_audio_bytes: int
) -> tuple[bytes, dict[str, Any], float]:
    """One item through the worker: (audio, the worker's metadata, seconds); WorkerFailure otherwise."""
    with tempfile.TemporaryDirectory(prefix="ttsbench-cmd-") as work:
        out = Path(work) / f"out{out_suffix}"
        asked = {
            "id": request.item_id,
            "text": request.text,
            "language": request.language,
            "voice": voice,
            "seed": request.seed,
            "out": str(out),
        }
        answer = worker.ask(asked)
        if answer.error is not None:
            raise WorkerFailure(f"the worker reported an error for item {request.item_id!r}: {answer.error}")
        assert answer.out is not None
        if not answer.out.is_file():
            raise WorkerFailure(f"answered {str(answer.out)!r} for item {request.item_id!r}, which is not a file")
        size = answer.out.stat().st_size
        if size > max_audio_bytes:
            raise WorkerFailure(f"wrote {size:,} bytes, more than {max_audio_bytes:,} (max_audio_bytes)")
        audio = answer.out.read_bytes()
    if not audio:
        raise WorkerFailure(f"wrote an empty file for item {request.item_id!r}")
    return audio, answer.metadata, answer.seconds


def _parse(line: bytes) -> Mapping[str, Any] | None:
    """An answer line as a JSON object, None for any other line (a log line the program printed)."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None
