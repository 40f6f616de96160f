"""Which currencies a written text names and which a transcript says, for the ``numbers`` scorer.

The ``numbers`` scorer checks values, and "$5" read as "five euros" keeps the value but not the
meaning. When the item's text names a currency (a symbol or a word) and the transcript names
currencies, at least one of them must be the written one; a transcript that names none is not
judged on it (a recognizer may drop the word, and the value is still checked).
"""

from __future__ import annotations

import re

from pytest_ttsbench.scorers.numbers_ar import fold

# currency → what names it: written symbols or codes (matched as they are) and words.
_EN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "USD": (("$", "US$", "USD"), ("dollar", "dollars", "buck", "bucks")),
    "EUR": (("€", "EUR"), ("euro", "euros")),
    "GBP": (("£", "GBP"), ("pound", "pounds", "quid", "sterling", "pence", "penny")),
    "JPY": (("¥", "JPY"), ("yen",)),
    "CNY": (("CNY", "RMB"), ("yuan", "renminbi")),
    "INR": (("₹", "INR"), ("rupee", "rupees")),
    "CHF": (("CHF",), ("franc", "francs")),
}
# Arabic words are matched on their folded stem, after an optional clitic (و ب ل ال …), so that
# دولارًا, بالدولار and دولارين all name the dollar.
_AR: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "USD": (("$", "USD"), ("دولار",)),
    "EUR": (("€", "EUR"), ("يورو",)),
    "GBP": (("£", "GBP"), ("استرليني", "إسترليني")),
    "EGP": (("EGP",), ("جنيه",)),
    "SAR": (("﷼", "SAR"), ("ريال",)),
    "AED": (("AED",), ("درهم", "دراهم")),
    "KWD": (("KWD",), ("دينار", "دنانير")),
    "LBP": (("LBP",), ("ليرة", "ليرات")),
}
_AR_CLITICS = ("", "و", "ب", "ل", "ال", "بال", "وال", "لل", "وب", "فال")
_TABLES = {"en": _EN, "ar": _AR}
_WORD = re.compile(r"[^\W\d_]+")


def _said(text: str, language: str) -> set[str]:
    table = _TABLES.get(language)
    if table is None:
        return set()
    words = [w.lower() for w in _WORD.findall(text)]
    found: set[str] = set()
    for code, (marks, names) in table.items():
        if any(mark in text for mark in marks):
            found.add(code)
        elif language == "ar":
            stems = [fold(name) for name in names]
            if any(
                fold(w)[len(c) :].startswith(stem)
                for w in words
                for c in _AR_CLITICS
                for stem in stems
                if fold(w).startswith(c)
            ):
                found.add(code)
        elif any(word in names for word in words):
            found.add(code)
    return found


def currency_mismatch(written: str, transcript: str, language: str) -> tuple[set[str], set[str]] | None:
    """(written currencies, heard currencies) when the transcript names only other currencies, else None."""
    primary = language.lower().split("-")[0]
    wanted = _said(written, primary)
    heard = _said(transcript, primary)
    if wanted and heard and not wanted & heard:
        return wanted, heard
    return None
