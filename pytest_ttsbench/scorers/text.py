"""Text canonicalization shared by the string-matching scorers."""

from __future__ import annotations

import unicodedata


def strip_space_punct(text: str) -> str:
    """Drop whitespace, punctuation and invisible format/control characters (categories Z*, P*, Cc, Cf)."""
    return "".join(
        ch for ch in text if unicodedata.category(ch)[0] not in "ZP" and unicodedata.category(ch) not in ("Cc", "Cf")
    )


def readings_canon(text: str) -> str:
    """The form both sides of a ``readings`` comparison get: NFKC, upper case, no whitespace or punctuation."""
    return strip_space_punct(unicodedata.normalize("NFKC", text).upper())
