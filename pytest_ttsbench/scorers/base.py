"""The interface every scorer implements.

A scorer is a pure function from (transcript, expectation, context) to a :class:`Verdict`.
It also declares the JSON Schema of its ``expect`` block, so bad case files are rejected at
load time with the field that is wrong, before anything is synthesized.

Every scorer reads through its language's fold (:mod:`~pytest_ttsbench.scorers.folding`): the
``score`` a subclass defines is wrapped when the class is created, so the transcript, the strings
of ``expect`` and the item's text it receives are already folded, whoever calls it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pytest_ttsbench.scorers.folding import fold_expect, fold_text
from pytest_ttsbench.verdict import Verdict

#: ``language``: the scorer reads what :func:`~pytest_ttsbench.scorers.folding.fold_text` gives;
#: ``published``: a benchmark's own matcher, which must see the text as its harness did.
Folding = Literal["language", "published"]
ScoreFunction = Callable[["Scorer", str, Mapping[str, Any], "ScoreContext"], Verdict]


@dataclass(frozen=True)
class ScoreContext:
    """What a scorer may know besides the transcript: the item's language and text."""

    language: str
    text: str = ""
    span: str | None = None


def fold_inputs(
    transcript: str, expect: Mapping[str, Any], context: ScoreContext
) -> tuple[str, dict[str, Any], ScoreContext]:
    """The transcript, ``expect`` and context as a scorer of ``context.language`` reads them."""
    language = context.language
    folded_context = dataclasses.replace(
        context,
        text=fold_text(context.text, language),
        span=fold_text(context.span, language) if context.span else context.span,
    )
    return fold_text(transcript, language), fold_expect(expect, language), folded_context


def _reading_folded(judge: ScoreFunction) -> ScoreFunction:
    """``judge`` given its inputs folded for the context's language (unless its scorer is a published matcher)."""

    @functools.wraps(judge)
    def score(self: Scorer, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        if self.folding == "language":
            transcript, expect, context = fold_inputs(transcript, expect, context)
        return judge(self, transcript, expect, context)

    score.reads_folded = True  # type: ignore[attr-defined]
    return score


class Scorer:
    """Base class for scorers. Subclasses set ``name`` and ``expect_schema`` and implement ``score``."""

    name: ClassVar[str] = ""
    #: JSON Schema the item's ``expect`` mapping must satisfy.
    expect_schema: ClassVar[Mapping[str, Any]] = {"type": "object"}
    #: True when ``expect`` holds several targets that each become a test (``readings``).
    splits_targets: ClassVar[bool] = False
    #: False for items judged by people only: they are synthesized but never transcribed.
    needs_transcript: ClassVar[bool] = True
    #: which fold the inputs get before ``score`` runs (see :data:`Folding`)
    folding: ClassVar[Folding] = "language"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("score")
        if own is not None and not getattr(own, "reads_folded", False):
            setattr(cls, "score", _reading_folded(own))  # noqa: B010 - mypy refuses assigning a method

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
