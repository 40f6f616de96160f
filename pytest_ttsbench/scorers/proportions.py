"""Percent, per mille and per ten thousand: the proportion an amount is said in.

"5%" read "five per mille" keeps the value 5 but says a tenth of it, as "$5" read "five euros"
keeps the value but not the currency. The ``numbers`` scorer checks it the same way: when the
item's text writes a proportion (a sign or a word) and the transcript says proportions, one of
them must be the written one; a transcript that says none is judged on its values (a recognizer
may write "5" for "five percent"). Each language lists its words; the signs are shared.
"""

from __future__ import annotations

import re
from functools import cache

#: proportion → the signs that write it, and per language the words that say it.
PROPORTIONS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]] = {
    "percent": (
        ("%", "٪", "％", "﹪"),
        {"en": ("percent", "per cent", "percentage point", "percentage points", "pct")},
    ),
    "per mille": (
        ("‰", "؉"),
        {"en": ("per mille", "per mil", "per mill", "permille", "permil", "per thousand")},
    ),
    "per ten thousand": (
        ("‱",),
        {"en": ("per ten thousand", "basis point", "basis points", "permyriad")},
    ),
}


@cache
def _pattern(word: str) -> re.Pattern[str]:
    spaced = r"\s+".join(re.escape(part) for part in word.split())
    return re.compile(rf"(?<!\w){spaced}(?!\w)", re.IGNORECASE)


def said(text: str, language: str) -> set[str]:
    """The proportions ``text`` writes or says in ``language`` (a BCP-47 tag)."""
    primary = language.lower().split("-")[0]
    found = set()
    for name, (signs, words) in PROPORTIONS.items():
        if any(sign in text for sign in signs) or any(_pattern(w).search(text) for w in words.get(primary, ())):
            found.add(name)
    return found


def proportion_mismatch(written: str, transcript: str, language: str) -> tuple[set[str], set[str]] | None:
    """(written proportions, heard proportions) when the transcript says only other ones, else None."""
    wanted, heard = said(written, language), said(transcript, language)
    if wanted and heard and not wanted & heard:
        return wanted, heard
    return None
