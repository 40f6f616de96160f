"""``readings``: did the transcript contain an accepted reading of a span, or a forbidden one?

For one transcript: a negative reading found → wrong; else a positive reading found → correct;
else unknown (the recognizer wrote something we cannot judge). Both sides are canonicalized
with :func:`~pytest_ttsbench.scorers.text.readings_canon` first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.text import readings_canon
from pytest_ttsbench.verdict import Verdict

_READINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}

TARGET_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "required": ["span", "positive"],
    "additionalProperties": False,
    "properties": {
        "span": {"type": "string", "minLength": 1},
        "positive": {**_READINGS, "minItems": 1},
        "negative": _READINGS,
        "category": {"type": "string", "minLength": 1},
        "group": {"type": "string"},
        "auto_evaluable": {"type": "boolean"},
        "target_id": {"type": "string"},
    },
}


class ReadingsScorer(Scorer):
    name: ClassVar[str] = "readings"
    splits_targets: ClassVar[bool] = True
    expect_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["targets"],
        "additionalProperties": False,
        "properties": {"targets": {"type": "array", "minItems": 1, "items": TARGET_SCHEMA}},
    }

    def check(self, expect: Mapping[str, Any], language: str) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        spans = [t.get("span") for t in expect.get("targets", [])]
        for index, span in enumerate(spans):
            if spans.count(span) > 1 and spans.index(span) != index:
                problems.append((f"expect.targets[{index}].span", f"duplicate span {span!r} within the item"))
        for index, target in enumerate(expect.get("targets", [])):
            both = {readings_canon(r) for r in target.get("positive", [])} & {
                readings_canon(r) for r in target.get("negative", [])
            }
            if both:
                problems.append((f"expect.targets[{index}]", f"readings both positive and negative: {sorted(both)}"))
        return problems

    def targets(self, expect: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return list(expect["targets"])

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        text = f"{expect['span']} read as one of {list(expect['positive'])}"
        if expect.get("negative"):
            text += f", never {list(expect['negative'])}"
        return text

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        heard = readings_canon(transcript)
        negatives = tuple(r for r in expect.get("negative", []) if readings_canon(r) and readings_canon(r) in heard)
        if negatives:
            return Verdict("wrong", negative=negatives, heard=(heard,))
        positives = tuple(r for r in expect["positive"] if readings_canon(r) and readings_canon(r) in heard)
        if positives:
            return Verdict("correct", matched=positives, heard=(heard,))
        return Verdict(
            "unknown",
            missing=tuple(expect["positive"]),
            heard=(heard,),
            note="neither an accepted nor a forbidden reading was heard",
        )
