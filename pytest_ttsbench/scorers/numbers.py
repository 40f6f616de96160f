"""``numbers``: every expected value must be heard, counted as a multiset.

Each language contributes a parser from transcript text to :class:`NumberToken` values
(``numbers_en``, ``numbers_ar``, ``numbers_zh``). Matching is shared: an expected value matches a
parsed value when both are the same number (``3.50`` = ``3.5``), except that a value written with
leading zeros (``0123``) is a digit string and must match digit for digit. Integers heard back
to back (``twenty twenty-six`` → ``20 26``, ``five five five`` → ``5 5 5``) may be joined to
match one expected integer, but only when nothing but spaces stands between them (or a hyphen or
comma between single digits, as in ``5-5-5``), so ``20 to 26`` or ``20-26`` never becomes
``2026``. Consecutive expected groups whose later groups have a leading zero (``555``, ``0123``;
the ``12``, ``05`` of a clock time) may be heard in any grouping of the same digits.

A verdict is ``wrong`` only on evidence: an expected value is missing and the transcript holds no
number-like material the parser could not read. Each language also names its number-like
material (numerals, number, scale, fraction and sign words: :data:`MATERIAL_FINDERS`); a span
of material the parser did not read whole ("two lakh", "forty below") is *unread*. Numbers parsed
inside an unread span are not evidence either way (the "two" of "two lakh" is not 2), and a
missing value with an unread span is ``unknown``, the span named in the evidence for a person to
settle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from pytest_ttsbench.registry import Registry
from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.currencies import currency_mismatch
from pytest_ttsbench.scorers.measures import measure_mismatch
from pytest_ttsbench.scorers.number_tokens import (
    RATIO_UNITS,
    Material,
    MaterialFinder,
    NumberParser,
    NumberToken,
    numeral_material,
)
from pytest_ttsbench.verdict import Verdict

#: language (a BCP-47 primary subtag) → number parser; third parties add theirs by entry point.
PARSERS: Registry[NumberParser] = Registry(
    "number parser",
    "pytest_ttsbench.number_parsers",
    {
        "en": "pytest_ttsbench.scorers.numbers_en:parse_numbers",
        "ar": "pytest_ttsbench.scorers.numbers_ar:parse_numbers",
        "zh": "pytest_ttsbench.scorers.numbers_zh:parse_numbers",
        "cmn": "pytest_ttsbench.scorers.numbers_zh:parse_numbers",
    },
)


#: language → what counts as number-like material there, read by the parser or not. A language
#: without one has its numerals (Unicode digits, fractions such as ½) as material.
MATERIAL_FINDERS: Registry[MaterialFinder] = Registry(
    "number material finder",
    "pytest_ttsbench.number_material",
    {
        "en": "pytest_ttsbench.scorers.numbers_en:number_material",
        "ar": "pytest_ttsbench.scorers.numbers_ar:number_material",
        "zh": "pytest_ttsbench.scorers.numbers_zh:number_material",
        "cmn": "pytest_ttsbench.scorers.numbers_zh:number_material",
    },
)


def register_parser(language: str, parser: NumberParser) -> None:
    """Make ``parser`` read numbers for ``language`` (a BCP-47 primary subtag such as ``en``).

    The other languages' parsers, built in or registered, stay as they are.
    """
    PARSERS.register(language.lower(), parser)


def parser_for(language: str) -> NumberParser | None:
    """The number parser for a BCP-47 tag (``en-US`` uses ``en``), or None when there is none."""
    tag = language.lower()
    for name in (tag, tag.split("-")[0]):
        if name in PARSERS:
            return PARSERS.get(name)
    return None


def material_finder_for(language: str) -> MaterialFinder:
    """What counts as number-like material for a BCP-47 tag; numerals only where a language names none."""
    tag = language.lower()
    for name in (tag, tag.split("-")[0]):
        if name in MATERIAL_FINDERS:
            return MATERIAL_FINDERS.get(name)
    return numeral_material


#: What may stand between two pieces of one number: "twenty-six", "5k", "two lakh".
_MATERIAL_GAP = frozenset(" \t\n\u00a0-‐‑–")


def unread_spans(text: str, tokens: list[NumberToken], material: list[Material]) -> list[tuple[int, int]]:
    """The spans of number-like material the parser did not read whole, as (start, end) offsets.

    Pieces of material next to each other (only spaces or a hyphen between, or a joiner such as
    "and") form one span; the span is unread when any of its pieces lies outside every token.
    """
    runs: list[list[Material]] = []
    for piece in sorted(material, key=lambda m: (m.start, m.end)):
        if runs and set(text[runs[-1][-1].end : piece.start]) <= _MATERIAL_GAP and runs[-1][-1].end <= piece.start:
            runs[-1].append(piece)
        else:
            runs.append([piece])
    spans: list[tuple[int, int]] = []
    for run in runs:
        pieces = [p for p in run if not p.joiner]
        if not pieces:
            continue
        if any(not _read(text, piece, tokens) for piece in pieces):
            spans.append((pieces[0].start, pieces[-1].end))
    return spans


def _read(text: str, piece: Material, tokens: list[NumberToken]) -> bool:
    """Whether the tokens cover every letter and digit of a piece of material (the hour and the
    minutes of "9.45pm" are two tokens; the point between them is read as the clock's)."""
    return all(any(t.start <= at < t.end for t in tokens) for at in range(piece.start, piece.end) if text[at].isalnum())


#: A date written in digits (10/06/2005, 2016-11-03, 15.01.2020): its month may be said by name.
NUMERIC_DATE = re.compile(r"(?<![\d.])\d{1,4}([-/.])\d{1,2}\1\d{1,4}(?![\d.])")


def _outside(token: NumberToken, spans: list[tuple[int, int]]) -> bool:
    return not any(token.start < end and start < token.end for start, end in spans)


def same_value(expected: str, heard: str) -> bool:
    """True when ``heard`` is the number ``expected`` names; leading zeros make it a digit string."""
    if _is_digit_string(expected) or _is_digit_string(heard):
        return expected == heard
    try:
        return Decimal(expected) == Decimal(heard)
    except InvalidOperation:
        return expected == heard


def _is_digit_string(value: str) -> bool:
    return len(value) > 1 and _is_plain_integer(value) and value.startswith("0")


def _is_plain_integer(value: str) -> bool:
    """Digits only (ASCII): no sign, no point. Only such values are ever joined or regrouped."""
    return value.isascii() and value.isdigit()


#: Between the parts of one number read in pieces ("nineteen eighty-four" → "19 84").
_SPACES = set(" \t\n\u00a0")
#: Between single digits read one by one, transcribers also write "5-5-5" or "5, 5, 5".
_DIGIT_BY_DIGIT_GAP = _SPACES | set(",-‐‑–")


def _back_to_back(left: NumberToken, right: NumberToken, text: str) -> bool:
    """Whether ``right`` directly follows ``left`` as the next piece of one number.

    Only spaces may stand between them, so "20 to 26", "20, 26" and "20-26" (a range, or groups
    the transcriber wrote apart) never make 2026. A hyphen or comma is allowed only between two
    single digits, the way a number read digit by digit is written ("5-5-5", "5, 5, 5").
    """
    if right.start < left.end:
        return False
    gap = text[left.end : right.start]
    if set(gap) <= _SPACES:
        return True
    return len(left.value) == 1 and len(right.value) == 1 and set(gap) <= _DIGIT_BY_DIGIT_GAP


@dataclass(frozen=True)
class _Candidate:
    """A way to match expected values ``first``..``last`` (inclusive) with some parsed tokens."""

    first: int
    last: int
    tokens: frozenset[int]


def _runs(tokens: list[NumberToken], text: str, max_digits: int) -> list[tuple[str, tuple[int, ...]]]:
    """Every run of integer tokens heard back to back (one token or more), with its joined digits."""
    integer = [i for i, t in enumerate(tokens) if _is_plain_integer(t.value) and t.joins]
    follows = {i: [j for j in integer if _back_to_back(tokens[i], tokens[j], text)] for i in integer}
    runs: list[tuple[str, tuple[int, ...]]] = []

    def extend(digits: str, used: tuple[int, ...]) -> None:
        runs.append((digits, used))
        for nxt in follows[used[-1]]:
            if len(digits) + len(tokens[nxt].value) <= max_digits:
                extend(digits + tokens[nxt].value, (*used, nxt))

    for first in integer:
        if len(tokens[first].value) <= max_digits:
            extend(tokens[first].value, (first,))
    return runs


def _candidates(expected: list[str], tokens: list[NumberToken], text: str) -> list[_Candidate]:
    """All ways to match an expected value, or a group of them, with tokens.

    * one token that is the same number (``3.5`` for ``3.50``);
    * integer tokens heard back to back, joined, for one integer (``19 84`` for ``1984``,
      ``5 5 5`` for ``555``);
    * the same digits in another grouping for consecutive expected integers whose later groups
      are digit strings (``1205`` for ``12``, ``05``; ``5550123`` for ``555``, ``0123``). A group
      with a leading zero is read digit by digit, so where it begins cannot be heard; any other
      boundary can, which is why ``2026`` never stands for ``20``, ``26``.
    """
    found = [
        _Candidate(e, e, frozenset([t]))
        for e, value in enumerate(expected)
        for t, token in enumerate(tokens)
        if same_value(value, token.value)
    ]
    groups: dict[str, list[tuple[int, int]]] = {}
    for first, value in enumerate(expected):
        if not _is_plain_integer(value):
            continue
        groups.setdefault(value, []).append((first, first))
        joined = value
        for last in range(first + 1, len(expected)):
            if not _is_digit_string(expected[last]):
                break
            joined += expected[last]
            groups.setdefault(joined, []).append((first, last))
    if not groups:
        return found
    for digits, used in _runs(tokens, text, max(len(d) for d in groups)):
        for first, last in groups.get(digits, []):
            if first < last or len(used) > 1:
                found.append(_Candidate(first, last, frozenset(used)))
    return found


_SEARCH_BUDGET = 20_000


def match_values(expected: list[str], tokens: list[NumberToken], text: str) -> tuple[list[str], list[str]]:
    """Split ``expected`` into (matched, missing) against the parsed tokens.

    Each token serves at most one expected value, and tokens whose spans overlap (a parser's
    alternative readings of the same words) are never both used. Among all such assignments the
    one matching the most expected values wins, so the order of ``expected`` does not matter.
    """
    candidates = _candidates(expected, tokens, text)
    by_first: dict[int, list[_Candidate]] = {}
    for cand in sorted(candidates, key=lambda c: (len(c.tokens), c.last - c.first)):
        by_first.setdefault(cand.first, []).append(cand)
    overlapping = [
        frozenset(j for j, other in enumerate(tokens) if other.start < token.end and token.start < other.end) | {i}
        for i, token in enumerate(tokens)
    ]

    best: list[_Candidate] = []
    best_count = 0
    steps = 0

    def search(index: int, blocked: frozenset[int], chosen: list[_Candidate], count: int) -> None:
        nonlocal best, best_count, steps
        steps += 1
        if count > best_count:
            best, best_count = list(chosen), count
        if index >= len(expected) or count + len(expected) - index <= best_count or steps > _SEARCH_BUDGET:
            return
        for cand in by_first.get(index, []):
            if cand.tokens & blocked:
                continue
            closure = frozenset().union(*(overlapping[t] for t in cand.tokens))
            chosen.append(cand)
            search(cand.last + 1, blocked | closure, chosen, count + cand.last - cand.first + 1)
            chosen.pop()
        search(index + 1, blocked, chosen, count)

    search(0, frozenset(), [], 0)
    covered = {e for cand in best for e in range(cand.first, cand.last + 1)}
    matched = [value for e, value in enumerate(expected) if e in covered]
    missing = [value for e, value in enumerate(expected) if e not in covered]
    return matched, missing


def usable_tokens(tokens: list[NumberToken], written: list[NumberToken] | None) -> list[NumberToken]:
    """The heard tokens that may stand for an expected value, given the tokens of the written text.

    A token counted in a unit (a ratio, a currency's sub-unit) stands only for a value the text
    writes in that unit: 千分之五 is 5‰, which the ``5`` of ``5%`` is not. A plain token does not
    stand for a value the text writes only in a sub-unit (五块 is not the 5 of 5毛). Without the
    written text (None) every token may stand.
    """
    if written is None:
        return tokens
    units = {t.unit for t in written if t.unit}
    return [t for t in tokens if (t.unit in units if t.unit else not _only_in_sub_units(t.value, written))]


def _only_in_sub_units(value: str, written: list[NumberToken]) -> bool:
    """Whether the text writes ``value`` only as a count of a currency's sub-unit (the 5 of 5毛):
    then a plain 5 (五块, five yuan) is another amount, not that one."""
    counts = [t.unit for t in written if same_value(t.value, value)]
    return bool(counts) and all(unit and unit not in RATIO_UNITS and unit != "/" for unit in counts)


def _other_unit_note(
    expected: list[str], tokens: list[NumberToken], usable: list[NumberToken], transcript: str, missing: int
) -> str:
    """Why a value is missing when it was heard, but only counted in a unit the text does not write."""
    if len(usable) == len(tokens) or len(match_values(expected, tokens, transcript)[1]) >= missing:
        return ""
    others = sorted({t.value + t.unit for t in tokens if t not in usable})
    return f"heard counted in another unit than the text writes: {', '.join(others)}"


class NumbersScorer(Scorer):
    name: ClassVar[str] = "numbers"
    expect_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["values"],
        "additionalProperties": False,
        "properties": {
            "values": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "pattern": r"^-?(\d+(\.\d+)?|\.\d+)\Z"},
            }
        },
    }

    def check(self, expect: Mapping[str, Any], language: str) -> list[tuple[str, str]]:
        if parser_for(language) is None:
            return [("language", f"scorer 'numbers' has no number parser for language {language!r}")]
        return []

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        return "values " + ", ".join(expect["values"])

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        parser = parser_for(context.language)
        if parser is None:
            return Verdict("error", note=f"no number parser for language {context.language!r}")
        tokens = parser(transcript)
        if not NUMERIC_DATE.search(context.text):
            tokens = [t for t in tokens if t.kind != "month"]
        spans = unread_spans(transcript, tokens, material_finder_for(context.language)(transcript))
        readable = [t for t in tokens if _outside(t, spans)]
        usable = usable_tokens(readable, parser(context.text) if context.text.strip() else None)
        matched, missing = match_values(list(expect["values"]), usable, transcript)
        heard = tuple(t.value + t.unit for t in tokens)
        if missing and spans:
            return Verdict(
                "unknown",
                matched=tuple(matched),
                missing=tuple(missing),
                heard=heard,
                unread=tuple(transcript[start:end] for start, end in spans),
                note="number words the scorer cannot read stand where a value may be",
            )
        if missing:
            note = _other_unit_note(list(expect["values"]), readable, usable, transcript, len(missing))
            return Verdict("wrong", matched=tuple(matched), missing=tuple(missing), heard=heard, note=note)
        for kind, mismatch in (("currency", currency_mismatch), ("measure", measure_mismatch)):
            other = mismatch(context.text, transcript, context.language)
            if other is not None:
                written, said = other
                note = f"the values were heard in another {kind}: {', '.join(sorted(said))}"
                note += f" for {', '.join(sorted(written))}"
                return Verdict("wrong", matched=tuple(matched), heard=heard, note=note)
        return Verdict("correct", matched=tuple(matched), heard=heard)
