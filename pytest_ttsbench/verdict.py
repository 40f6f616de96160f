"""The verdict a scorer gives one target, with the evidence a person needs to act on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["correct", "wrong", "unknown", "error"]
OUTCOMES: tuple[Outcome, ...] = ("correct", "wrong", "unknown", "error")


@dataclass(frozen=True)
class Verdict:
    """What a scorer concluded about one transcript against one expectation.

    ``matched`` lists the expected values or readings that were heard, ``missing`` those that
    were not, and ``negative`` the forbidden readings that were heard. ``heard`` holds what the
    scorer parsed out of the transcript (values, canonical text), so a reader can see why.
    ``unread`` holds the spans of the transcript that look like what was expected (number words,
    a spelling) but that the scorer cannot read: they make a verdict ``unknown`` rather than
    ``wrong``, and a person settles them.
    """

    outcome: Outcome
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    heard: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def evidence(self) -> dict[str, Any]:
        """The evidence as it is written to the results file."""
        data: dict[str, Any] = {
            "matched": list(self.matched),
            "missing": list(self.missing),
            "negative": list(self.negative),
            "heard": list(self.heard),
        }
        if self.unread:
            data["unread"] = list(self.unread)
        if self.note:
            data["note"] = self.note
        data.update(self.extra)
        return data

    def explain(self) -> str:
        """One line saying why: what is missing, which negative reading matched, or what matched."""
        return explain_evidence(self.evidence()) or self.outcome


def _listed(values: Any) -> str:
    return ", ".join(map(str, values))


def quoted_spans(spans: Any) -> str:
    """Unread spans as a person reads them in a line of evidence: 'forty below', 'two lakh'."""
    return ", ".join(repr(str(span)) for span in spans)


def explain_evidence(evidence: Mapping[str, Any]) -> str:
    """The one evidence formatter (failure messages, the HTML report, the dashboard, scorer tests).

    Says what decides the verdict first: a forbidden reading heard, then what is missing; what
    matched only when nothing went wrong; then what the scorer parsed, what it could not read
    (``unread: 'forty below'``) and its note. Empty when the
    evidence holds none of these.
    """
    parts: list[str] = []
    if evidence.get("negative"):
        parts.append("forbidden reading heard: " + _listed(evidence["negative"]))
    if evidence.get("missing"):
        parts.append("missing: " + _listed(evidence["missing"]))
    if evidence.get("matched") and not (evidence.get("negative") or evidence.get("missing")):
        parts.append("matched: " + _listed(evidence["matched"]))
    if evidence.get("heard"):
        parts.append("parsed: " + _listed(evidence["heard"]))
    if evidence.get("unread"):
        parts.append("unread: " + quoted_spans(evidence["unread"]))
    if evidence.get("note"):
        parts.append(str(evidence["note"]))
    return "; ".join(parts)
