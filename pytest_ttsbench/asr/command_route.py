"""An ASR route that runs a program: any recognizer with a command line becomes a voting route.

::

    asr:
      routes:
        - {type: command, name: sensevoice, command: [python, tools/sensevoice.py, "{audio}", --lang, "{lang}"]}
        - {type: command, name: vosk, command: "vosk-transcriber -i {audio}", timeout_s: 60}

``{audio}`` becomes the path of a temporary 16-bit WAV of the clip (at the recognizer's 16 kHz),
``{lang}`` the item's language tag as written in the case file. The program runs without a
shell (a string command is split like a shell would split it, but nothing is expanded or
interpreted), so an item text or a path can never inject a command. Its standard output, as
UTF-8 with surrounding whitespace removed, is the transcript; a non-zero exit status or a
timeout fails the route for that clip, with the end of its standard error in the message.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_ttsbench.asr.base import AsrError, Transcription
from pytest_ttsbench.audio.decoding import DecodedAudio, encode_wav
from pytest_ttsbench.support.bounded_process import run_bounded
from pytest_ttsbench.support.checked_numbers import POSITIVE, checked_fields
from pytest_ttsbench.support.limits import MAX_TRANSCRIPT_BYTES
from pytest_ttsbench.support.redaction import redact_known

_KEYS = frozenset({"type", "name", "command", "timeout_s", "cwd", "env"})
_STDERR_TAIL = 500


def _argv(command: str | Sequence[str]) -> list[str]:
    argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
    if not argv or not argv[0]:
        raise ValueError("command route: 'command' must name a program")
    return argv


class CommandRoute:
    """A recognizer run as a child process, once per clip."""

    def __init__(
        self,
        command: str | Sequence[str],
        name: str | None = None,
        timeout_s: float = 300.0,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.argv = _argv(command)
        self.name = name or f"command:{Path(self.argv[0]).name}"
        self.timeout_s = float(timeout_s)
        self.cwd = cwd
        # Extra variables on top of the inherited environment (never logged: they may hold keys).
        self.env = {str(k): str(v) for k, v in (env or {}).items()}

    def command_for(self, audio_path: Path, language: str) -> list[str]:
        """The argument list for one clip, placeholders filled in."""
        return [part.replace("{audio}", str(audio_path)).replace("{lang}", language) for part in self.argv]

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription:
        with tempfile.TemporaryDirectory(prefix="ttsbench-asr-") as folder:
            path = Path(folder) / "clip.wav"
            path.write_bytes(encode_wav(audio))
            argv = self.command_for(path, language)
            try:
                ran = run_bounded(
                    argv,
                    timeout_s=self.timeout_s,
                    max_stdout_bytes=MAX_TRANSCRIPT_BYTES,
                    cwd=self.cwd,
                    env={**os.environ, **self.env} if self.env else None,
                )
            except FileNotFoundError as exc:
                raise AsrError(f"ASR route {self.name!r}: program not found: {argv[0]}") from exc
            except OSError as exc:
                raise AsrError(f"ASR route {self.name!r}: cannot run {argv[0]}: {exc}") from exc
        if ran.timed_out:
            raise AsrError(
                f"ASR route {self.name!r}: no answer within {self.timeout_s:g} s "
                "(timeout_s: the deadline to finish and close its output)"
            )
        if ran.too_large:
            raise AsrError(f"ASR route {self.name!r}: printed more than {MAX_TRANSCRIPT_BYTES:,} bytes; stopped")
        if ran.code != 0:
            stderr = redact_known(ran.stderr.decode("utf-8", errors="replace")).strip()[-_STDERR_TAIL:]
            raise AsrError(
                f"ASR route {self.name!r}: {Path(argv[0]).name} exited with status {ran.code}"
                + (f": {stderr}" if stderr else "")
            )
        text = ran.stdout.decode("utf-8", errors="replace").strip()
        seconds = ran.seconds
        return Transcription(text=text, seconds=seconds, details={"program": argv[0]})


def command_route(spec: Mapping[str, Any]) -> CommandRoute:
    """The route for ``{type: command, command, name, timeout_s, cwd, env}``."""
    unknown = set(spec) - _KEYS
    if unknown:
        raise ValueError(f"command route: unknown field(s) {', '.join(sorted(unknown))}")
    if "command" not in spec:
        raise ValueError("command route: field 'command' is required")
    checked_fields(spec, {"timeout_s": POSITIVE}, "command route")
    return CommandRoute(**{k: v for k, v in spec.items() if k != "type" and v is not None})
