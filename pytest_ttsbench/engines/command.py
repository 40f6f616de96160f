"""Any program as a TTS engine: an argv list with placeholders, run without a shell.

Profile fields::

    my-tts:
      type: command
      command: [my-tts, --lang, "{lang}", --voice, "{voice}", --in, "{text_file}", --out, "{out}"]
      voice: {en: alice}
      out_suffix: .wav          # the file name {out} gets (decoders sniff the content anyway)
      media_type: audio/wav     # what the program writes
      pcm_sample_rate: 22050    # instead, when it writes headerless s16le mono PCM
      timeout_s: 120            # deadline: the program must have exited and closed its output
      max_audio_bytes: 67108864 # more stdout (or a bigger {out} file) is an error verdict

Placeholders are replaced inside each argument, once and in one pass: ``{text_file}`` (a
UTF-8 file holding the text), ``{text}`` (the text itself), ``{out}`` (where the program
writes the audio), ``{lang}`` and ``{voice}``. Without ``{out}`` the audio is read from the
program's standard output. The program runs from the configuration file's folder, as an
argument list and never through a shell, so text such as ``"; rm -rf ~"`` reaches it as one
literal argument. A non-zero exit becomes an EngineError quoting the end of its stderr.
``{item_id}`` (``suite/id``) and ``{seed}`` (the request's seed: ``seed:`` in the profile
makes a stochastic program reproducible) are replaced too.

With ``persistent: true`` the program is started once and answers one JSON request per line
instead, so a local model loads once (see :mod:`pytest_ttsbench.engines.command_worker`).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.command_worker import WorkerFailure, persistent_worker, synthesize_with_worker
from pytest_ttsbench.support.bounded_process import run_bounded
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE, POSITIVE
from pytest_ttsbench.support.limits import DEFAULT_MAX_AUDIO_BYTES
from pytest_ttsbench.support.redaction import Redactor

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice", "command arguments")
EXPORT_FORMATS: tuple[str, ...] = ("whatever the program writes: wav, pcm or another decodable format",)

PLACEHOLDER = re.compile(r"\{(text_file|text|out|lang|voice|item_id|seed)\}")
DEFAULT_TIMEOUT_S = 120.0
STDERR_TAIL_CHARS = 2000


def substitute(argv: list[str], values: dict[str, str]) -> list[str]:
    """Each argument with its placeholders replaced in one pass (a value's own braces stay as they are)."""
    return [PLACEHOLDER.sub(lambda m: values[m.group(1)], arg) for arg in argv]


def _tail(data: bytes, limit: int = STDERR_TAIL_CHARS) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else "…" + text[-limit:]


class CommandEngine:
    """Runs the profile's ``command`` once per item and reads the audio it writes."""

    # Never cached: the program's version is unknown, so no key could tell its old audio from its new.
    cacheable = False

    def __init__(self, profile: EngineProfile) -> None:
        self.name = profile.name
        self.profile = profile
        argv = profile.option("command")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, (str, int, float)) for a in argv):
            raise ConfigError(
                f"engine profile {profile.name!r}: command must be a non-empty list of arguments "
                '(e.g. [my-tts, --out, "{out}", "{text}"])'
            )
        self.argv = [str(a) for a in argv]
        self.cwd = Path(profile.base_dir)
        self.uses_out = any("{out}" in arg for arg in self.argv)
        self.timeout_s = float(profile.number("timeout_s", DEFAULT_TIMEOUT_S, POSITIVE))
        suffix = profile.option("out_suffix", ".wav")
        self.out_suffix = str(suffix) if str(suffix).startswith(".") else f".{suffix}"
        rate = profile.number("pcm_sample_rate", None, AT_LEAST_ONE)
        self.pcm_sample_rate = rate
        self.max_audio_bytes = int(profile.number("max_audio_bytes", DEFAULT_MAX_AUDIO_BYTES, AT_LEAST_ONE))
        self.media_type = str(profile.option("media_type", "audio/pcm" if rate else "audio/wav"))
        self.program = self._resolve(self.argv[0])  # last: a bad option is a ConfigError, not "missing"
        # The program inherits the environment; a key it reads (named by api_key_env) is still
        # scrubbed from anything it prints back.
        key = os.environ.get(profile.api_key_env, "") if profile.api_key_env else ""
        self.redact = Redactor([key])
        argv = [self.program, *self.argv[1:]]
        self.worker = persistent_worker(profile, argv, self.cwd, self.timeout_s, self.redact, PLACEHOLDER.search)

    def _resolve(self, program: str) -> str:
        """The program's path: relative paths from the config folder, bare names from PATH."""
        if os.sep in program or (os.altsep and os.altsep in program):
            path = Path(program)
            path = path if path.is_absolute() else self.cwd / path
            if not (path.is_file() and os.access(path, os.X_OK)):
                raise EngineUnavailable(f"engine profile {self.name!r}: {path} is not an executable file")
            return str(path)
        found = shutil.which(program)
        if found is None:
            raise EngineUnavailable(f"engine profile {self.name!r}: program {program!r} is not on PATH")
        return found

    def _error(self, message: str) -> EngineError:
        return EngineError(self.redact(f"command profile {self.name!r}: {message}"))

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = request.voice or self.profile.voice_for(request.language) or ""
        if self.worker is not None:
            try:
                audio, metadata, seconds = synthesize_with_worker(
                    self.worker, request, voice, self.out_suffix, self.max_audio_bytes
                )
            except WorkerFailure as exc:
                raise self._error(str(exc)) from None
            return Synthesis(
                audio=audio,
                media_type=self.media_type,
                pcm_sample_rate=self.pcm_sample_rate,
                first_byte_seconds=seconds,
                # The seed went to the program in every request (its own metadata may say otherwise).
                metadata={"seed": request.seed, **metadata, "total_seconds": round(seconds, 6), "voice": voice or None},
            )
        with tempfile.TemporaryDirectory(prefix="ttsbench-cmd-") as work:
            text_file = Path(work) / "text.txt"
            text_file.write_text(request.text, encoding="utf-8")
            out = Path(work) / f"out{self.out_suffix}"
            values = {
                "text_file": str(text_file),
                "text": request.text,
                "out": str(out),
                "lang": request.language,
                "voice": voice,
                "item_id": request.item_id,
                "seed": "" if request.seed is None else str(request.seed),
            }
            argv = [self.program, *substitute(self.argv[1:], values)]
            stdout, first_byte, seconds = self._run(argv)
            if self.uses_out:
                if not out.is_file():
                    raise self._error(f"exited 0 but wrote no file at {{out}} (stdout: {self._tail(stdout, 300)!r})")
                if out.stat().st_size > self.max_audio_bytes:
                    raise self._error(
                        f"wrote {out.stat().st_size:,} bytes to {{out}}, more than {self.max_audio_bytes:,} "
                        "(max_audio_bytes)"
                    )
                audio = out.read_bytes()
                first_byte = seconds  # the audio exists once the program has finished writing it
            else:
                audio = stdout
        if not audio:
            raise self._error("exited 0 but produced no audio")
        return Synthesis(
            audio=audio,
            media_type=self.media_type,
            pcm_sample_rate=self.pcm_sample_rate,
            first_byte_seconds=first_byte,
            metadata={
                "total_seconds": round(seconds, 6),
                "exit_code": 0,
                "voice": voice or None,
                **({"seed": request.seed} if any("{seed}" in arg for arg in self.argv) else {}),
            },
        )

    def close(self) -> None:
        """A persistent worker is ended; otherwise nothing stays open between items."""
        if self.worker is not None:
            self.worker.close()

    def _run(self, argv: list[str]) -> tuple[bytes, float | None, float]:
        """Run the program; (stdout, seconds to its first stdout byte, total seconds)."""
        try:
            ran = run_bounded(argv, timeout_s=self.timeout_s, max_stdout_bytes=self.max_audio_bytes, cwd=self.cwd)
        except OSError as exc:
            raise self._error(f"could not start {argv[0]}: {exc}") from None
        if ran.too_large:
            raise self._error(
                f"printed more than {self.max_audio_bytes:,} bytes (max_audio_bytes); the program was stopped"
            )
        if ran.timed_out:
            raise self._error(
                f"timed out after {self.timeout_s:g} s (timeout_s: the deadline to finish and close its output); "
                f"stderr: {self._tail(ran.stderr)!r}"
            )
        if ran.code != 0:
            raise self._error(f"exited with status {ran.code}; stderr: {self._tail(ran.stderr)!r}")
        return ran.stdout, ran.first_byte_seconds, ran.seconds

    def _tail(self, data: bytes, limit: int = STDERR_TAIL_CHARS) -> str:
        """The end of a program's output, redacted before it is cut (a cut key would no longer match)."""
        return _tail(self.redact(data.decode("utf-8", errors="replace")).encode("utf-8"), limit)
