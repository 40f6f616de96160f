"""The interface every scorer implements.

A scorer is a pure function from (transcript, expectation, context) to a :class:`Verdict`.
It also declares the JSON Schema of its ``expect`` block, so bad case files are rejected at
load time with the field that is wrong, before anything is synthesized.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_ttsbench.verdict import Verdict


@dataclass(frozen=True)
class ScoreContext:
    """What a scorer may know besides the transcript: the item's language and text."""

    language: str
    text: str = ""
    span: str | None = None


class Scorer:
    """Base class for scorers. Subclasses set ``name`` and ``expect_schema`` and implement ``score``."""

    name: ClassVar[str] = ""
    #: JSON Schema the item's ``expect`` mapping must satisfy.
    expect_schema: ClassVar[Mapping[str, Any]] = {"type": "object"}
    #: True when ``expect`` holds several targets that each become a test (``readings``).
    splits_targets: ClassVar[bool] = False
    #: False for items judged by people only: they are synthesized but never transcribed.
    needs_transcript: ClassVar[bool] = True

    def check(self, expect: Mapping[str, Any], language: str) -> list[tuple[str, str]]:
        """Problems the schema cannot express, as (field path, message) pairs. Empty when fine."""
        return []

    def targets(self, expect: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """Split an item's ``expect`` into per-target expectations (one by default)."""
        return [expect]

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        """A short human-readable statement of what is expected, for failure messages."""
        return ", ".join(f"{k}={v}" for k, v in expect.items())

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        raise NotImplementedError
