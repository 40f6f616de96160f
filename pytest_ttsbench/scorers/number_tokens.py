"""What a number parser returns: the tokens shared by the scorer and the per-language parsers."""

from __future__ import annotations

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


NumberParser = Callable[[str], list[NumberToken]]
