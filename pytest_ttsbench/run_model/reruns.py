"""Running again into an existing results file: refused, appended (a new run) or resumed (the same run).

Rows of two sessions silently mixed in one file double-count targets and leave a gate file that
covers only the last session. So a session whose ``--tts-results`` file already holds rows stops
unless told what to do:

* ``--tts-append`` adds this session as a new run (its own run id) after the rows already there;
* ``--tts-resume`` continues the file's last run: targets it holds with a verdict other than
  ``error``, measured under the same engine configuration, are not run again (their stored rows
  count in the gate); the rest are run and appended under the same run id.

Readers count each (run, engine, target, repeat) once, the last row winning (``results.py``).

Two sessions at once are refused too: the session writing a results file claims it first
(:func:`claim_results_file`), so a second one told to write the same file, while the first is
still going, stops before it synthesizes anything, naming the file and the run that has it.
The claim comes before the check for rows, because a run's file only appears with its first row.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.run_model.results import ItemResult, claim_path, read_results
from pytest_ttsbench.support.file_lock import FileClaim, FileClaimed, claim_file
from pytest_ttsbench.support.json_documents import dump_json


class RerunError(ValueError):
    """An existing results file this session may not write into as asked."""


def new_run_id() -> str:
    """A run id unique to this session: its UTC start and a random suffix."""
    return f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"


def holds_rows(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def claim_results_file(results_path: Path, engines: Sequence[str]) -> FileClaim:
    """Claim ``results_path`` for this session's rows, or raise :class:`RerunError` naming the run writing it.

    Held until the session ends (:meth:`FileClaim.release`) or its process does, however it ends.
    """
    try:
        return claim_file(claim_path(results_path), f"engines {', '.join(engines)}")
    except FileClaimed as exc:
        raise RerunError(
            f"--tts-results {results_path}: another run is writing this results file ({exc.holder}); "
            "wait for it to finish, or choose another file"
        ) from None
    except OSError as exc:
        raise RerunError(f"--tts-results {results_path}: cannot claim it for this run ({exc})") from None


@contextlib.contextmanager
def claimed_output(results_path: Path, command: str) -> Iterator[None]:
    """Hold the claim on ``results_path`` while ``command`` (``ttsbench merge``, ``rescore --out``,
    ``baseline save``) writes it, as a run holds its ``--tts-results``: a run or another command
    writing the same file is refused with :class:`RerunError` naming it, never interleaved."""
    try:
        claim = claim_file(claim_path(results_path), command)
    except FileClaimed as exc:
        raise RerunError(
            f"{results_path}: another process is writing this results file ({exc.holder}); "
            "wait for it to finish, or choose another"
        ) from None
    except OSError as exc:
        raise RerunError(f"{results_path}: cannot claim it for {command} ({exc})") from None
    try:
        yield
    finally:
        claim.release()


def check_existing(path: Path, append: bool, resume: bool) -> None:
    """Refuse a results file that already holds rows unless ``append`` or ``resume`` says what to do."""
    if append and resume:
        raise RerunError("--tts-append and --tts-resume exclude each other: add a new run, or continue the last one")
    if not holds_rows(path) or resume:
        return
    if not append:
        raise RerunError(
            f"--tts-results {path} already holds results of an earlier run; pass --tts-append to add this run "
            "to it, --tts-resume to finish the run it holds, or choose a new file"
        )
    read_results(path)  # appending after a corrupt file would bury the damage: say so now


def drop_partial_last_line(path: Path) -> bool:
    """Cut a last line left without its newline by a killed run, so appended rows start on a line of their own."""
    if not holds_rows(path):
        return False
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return False
    with path.open("r+b") as handle:
        handle.truncate(data.rfind(b"\n") + 1)
    return True


def engine_config_id(profile: EngineProfile, asr: Mapping[str, Any]) -> str:
    """A short fingerprint of everything that shapes an engine's verdicts: its profile and its ASR routes.

    Environment variables are named, never read, so no secret enters it.
    """
    described = {
        "type": profile.type,
        "voice": profile.voice,
        "api_key_env": profile.api_key_env,
        "options": profile.options,
        "asr": asr,
    }
    text = dump_json(described, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def resumable(
    path: Path, configs: Mapping[str, str], contract: str
) -> tuple[str | None, dict[tuple[str, str, int], ItemResult]]:
    """The run id to continue and the rows of it that need no new measurement.

    A row is kept when it belongs to the file's last run, its engine is selected with the same
    configuration fingerprint, it used the same text contract, and its verdict is not ``error``
    (errors are measured again).
    """
    rows = read_results(path, partial_last_line=True) if holds_rows(path) else []
    if not rows:
        return None, {}
    run_id = rows[-1].run_id
    kept = {
        (row.engine, row.key, row.repeat): row
        for row in rows
        if row.run_id == run_id
        and row.verdict != "error"
        and row.contract == contract
        and row.engine_config is not None
        and configs.get(row.engine) == row.engine_config
    }
    return run_id, kept
