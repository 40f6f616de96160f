"""Secrets kept out of every message: a :class:`Redactor` scrubs the values it was told about.

Providers like to echo a bad key back ("Incorrect API key provided: sk-…"), and transport
errors can quote URLs and headers, so every message an engine adapter or an ASR route raises
goes through a redactor that knows the values it read.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote, quote_plus

REDACTED = "[REDACTED]"

# Shorter values are not scrubbed: replacing every "ab" in a message would garble it, and a
# value that short is no credential worth hiding.
_MIN_SECRET_LENGTH = 6


def _variants(secret: str) -> set[str]:
    """The forms a secret takes in messages: as is, and URL-quoted (a key in a query string)."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret)}
    return {f for f in forms if len(f) >= _MIN_SECRET_LENGTH}


class Redactor:
    """Replaces every known secret value (and its quoted forms) in a string with ``[REDACTED]``."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._forms: list[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        """Learn one more value to scrub (None and short values are ignored)."""
        if not secret or len(secret) < _MIN_SECRET_LENGTH:
            return
        forms = set(self._forms) | _variants(secret)
        # Longest first, so a value that contains another is scrubbed whole.
        self._forms = sorted(forms, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with each of ``secrets`` (and its URL-quoted forms) replaced by ``[REDACTED]``."""
    return Redactor(secrets)(text)
