"""The per-item results file: one JSON line per item (per target for ``readings``), written as each finishes.

Field names are fixed because other tools read these files; see :class:`ItemResult`. Every
figure in the summary, the gate and later dashboards is derived from these lines alone.

A run folder is relocatable: a clip inside the results file's folder is written as a path
relative to that folder (``audio/espeak/en-numerals/year-2026-….wav``), so the folder can be
moved, committed as a baseline or downloaded as a CI artifact; readers turn it back into a path
on this machine. Clips kept elsewhere (``--tts-audio-dir`` outside the run) stay absolute.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from pytest_ttsbench.verdict import Outcome

#: Evidence key of a row written by a synthesize-only run: a clip, not a verdict.
SYNTH_ONLY = "synth_only"

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
    run_id: str | None = None
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
    # stored now) or "off"; keys "audio" and "asr:<route>".
    cache: dict[str, str] = field(default_factory=dict)

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
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemResult:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


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


#: The name under which a benchmark test attaches its result row to its report's ``user_properties``.
RESULT_PROPERTY = "ttsbench_result"


def result_from_report(report: Any) -> ItemResult | None:
    """The result a benchmark test attached to its report, if any (only the call phase has one)."""
    for name, value in getattr(report, "user_properties", ()) or ():
        if name == RESULT_PROPERTY:
            return ItemResult.from_dict(json.loads(value))
    return None


class ResultsWriter:
    """Appends one line per result and flushes it to disk at once, so an interrupted run loses nothing."""

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
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def read_results(path: Path) -> list[ItemResult]:
    """Every line of a results file, in order. A truncated last line (a killed run) is skipped.

    Relative clip paths come back as absolute paths beside the file, wherever it was moved.
    """
    return list(iter_results(path))


def iter_results(path: Path) -> Iterator[ItemResult]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                yield resolved_in_folder(ItemResult.from_dict(json.loads(line)), path.parent)
            except json.JSONDecodeError:
                continue


def write_results(path: Path, results: Iterable[ItemResult]) -> None:
    """Write a whole results file at once (used by ``ttsbench rescore``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for result in results:
            handle.write(relative_to_folder(result, path.parent).to_json() + "\n")
    tmp.replace(path)
