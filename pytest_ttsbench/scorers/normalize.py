"""A transcript folded to what the voice said, not how the recognizer chose to write it.

Recognizers vary in formatting from one clip to the next even when the speech is the same:
"Mortgage" and "mortgage", "three to five" and "3 to 5", a trailing full stop or not. Snapshot
comparison uses :func:`normalized_transcript`, so only a change in what was *said* shows:

* the language's fold (:func:`~pytest_ttsbench.scorers.folding.fold_text`: default-ignorable
  characters, NFKC, digit scripts, Traditional Chinese, Thai mark order), as every scorer reads it,
  then case folding;
* every number the language's own reader finds (``scorers/numbers_<lang>.py``) replaced by its
  value, so spoken and written numbers agree;
* punctuation outside numbers dropped, whitespace collapsed.

Languages without a number reader still get the rest.
"""

from __future__ import annotations

import unicodedata

from pytest_ttsbench.scorers.folding import fold_text
from pytest_ttsbench.scorers.numbers import NumberToken, parser_for


def _non_overlapping(tokens: list[NumberToken]) -> list[NumberToken]:
    """The readings to use: left to right, the longest at each position, never two that overlap.

    A reader may offer alternatives for the same words (``6.30`` as 6.30, or as 6 and 30); the
    longest is the one a person would write down.
    """
    chosen: list[NumberToken] = []
    end = -1
    for token in sorted(tokens, key=lambda t: (t.start, -(t.end - t.start))):
        if token.start >= end:
            chosen.append(token)
            end = token.end
    return chosen


def _fold_words(text: str) -> str:
    """Case folded, punctuation and symbols replaced by spaces (letters, marks and digits kept)."""
    return "".join(ch if unicodedata.category(ch)[0] in "LMN" else " " for ch in text.casefold())


def normalized_transcript(text: str | None, language: str) -> str:
    """``"Bake the cookies for three to five minutes."`` → ``"bake the cookies for 3 to 5 minutes"``."""
    if not text:
        return ""
    text = fold_text(text, language)
    parser = parser_for(language)
    # A month's name stays a word: only a numeric date's text makes it a number (NumberToken.kind).
    tokens = _non_overlapping([t for t in parser(text) if not t.kind]) if parser is not None else []
    pieces: list[str] = []
    position = 0
    for token in tokens:
        pieces.append(_fold_words(text[position : token.start]))
        pieces.append(f" {token.value} ")
        position = token.end
    pieces.append(_fold_words(text[position:]))
    return " ".join("".join(pieces).split())
