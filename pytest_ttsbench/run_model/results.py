"""The per-item results file: one JSON line per item (per target for ``readings``), written as each finishes.

Field names are fixed because other tools read these files; see :class:`ItemResult`. Every
figure in the summary, the gate and later dashboards is derived from these lines alone.

A run folder is relocatable: a clip inside the results file's folder is written as a path
relative to that folder (``audio/espeak/en-numerals/year-2026-….wav``), so the folder can be
moved, committed as a baseline or downloaded as a CI artifact; readers turn it back into a path
on this machine. Clips kept elsewhere (``--tts-audio-dir`` outside the run) stay absolute; the
readers that open a clip named by a results file open it only inside the file's folder
(:func:`pytest_ttsbench.support.data_paths.inside_folder`), so those are played by their own run only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.json_documents import JsonLine, dump_json, finite_or_null, load_json, read_json_lines
from pytest_ttsbench.support.redaction import scrubbed_fields
from pytest_ttsbench.support.schema_check import schema_errors
from pytest_ttsbench.support.text import shorten
from pytest_ttsbench.verdict import OUTCOMES, Outcome

#: Evidence key of a row written by a synthesize-only run: a clip, not a verdict.
SYNTH_ONLY = "synth_only"

#: Evidence key listing the fields written as ``null`` because they were NaN or infinite.
NON_FINITE = "non_finite"

#: Where a failed clip stopped: the engine could not be built, synthesis failed, the audio failed
#: its checks, or every ASR route failed. Typed, so readers never parse the message.
ErrorStage = Literal["engine", "synthesis", "audio", "asr"]
#: Stages at which no audio came back (such requests say nothing about how fast an engine speaks).
NO_AUDIO_STAGES: tuple[ErrorStage, ...] = ("engine", "synthesis")


@dataclass
class ItemResult:
    """One line of the results file."""

    engine: str
    suite: str
    id: str  # "<suite>/<item id>"
    target: str | None
    category: str
    language: str
    facets: dict[str, str]
    verdict: Outcome
    transcript: str | None
    expected: Any
    evidence: dict[str, Any]
    audio_path: str | None = None
    audio_sha256: str | None = None
    audio_seconds: float | None = None
    synth_seconds: float | None = None
    asr_seconds: float | None = None
    started_at: str | None = None
    # --- beyond the fixed fields ---
    text: str = ""
    scorer: str = ""
    group: str | None = None
    domain: str | None = None
    auto_evaluable: bool = True
    transcripts: dict[str, str] = field(default_factory=dict)  # ASR route → transcript
    route_verdicts: dict[str, str] = field(default_factory=dict)  # ASR route → outcome
    asr_flags: list[str] = field(default_factory=list)
    cer: float | None = None
    wer: float | None = None
    error: str | None = None
    error_stage: ErrorStage | None = None  # where the clip failed; see ErrorStage
    audio_checks: dict[str, Any] = field(default_factory=dict)
    first_byte_seconds: float | None = None
    contract: str = "raw"
    repeat: int = 0
    #: the determinism probe: the same request sent again gave different audio (None: not probed)
    audio_varies: bool | None = None
    node_id: str | None = None
    #: the 1-based line of the item in its case file (the file is the node id's path), for CI annotations
    case_line: int | None = None
    #: the shipped pack the item came from and its version (None: a project's own case file)
    pack: str | None = None
    pack_version: str | None = None
    run_id: str | None = None
    engine_config: str | None = None  # fingerprint of the engine profile and ASR routes (a resume matches it)
    metadata: dict[str, Any] = field(default_factory=dict)  # the item's source fields, kept verbatim
    pinned_recognizer: list[str] = field(default_factory=list)  # routes the suite's expectations assume
    # What made this generation: provider (adapter type), model, voice, settings sent, seed, date.
    generation: dict[str, Any] = field(default_factory=dict)
    # Seconds from request to first playable audio, and what that figure is: "first_chunk" (a
    # streamed reply's first decodable chunk) or "total" (the whole synthesis).
    first_audio_seconds: float | None = None
    first_audio_measure: str | None = None
    review: str | None = None  # a review the prompt still needs before publication, e.g. native-speaker
    reviewed: str | None = None
    #: per-clip quality measures (see pytest_ttsbench/quality), None where a measure does not exist
    quality: dict[str, float | None] = field(default_factory=dict)
    #: each measure set's model and version, e.g. {"dnsmos": "speechmos 0.0.1.1 ..."}
    quality_models: dict[str, str] = field(default_factory=dict)
    # Where the audio and each route's transcript came from: "hit" (the cache), "miss" (made and
    # stored now) or "off"; keys "audio", "asr:<route>" and "quality" (the clip's quality figures).
    cache: dict[str, str] = field(default_factory=dict)
    # How each local Whisper route decoded this clip: "sequential" or "batched:<N>" (routes that
    # do not say, such as a remote service, are absent). Compared runs must decode alike.
    asr_decoding: dict[str, str] = field(default_factory=dict)
    #: SHA-256 of what was sent and expected (text, language, contract, scorer, target, expected):
    #: a baseline compares a target only where this content is the same (see item_content.py).
    #: None in rows written before it existed.
    content_sha256: str | None = None
    #: the scoring protocol ``verdict`` and ``route_verdicts`` are under: "strict" or "published"
    #: (rows written before protocols existed were judged by the strict scorers)
    protocol: str = "strict"
    #: every protocol's verdicts: {"strict": {"verdict", "route_verdicts"}, "published": {...}}
    protocols: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the strict rules that make routes' strict and published verdicts differ (protocols.py)
    protocol_rules: list[str] = field(default_factory=list)

    @property
    def item_id(self) -> str:
        """The item id without its suite."""
        return self.id.split("/", 1)[1] if "/" in self.id else self.id

    @property
    def returned_audio(self) -> bool:
        """Whether the engine answered this clip with audio (or replayed transcripts).

        Rows written before ``error_stage`` existed have none: for them, an error with neither
        audio nor a transcript means nothing came back.
        """
        if self.error_stage is not None:
            return self.error_stage not in NO_AUDIO_STAGES
        return self.error is None or self.audio_sha256 is not None or bool(self.transcripts)

    @property
    def key(self) -> str:
        """``<suite>/<item id>`` plus ``/<target span>`` for a readings target: unique within one engine."""
        return f"{self.id}/{self.target}" if self.target is not None else self.id

    def to_json(self) -> str:
        """The row as one JSON line, every secret this process has read redacted.

        A figure that came out NaN or infinite (a clip's RMS, a quality measure) is written as
        ``null``, and the row's evidence names it under :data:`NON_FINITE` (the reason), so the
        line stays strict JSON.
        """
        fields_, nulled = finite_or_null(scrubbed_fields(self))
        if nulled:
            evidence = fields_["evidence"] if isinstance(fields_.get("evidence"), dict) else {}
            fields_["evidence"] = {**evidence, NON_FINITE: nulled}
        return dump_json(fields_, ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemResult:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


#: The name under which a benchmark test attaches its result row to its report's ``user_properties``.
RESULT_PROPERTY = "ttsbench_result"
RESUMED_PROPERTY = "ttsbench_resumed_result"  # a row the resumed run already holds: counted, not written again
UNAVAILABLE_PROPERTY = "ttsbench_unavailable"  # [engine, reason] of an engine that cannot run here


def result_from_report(report: Any) -> ItemResult | None:
    """The result a benchmark test attached to its report, if any (only the call phase has one)."""
    for name, value in getattr(report, "user_properties", ()) or ():
        if name == RESULT_PROPERTY:
            return ItemResult.from_dict(load_json(value))
    return None


def relative_to_folder(result: ItemResult, folder: Path) -> ItemResult:
    """The row as stored in a results file in ``folder``: a clip inside the folder named relative to it."""
    if not result.audio_path or not Path(result.audio_path).is_absolute():
        return result
    clip = Path(result.audio_path).resolve()
    base = folder.resolve()
    if not clip.is_relative_to(base):
        return result
    return dataclasses.replace(result, audio_path=clip.relative_to(base).as_posix())


def resolved_in_folder(result: ItemResult, folder: Path) -> ItemResult:
    """The row as read from a results file in ``folder``: a relative clip path made absolute here."""
    if not result.audio_path or Path(result.audio_path).is_absolute():
        return result
    return dataclasses.replace(result, audio_path=str(folder.resolve() / result.audio_path))


#: what names a session's claim on a results file, beside it: ``.<results file's name>.lock``
CLAIM_SUFFIX = ".lock"


def claim_path(results_path: Path) -> Path:
    """``results.jsonl`` → ``.results.jsonl.lock`` beside it: the writing session's claim (reruns.py),
    there only while that session runs."""
    return results_path.with_name(f".{results_path.name}{CLAIM_SUFFIX}")


def is_claim_file(path: Path) -> bool:
    """Whether ``path`` is named as a session's claim on a results file: never one of a run's outputs."""
    return path.name.startswith(".") and path.name.endswith(CLAIM_SUFFIX)


class ResultsWriter:
    """Appends one line per result and hands it to the operating system at once, so an interrupted
    run (Ctrl-C, a killed job, a crashed worker) loses nothing; the file is synced to disk once, on close.

    Not synced per row: that cost a warm rerun of the main job a tenth of its time (#28), and only
    guards against the machine itself going down, which loses the run anyway.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._handle = path.open("a", encoding="utf-8")

    def write(self, result: ItemResult) -> None:
        line = relative_to_folder(result, self.path.parent).to_json()
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()

    def close(self) -> None:
        """Sync and close the file; an ``OSError`` (a full disk) is raised once the handle is closed."""
        with self._lock:
            try:
                if not self._handle.closed:
                    self._handle.flush()
                    os.fsync(self._handle.fileno())
            finally:
                with contextlib.suppress(OSError):  # the flush above failed already: raised as that
                    self._handle.close()


class ResultsFileError(ValueError):
    """A results file that cannot be read as rows; the message names the file, the line and the field."""


# The fixed fields other tools rely on: a row without them (or with the wrong type) is not a result.
ROW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["engine", "suite", "id", "target", "category", "language", "facets", "verdict", "expected"],
    "properties": {
        "engine": {"type": "string", "minLength": 1},
        "suite": {"type": "string"},
        "id": {"type": "string", "minLength": 1},
        "target": {"type": ["string", "null"]},
        "category": {"type": "string"},
        "language": {"type": "string"},
        "facets": {"type": "object"},
        "verdict": {"enum": list(OUTCOMES)},
        "transcript": {"type": ["string", "null"]},
        "evidence": {"type": "object"},
        "transcripts": {"type": "object", "additionalProperties": {"type": "string"}},
        "route_verdicts": {"type": "object", "additionalProperties": {"type": "string"}},
        "auto_evaluable": {"type": "boolean"},
        "repeat": {"type": "integer", "minimum": 0},
        "run_id": {"type": ["string", "null"]},
        "content_sha256": {"type": ["string", "null"]},
    },
}


def parse_row(line: JsonLine) -> ItemResult:
    """One line of a results file as a row; raises :class:`ResultsFileError` naming file, line and field."""
    where, data, path = line.where, line.value, line.path
    if line.problem is not None:
        raise ResultsFileError(f"{where}: {line.problem}")
    if not isinstance(data, dict):
        raise ResultsFileError(f"{where}: a results row must be a JSON object, found a {type(data).__name__}")
    # A valid row (nearly every one) is passed by the compiled check; jsonschema loads to name a problem.
    error = next(iter(sorted(schema_errors(ROW_SCHEMA, data), key=lambda e: list(map(str, e.path)))), None)
    if error is not None:
        field_name = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "required":
            missing = [name for name in ROW_SCHEMA["required"] if name not in data]
            raise ResultsFileError(f"{where}: field {missing[0]!r}: missing (a results row needs it)")
        raise ResultsFileError(f"{where}: field {field_name!r}: {shorten(error.message, 200)}")
    # a relative clip path is relative to the file's folder: made absolute here, wherever it was moved
    return resolved_in_folder(ItemResult.from_dict(data), path.parent)


def read_results(path: Path, *, partial_last_line: bool = False) -> list[ItemResult]:
    """Every row of a results file, in order, each (engine, target, repeat) once per run (the last row wins).

    Any line that is not a valid row is an error naming the file, the line and the field: nothing is
    skipped silently. With ``partial_last_line`` a last line without its newline (a run killed while
    writing it) is dropped instead; only resuming that run asks for this.
    """
    return latest_per_run(iter_results(path, partial_last_line=partial_last_line))


def iter_results(path: Path, *, partial_last_line: bool = False) -> Iterator[ItemResult]:
    """The rows of a results file as written (repeated rows included); see :func:`read_results`."""
    try:
        lines = read_json_lines(path)
    except UnicodeDecodeError as exc:
        raise ResultsFileError(f"{path}: not UTF-8 text (byte {exc.start}): not a results file") from None
    for line in lines:
        if partial_last_line and line.unfinished:
            try:
                yield parse_row(line)
            except ResultsFileError:
                return  # the unfinished row of a killed run: redone on resume
            continue
        yield parse_row(line)


def row_identity(row: ItemResult) -> tuple[str | None, str, str, int]:
    """What a row measures: (run, engine, target key, repeat). One run measures each at most once."""
    return (row.run_id, row.engine, row.key, row.repeat)


def latest_per_run(rows: Iterable[ItemResult]) -> list[ItemResult]:
    """Rows with each (run, engine, target, repeat) once: a later row (a resumed retry) replaces an earlier one."""
    kept: dict[tuple[str | None, str, str, int], ItemResult] = {}
    for row in rows:
        kept.pop(row_identity(row), None)
        kept[row_identity(row)] = row
    return list(kept.values())


def latest_per_target(rows: Iterable[ItemResult]) -> list[ItemResult]:
    """Rows with each (engine, target, repeat) once across runs: the latest measurement of each."""
    kept: dict[tuple[str, str, int], ItemResult] = {}
    for row in rows:
        identity = (row.engine, row.key, row.repeat)
        kept.pop(identity, None)
        kept[identity] = row
    return list(kept.values())


def write_results(path: Path, results: Iterable[ItemResult]) -> None:
    """Write a whole results file at once (used by ``ttsbench rescore``)."""
    write_atomically(path, "".join(relative_to_folder(result, path.parent).to_json() + "\n" for result in results))


# --- grouping rows: shared by the accuracy and the quality summaries --------------------------------

#: shown for a row whose grouping field is empty
MISSING = "(none)"
#: a ``by`` name that groups by one of the rows' facets: ``facet:<name>``
FACET_PREFIX = "facet:"


def group_value(result: ItemResult, name: str) -> str:
    """The value of one ``by`` name for a row, as a string (:data:`MISSING` when absent)."""
    if name.startswith(FACET_PREFIX):
        value: Any = result.facets.get(name[len(FACET_PREFIX) :])
    else:
        value = getattr(result, name)
    return MISSING if value is None or value == "" else str(value)
