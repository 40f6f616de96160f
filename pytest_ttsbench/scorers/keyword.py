"""``keyword``: the canonicalized transcript must contain the expected keyword or an alternate.

Both sides go through :func:`canonicalize`, then matching is an exact substring test, tried once
with spaces and once with every space removed (recognizers put spaces between Thai words, or
not, at will). There is no fuzzy matching: a form that differs after canonicalization is wrong.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers import thai
from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.verdict import Verdict

# Zero-width space, non-joiner, joiner, word joiner, and the BOM / zero-width no-break space.
# Invisible, so a transcript or case file may carry them without anyone seeing a difference.
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_WHITESPACE = re.compile(r"\s+")

# Language rules: text → its possible readings, the one shown as the canonical form first.
# Thai has several readings only because ``ๆ`` repeats a word whose start is not written.
_LANGUAGE_READINGS: dict[str, Callable[[str], list[str]]] = {
    "th": lambda text: thai.mai_yamok_readings(thai.normalize_spelling(text)),
}


def _anywhere(form: str, text: str) -> bool:
    return form in text


def _thai_whole(form: str, text: str) -> bool:
    """``form`` in ``text`` at a place where it is not part of another syllable (see thai.py)."""
    return any(thai.stands_alone(text, start, start + len(form)) for start in _occurrences(form, text))


def _occurrences(form: str, text: str) -> list[int]:
    found, start = [], text.find(form)
    while start >= 0:
        found.append(start)
        start = text.find(form, start + 1)
    return found


# Language rules for where a keyword may be found: Thai writes no spaces, so a keyword can sit
# inside another word (มา in หมา, ไก in ไก่); the rule refuses the places the spelling rules out.
_WHOLE_WORD_RULES: dict[str, Callable[[str, str], bool]] = {"th": _thai_whole}


def _readings(text: str, language: str) -> list[str]:
    """Every canonical reading of ``text``; the first is what :func:`canonicalize` returns."""
    text = unicodedata.normalize("NFC", text).translate(_ZERO_WIDTH)
    language_rules = _LANGUAGE_READINGS.get(language.lower().split("-")[0])
    variants = language_rules(text) if language_rules else [text]
    return [_WHITESPACE.sub(" ", v.casefold()).strip() for v in variants]


def canonicalize(text: str, language: str = "") -> str:
    """The form both sides of a keyword comparison take.

    For every language: NFC, zero-width characters removed, case folded, whitespace runs
    collapsed to one space. For Thai (``th``, ``th-TH``) also the rules of
    :mod:`pytest_ttsbench.scorers.thai`, with ``ๆ`` repeating the whole run of Thai letters
    before it.
    """
    return _readings(text, language)[0]


class KeywordScorer(Scorer):
    name: ClassVar[str] = "keyword"
    #: whether a language's rule of where a keyword may stand applies (the published protocol has none)
    whole_word_rules: ClassVar[bool] = True
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

    def check(self, expect: Mapping[str, Any], language: str) -> list[tuple[str, str]]:
        # A form that canonicalizes to nothing is a substring of every transcript.
        fields = [("expect.expected", expect.get("expected", ""))] + [
            (f"expect.alternates[{i}]", form) for i, form in enumerate(expect.get("alternates", []))
        ]
        return [
            (path, f"{form!r} is empty after canonicalization and would match any transcript")
            for path, form in fields
            if isinstance(form, str) and not canonicalize(form, language).replace(" ", "")
        ]

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        forms = " | ".join([expect["expected"], *expect.get("alternates", [])])
        keyword = expect.get("keyword")
        return f"keyword {keyword}: {forms}" if keyword else f"keyword {forms}"

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        readings = _readings(transcript, context.language)
        heard = readings[0]
        forms: list[str] = [expect["expected"], *expect.get("alternates", [])]
        canon_forms = [canonicalize(form, context.language) for form in forms]
        for form, canon in zip(forms, canon_forms, strict=True):
            if not canon.replace(" ", ""):
                continue
            rules = _WHOLE_WORD_RULES if self.whole_word_rules else {}
            whole = rules.get(context.language.lower().split("-")[0], _anywhere)
            for reading in readings:
                if whole(canon, reading):
                    spaces = "kept"
                elif whole(canon.replace(" ", ""), reading.replace(" ", "")):
                    spaces = "removed"
                else:
                    continue
                extra: dict[str, Any] = {"matched_form": canon, "spaces": spaces}
                if reading != heard:
                    extra["reading"] = reading
                return Verdict("correct", matched=(form,), heard=(heard,), extra=extra)
        return Verdict("wrong", missing=tuple(forms), heard=(heard,), extra={"canonical_forms": canon_forms})
