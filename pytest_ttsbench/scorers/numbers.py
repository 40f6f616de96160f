"""``numbers``: every expected value must be heard, counted as a multiset.

Each language contributes a parser from transcript text to :class:`NumberToken` values
(``numbers_en``, ``numbers_ar``, ``numbers_zh``). Matching is shared: an expected value matches a
parsed value when both are the same number (``3.50`` = ``3.5``), except that a value written with
leading zeros (``0123``) is a digit string and must match digit for digit. Digit groups heard
back to back (``555 0123``, ``twenty twenty-six`` → ``20 26``) may also be joined to match one
expected digit string, but only when nothing but spaces or hyphens stands between them in the
transcript, so ``20 to 26`` never becomes ``2026``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.verdict import Verdict


@dataclass(frozen=True)
class NumberToken:
    """One number found in a transcript: its value as a decimal string and where it was found.

    ``start``/``end`` are character offsets into the text given to the parser, used to decide
    whether two tokens were heard back to back.
    """

    value: str
    start: int
    end: int


NumberParser = Callable[[str], list[NumberToken]]

_PARSERS: dict[str, NumberParser] = {}


def register_parser(language: str, parser: NumberParser) -> None:
    """Make ``parser`` read numbers for ``language`` (a BCP-47 primary subtag such as ``en``)."""
    _PARSERS[language.lower()] = parser


def parser_for(language: str) -> NumberParser | None:
    """The number parser for a BCP-47 tag (``en-US`` uses ``en``), or None when there is none."""
    _load_builtin_parsers()
    tag = language.lower()
    return _PARSERS.get(tag) or _PARSERS.get(tag.split("-")[0])


def _load_builtin_parsers() -> None:
    if _PARSERS:
        return
    from pytest_ttsbench.scorers import numbers_ar, numbers_en, numbers_zh

    register_parser("en", numbers_en.parse_numbers)
    register_parser("ar", numbers_ar.parse_numbers)
    register_parser("zh", numbers_zh.parse_numbers)
    register_parser("cmn", numbers_zh.parse_numbers)


def same_value(expected: str, heard: str) -> bool:
    """True when ``heard`` is the number ``expected`` names; leading zeros make it a digit string."""
    if _is_digit_string(expected) or _is_digit_string(heard):
        return expected == heard
    try:
        return Decimal(expected) == Decimal(heard)
    except InvalidOperation:
        return expected == heard


def _is_digit_string(value: str) -> bool:
    return len(value) > 1 and value.isdigit() and value.startswith("0")


_JOINABLE_GAP = set(" -‐‑–\u00a0")


def _joined_runs(tokens: list[NumberToken], text: str) -> list[tuple[str, tuple[int, ...]]]:
    """Digit strings made by joining integer tokens heard back to back, with the token indexes used."""
    runs: list[tuple[str, tuple[int, ...]]] = []
    for first in range(len(tokens)):
        if not tokens[first].value.isdigit():
            continue
        joined, used = tokens[first].value, [first]
        for nxt in range(first + 1, len(tokens)):
            gap = text[tokens[nxt - 1].end : tokens[nxt].start]
            if not tokens[nxt].value.isdigit() or not set(gap) <= _JOINABLE_GAP:
                break
            joined += tokens[nxt].value
            used.append(nxt)
            runs.append((joined, tuple(used)))
    return runs


def match_values(
    expected: list[str], tokens: list[NumberToken], text: str
) -> tuple[list[str], list[str]]:
    """Split ``expected`` into (matched, missing) against the parsed tokens, each token used once."""
    free = set(range(len(tokens)))
    matched: list[str] = []
    missing: list[str] = []
    for value in expected:
        hit = next((i for i in sorted(free) if same_value(value, tokens[i].value)), None)
        if hit is not None:
            free.discard(hit)
            matched.append(value)
            continue
        joined = next(
            (used for digits, used in _joined_runs(tokens, text) if digits == value and set(used) <= free),
            None,
        )
        if joined is not None and value.isdigit():
            free.difference_update(joined)
            matched.append(value)
        else:
            missing.append(value)
    return matched, missing


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
                "items": {"type": "string", "pattern": r"^-?(\d+(\.\d+)?|\.\d+)$"},
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
        matched, missing = match_values(list(expect["values"]), tokens, transcript)
        heard = tuple(t.value for t in tokens)
        if missing:
            return Verdict("wrong", matched=tuple(matched), missing=tuple(missing), heard=heard)
        return Verdict("correct", matched=tuple(matched), heard=heard)
