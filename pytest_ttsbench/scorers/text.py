"""Text canonicalization shared by the string-matching scorers."""

from __future__ import annotations

import unicodedata


def _is_space_punct(ch: str) -> bool:
    """Whitespace, punctuation and invisible format/control characters (categories Z*, P*, Cc, Cf)."""
    category = unicodedata.category(ch)
    return category[0] in "ZP" or category in ("Cc", "Cf")


def readings_canon(text: str) -> str:
    """The form both sides of a ``readings`` comparison get: NFKC, upper case, no whitespace or punctuation.

    Dashes (category Pd: ``-``, ``—``, and ``－`` after NFKC) are kept. They are what the readings
    items are about: a recognizer that writes ``S-U七`` or ``F-三五`` has heard *something* where the
    dash is (杠, 减, 至 …) or is echoing the written form, so the transcript does not show the
    accepted reading ``SU七`` / ``F三五`` and must not match it. Keeping them also makes our
    verdicts identical, route by route, to the CN-NewsTTS Bench matcher, whose published figures
    we reproduce in tests/gating.
    """
    return "".join(
        ch
        for ch in unicodedata.normalize("NFKC", text).upper()
        if not _is_space_punct(ch) or unicodedata.category(ch) == "Pd"
    )
