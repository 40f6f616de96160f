"""``keyword``: the canonicalized transcript must contain the expected keyword or an alternate."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.verdict import Verdict


def canonicalize(text: str, language: str = "") -> str:
    """NFC, case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text).casefold()).strip()


class KeywordScorer(Scorer):
    name: ClassVar[str] = "keyword"
    expect_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["expected"],
        "additionalProperties": False,
        "properties": {
            "keyword": {"type": "string", "minLength": 1},
            "expected": {"type": "string", "minLength": 1},
            "alternates": {"type": "array", "items": {"type": "string", "minLength": 1}},
        },
    }

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        forms = [expect["expected"], *expect.get("alternates", [])]
        return "keyword " + " | ".join(forms)

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        heard = canonicalize(transcript, context.language)
        heard_compact = heard.replace(" ", "")
        forms = [expect["expected"], *expect.get("alternates", [])]
        for form in forms:
            canon = canonicalize(form, context.language)
            if canon in heard or canon.replace(" ", "") in heard_compact:
                return Verdict("correct", matched=(form,), heard=(heard,))
        return Verdict("wrong", missing=tuple(forms), heard=(heard,))
