"""``keyword``: the canonicalized transcript must contain the expected keyword or an alternate.

Both sides arrive folded (:mod:`~pytest_ttsbench.scorers.folding`: invisible characters, width,
digit scripts, Thai mark order) and go through :func:`canonicalize`; matching is an exact
substring test, tried once with spaces and once with every space removed (recognizers put spaces
between Thai words, or not, at will). There is no fuzzy matching: a form that differs after
canonicalization is never correct. For Thai, a ฯ that shortens a name is silent (กรุงเทพฯ is heard
as กรุงเทพ), and a keyword that carries a number also matches the same amount written another way
(:mod:`~pytest_ttsbench.scorers.thai_numbers`: digits with or without separators, number words,
baht and satang); in every language ``1,000`` is ``1000``.

Wrong only on evidence: when no form is found, the scorer looks at what was heard where the
keyword stands in the item's text (the transcript aligned with the text around it). Nothing there,
or a reading in the keyword's own script(s) that differs, or another amount, is ``wrong``. Where
that place cannot be found or holds something the scorer cannot compare (another script than any
listed form, the same amount with words it cannot read), the verdict is ``unknown`` and the span is
named in the evidence (``unread``) for a person to settle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any, ClassVar

from pytest_ttsbench.scorers import thai, thai_numbers
from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.folding import fold_text
from pytest_ttsbench.verdict import Outcome, Verdict

_WHITESPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def _thai_readings(text: str, numeric: bool) -> list[str]:
    # Thai has several readings only because ``ๆ`` repeats a word whose start is not written.
    # ฯ goes after: a ๆ right after it has no word before it to repeat (กรุงเทพฯ ๆ).
    readings = thai.mai_yamok_readings(thai_numbers.amounts_in_digits(text) if numeric else text)
    return list(dict.fromkeys(thai.silent_paiyannoi(reading) for reading in readings))


# Language rules: folded text → its possible readings, the one shown as the canonical form first;
# ``numeric`` asks for amounts written one way (a keyword carrying a number).
_LANGUAGE_READINGS: dict[str, Callable[[str, bool], list[str]]] = {"th": _thai_readings}


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


def _primary(language: str) -> str:
    return language.lower().split("-")[0]


# A hyphen or dash between two letters is not said: Wi-Fi, WiFi and Wi Fi read the same, as do
# e-mail and email (spaces are then matched either way). Between digits it may be a range: kept.
_SILENT_HYPHEN = re.compile(r"(?<=[^\W\d_])[\u002d\u2010-\u2015\u2212](?=[^\W\d_])")


def _readings(text: str, language: str, numeric: bool = False) -> list[str]:
    """Every canonical reading of folded ``text``; the first is what :func:`canonicalize` returns."""
    text = _SILENT_HYPHEN.sub(" ", text)
    language_rules = _LANGUAGE_READINGS.get(_primary(language))
    if language_rules:
        variants = language_rules(text, numeric)
    else:
        variants = [thai_numbers.drop_thousands_separators(text) if numeric else text]
    return [_WHITESPACE.sub(" ", v.casefold()).strip() for v in variants]


def canonicalize(text: str, language: str = "") -> str:
    """The form both sides of a keyword comparison take.

    The language's fold (:func:`~pytest_ttsbench.scorers.folding.fold_text`), case folded,
    whitespace runs collapsed to one space. For Thai (``th``, ``th-TH``) also a silent ฯ dropped and
    ``ๆ`` repeating the whole run of Thai letters before it (:mod:`pytest_ttsbench.scorers.thai`).
    """
    return _readings(fold_text(text, language), language)[0]


def _flat(text: str) -> str:
    return text.replace(" ", "")


def _scripts(text: str) -> set[str]:
    """Which scripts the letters and digits of ``text`` are in: thai, digit, latin, other."""
    kinds = set()
    for ch in text:
        if ch.isdigit():
            kinds.add("digit")
        elif "\u0e00" <= ch <= "\u0e7f":
            kinds.add("thai")
        elif ch.isalpha():
            kinds.add("latin" if ch.isascii() or ch <= "\u024f" else "other")
    return kinds


#: how long a stretch of the item's text must be heard unchanged to mark where the keyword starts or ends
_ANCHOR = 2
#: how close a stretch of the transcript must be to a form to count as heard in its place, without the text
_NEAR = 0.6


def heard_in_place(heard: str, written: str, start: int, end: int) -> str | None:
    """What ``heard`` holds where ``written[start:end]`` stands, or None when that place cannot be found.

    Both are canonical and space-free. The two are aligned (difflib); the place is between the last
    stretch of at least :data:`_ANCHOR` characters heard unchanged before ``start`` (or the start of
    the text) and the first such stretch after ``end`` (or the end of the text).
    """
    blocks = [b for b in SequenceMatcher(None, written, heard, autojunk=False).get_matching_blocks() if b.size]
    left = 0 if start == 0 else None
    right = len(heard) if end == len(written) else None
    for block in blocks:
        before = min(block.size, start - block.a)
        if before >= _ANCHOR or (before > 0 and block.a == 0):
            left = block.b + before
        after = block.a + block.size - max(end, block.a)
        if right is None and block.a + block.size > end and (after >= _ANCHOR or block.a + block.size == len(written)):
            right = block.b + max(0, end - block.a)
    if left is None or right is None or left > right:
        return None
    # The alignment may pair a letter of the keyword with the same letter just after or before it
    # (อุบล… heard as nothing before ออกไป leaves อ); the text going on right there means nothing is there.
    place = heard[left:right]
    follows = written[end : end + len(place) + _ANCHOR]
    precedes = written[max(0, start - len(place) - _ANCHOR) : start]
    if (follows and heard.startswith(follows, left)) or (precedes and heard[:right].endswith(precedes)):
        return ""
    return place


def _nearest(heard: str, forms: Sequence[str]) -> str | None:
    """The stretch of ``heard`` closest to one of ``forms``, when it is close (a near miss), else None."""
    best, best_ratio = None, _NEAR
    for form in forms:
        for size in range(max(1, len(form) - 2), len(form) + 3):
            for at in range(0, max(1, len(heard) - size + 1)):
                window = heard[at : at + size]
                ratio = SequenceMatcher(None, form, window, autojunk=False).ratio()
                if ratio >= best_ratio and window:
                    best, best_ratio = window, ratio
    return best


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
        language = context.language
        forms: list[str] = [expect["expected"], *expect.get("alternates", [])]
        numeric = any(thai_numbers.carries_number(form) for form in forms)
        heard = _readings(transcript, language)[0]
        # A keyword that carries a number is matched on amounts only: its digits or number words
        # must not run on into a longer number (หนึ่ง in หนึ่งพันเอ็ด, 15 in 150).
        for mode in (True,) if numeric else (False,):
            found = self._find(transcript, forms, language, mode)
            if found is not None:
                form, canon, reading, spaces = found
                extra: dict[str, Any] = {"matched_form": canon, "spaces": spaces}
                if reading != heard:
                    extra["reading"] = reading
                if mode:
                    extra["amount_read_as"] = reading
                return Verdict("correct", matched=(form,), heard=(heard,), extra=extra)
        return self._miss(heard, forms, expect, context, numeric)

    def _find(
        self, transcript: str, forms: list[str], language: str, numeric: bool
    ) -> tuple[str, str, str, str] | None:
        """(form, its canonical form, the transcript's reading, how spaces were treated) of the first form found."""
        readings = _readings(transcript, language, numeric)
        whole = _WHOLE_WORD_RULES.get(_primary(language), _anywhere)
        for form in forms:
            canon = _readings(form, language, numeric)[0]
            if not _flat(canon):
                continue
            for reading in readings:
                if whole(canon, reading):
                    return form, canon, reading, "kept"
                if whole(_flat(canon), _flat(reading)):
                    return form, canon, reading, "removed"
        return None

    def _miss(
        self, heard: str, forms: list[str], expect: Mapping[str, Any], context: ScoreContext, numeric: bool
    ) -> Verdict:
        """``wrong`` when what was heard in the keyword's place differs from it, else ``unknown`` naming it."""
        language = context.language
        canon_forms = [_readings(form, language)[0] for form in forms]
        extra: dict[str, Any] = {"canonical_forms": canon_forms}

        def verdict(outcome: Outcome, note: str, unread: str | None = None) -> Verdict:
            unread_spans = () if unread is None else (unread,)
            return Verdict(outcome, missing=tuple(forms), heard=(heard,), unread=unread_spans, note=note, extra=extra)

        place = self._place(heard, forms, expect, context)
        if place is None:
            place = _nearest(_flat(heard), [_flat(c) for c in canon_forms if _flat(c)]) if heard else ""
        if place is None:
            return verdict("unknown", "the keyword's place was not found", unread=heard)
        extra["heard_in_place"] = place
        if not place:
            return verdict("wrong", "nothing heard where the keyword stands")
        if numeric:
            said = set(_DIGITS.findall(_flat(_readings(place, language, numeric=True)[0])))
            written = {v for f in forms for v in _DIGITS.findall(_flat(_readings(f, language, numeric=True)[0]))}
            if said and written and not said & written:
                return verdict("wrong", "another amount heard where the keyword stands")
            unread = thai_numbers.number_words_not_read(place) if _primary(language) == "th" else []
            if unread:
                return verdict("unknown", "number words not read where the keyword stands", unread=place)
        if _scripts(place) & set().union(*(_scripts(c) for c in canon_forms)):
            return verdict("wrong", "another reading heard where the keyword stands")
        return verdict("unknown", "heard in another script", unread=place)

    def _place(self, heard: str, forms: list[str], expect: Mapping[str, Any], context: ScoreContext) -> str | None:
        """What the transcript holds where the item's text has the keyword, space-free; None if not found."""
        if not context.text:
            return None
        language = context.language
        written = _flat(_readings(context.text, language)[0])
        for anchor in (expect.get("keyword"), *forms):
            if not anchor:
                continue
            canon = _flat(_readings(str(anchor), language)[0])
            start = written.find(canon) if canon else -1
            if start >= 0:
                return heard_in_place(_flat(heard), written, start, start + len(canon))
        return None
