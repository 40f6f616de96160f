"""The verdict a scorer gives one target, with the evidence a person needs to act on it."""

from __future__ import annotations

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
    """

    outcome: Outcome
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    heard: tuple[str, ...] = ()
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
        if self.note:
            data["note"] = self.note
        data.update(self.extra)
        return data

    def explain(self) -> str:
        """One line saying why: what is missing, which negative reading matched, or what matched."""
        parts: list[str] = []
        if self.negative:
            parts.append("negative reading heard: " + ", ".join(self.negative))
        if self.missing:
            parts.append("missing: " + ", ".join(self.missing))
        if self.matched and not (self.negative or self.missing):
            parts.append("matched: " + ", ".join(self.matched))
        if self.heard:
            parts.append("parsed from transcript: " + ", ".join(self.heard))
        if self.note:
            parts.append(self.note)
        return "; ".join(parts) or self.outcome
