"""Messages bounded in length: whatever a file holds, an error about it stays readable.

Values quoted in an error (a schema error repeats the offending value) can be arbitrarily long.
Anything that may also hold a secret is redacted *before* it is shortened (see
``engines/secrets.py``): a cut made first could leave part of a key that no longer matches.
"""

from __future__ import annotations

#: characters of one message kept; the rest is replaced by a note saying how much was cut
MAX_MESSAGE_CHARS = 600


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to about ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"
