"""What a number parser returns: the tokens shared by the scorer and the per-language parsers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class NumberToken:
    """One number found in a transcript: its value as a decimal string and where it was found.

    ``start``/``end`` are character offsets into the text given to the parser, used to decide
    whether two tokens were heard back to back. A parser may return alternative readings of the
    same words as tokens whose spans overlap; the matcher never uses two overlapping tokens.
    """

    value: str
    start: int
    end: int


NumberParser = Callable[[str], list[NumberToken]]
