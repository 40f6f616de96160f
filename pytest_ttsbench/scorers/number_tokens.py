"""What a number parser returns: the tokens shared by the scorer and the per-language parsers."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

#: The ratios a value may be said per. 千分之五 and خمسة في الألف are 5 per mille, not 5 per cent.
RATIO_UNITS = ("%", "‰", "‱")


@dataclass(frozen=True)
class NumberToken:
    """One number found in a transcript: its value as a decimal string and where it was found.

    ``start``/``end`` are character offsets into the text given to the parser, used to decide
    whether two tokens were heard back to back. A parser may return alternative readings of the
    same words as tokens whose spans overlap; the matcher never uses two overlapping tokens.

    ``unit`` names what the value counts when that changes its meaning: a ratio (``%``, ``‰``,
    ``‱``) or a currency's sub-unit (``毛``, ``فلس``). Such a token stands for an expected value
    only where the item's written text counts in the same unit (see ``numbers.usable_tokens``):
    千分之五 (5‰) never matches the 5 of ``5%``, 五毛 never the 5 of ``¥5``. A parser that knows the
    value in the plain unit says so with another, overlapping token (五毛 is also ``0.5``).

    ``joins`` is False for a token that must never be run together with its neighbour into one
    longer number, as digits read in pieces are: the numerator and denominator of a fraction.
    """

    value: str
    start: int
    end: int
    unit: str = ""
    joins: bool = True
    #: "month" for a month's name ("october" 10): a number only where the item's text writes its
    #: date in digits (10/06/2005), never where it names the month (the 5th of May is no 5).
    kind: str = ""


NumberParser = Callable[[str], list[NumberToken]]


@dataclass(frozen=True)
class Material:
    """One piece of number-like material in a transcript: a numeral, a number word, a scale word, a
    fraction or sign word ("lakh", "below", "½"), at ``start``..``end``.

    A ``joiner`` ("and", "a", "of" in "one and a half crore"; "dollars" in "twenty dollars")
    belongs to a number without changing it: it joins pieces into one span, and a reading may
    take it in or not, so it is never unread by itself.
    """

    start: int
    end: int
    joiner: bool = False


#: Finds the number-like material of a language in a transcript, whether its parser reads it or not.
MaterialFinder = Callable[[str], list[Material]]


def is_numeral_char(ch: str) -> bool:
    """A digit of any script, or a numeric symbol (½, ², Ⅻ): number-like in every language."""
    return unicodedata.category(ch) in ("Nd", "No", "Nl")


def numeral_material(text: str) -> list[Material]:
    """Each run of numeral characters in ``text`` (the material every language has)."""
    found: list[Material] = []
    start = None
    for index, ch in enumerate(f"{text} "):
        if is_numeral_char(ch) and start is None:
            start = index
        elif not is_numeral_char(ch) and start is not None:
            found.append(Material(start, index))
            start = None
    return found
