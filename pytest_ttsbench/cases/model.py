"""The in-memory form of a benchmark: a suite of items, each with one or more targets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.support.text import shorten


@dataclass(frozen=True)
class Target:
    """One semantic question asked of an item's audio.

    Most scorers ask one question per item (``span`` is None). ``readings`` items ask one per
    span, and each target becomes its own test.
    """

    span: str | None
    category: str
    expect: Mapping[str, Any]
    auto_evaluable: bool = True
    group: str | None = None


@dataclass(frozen=True)
class CaseItem:
    """One sentence sent to an engine, with what its audio must keep."""

    suite: str
    id: str
    language: str
    scorer: str
    category: str
    text: str
    expect: Mapping[str, Any]
    targets: tuple[Target, ...]
    facets: Mapping[str, str] = field(default_factory=dict)
    domain: str | None = None
    # Alternative texts for the same item (e.g. Thai ``mono`` / ``bilingual`` contracts).
    variants: Mapping[str, str] = field(default_factory=dict)
    source: Path | None = None
    # Fields of the source record kept verbatim (a benchmark's item metadata, unknown fields).
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # The ASR routes the suite's expectations were written against (see Suite.recognizer).
    recognizer: tuple[str, ...] = ()
    # A review the prompt needs before anything built on it is published (e.g. ``native-speaker``),
    # and the record of that review once done; ``review`` without ``reviewed`` means still pending.
    review: str | None = None
    reviewed: str | None = None
    #: the 1-based line of the item's ``id`` in its case file (None: not known, e.g. an external benchmark);
    #: where the item is written, not what it is, so two items equal in content are equal wherever they are
    line: int | None = field(default=None, compare=False)

    @property
    def full_id(self) -> str:
        """``<suite>/<item id>``: the id used in results files, known gaps and transcripts."""
        return f"{self.suite}/{self.id}"

    def text_for(self, contract: str = "raw") -> str:
        """The text sent to the engine under a text contract (``raw`` is the item's own text)."""
        if contract == "raw":
            return self.text
        return self.variants.get(contract, self.text)


@dataclass(frozen=True)
class Suite:
    """A case file: a named set of items sharing defaults and per-category floors."""

    name: str
    language: str
    scorer: str
    items: tuple[CaseItem, ...]
    thresholds: Mapping[str, float] = field(default_factory=dict)
    path: Path | None = None
    #: The recognizer(s) the expectations were written against, as route labels: ``whisper:large-v3``
    #: (route ``whisper``, model ``large-v3``) or a bare route name (``paraformer_zh``).
    recognizer: tuple[str, ...] = ()
    #: the case file's ``quality`` section: floors, ceilings and tolerance on quality measures
    quality: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a case file."""

    path: Path
    item: str | None
    field: str
    message: str
    #: where in the document the problem is: ("items", 3, "txt"); the loader turns it into ``line``
    location: tuple[str | int, ...] = ()
    line: int | None = None  # 1-based

    def __str__(self) -> str:
        where = f"{self.path}" if self.line is None else f"{self.path}:{self.line}"
        if self.item is not None:
            where += f": item {self.item!r}"
        return f"{where}: field {self.field!r}: {shorten(self.message)}"


class CaseFileError(ValueError):
    """A case file that cannot be used; ``problems`` lists everything found, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
