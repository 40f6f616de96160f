"""API keys for the cloud adapters: read from the environment, and kept out of every message.

A profile never holds a key; it names the environment variable that does (``api_key_env``).
Providers like to echo a bad key back ("Incorrect API key provided: sk-…"), and transport
errors can quote URLs and headers, so every message an adapter raises goes through a
:class:`Redactor` that knows the values it read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus

from pytest_ttsbench.engines.base import EngineUnavailable

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

REDACTED = "[REDACTED]"

# Shorter values are not scrubbed: replacing every "ab" in a message would garble it, and a
# value that short is no credential worth hiding.
_MIN_SECRET_LENGTH = 6


def read_env_secret(variable: str, profile_name: str, what: str = "API key") -> str:
    """The value of ``variable``; a missing or empty one makes the engine unavailable, naming the variable."""
    value = os.environ.get(variable, "").strip()
    if not value:
        raise EngineUnavailable(
            f"engine profile {profile_name!r}: environment variable {variable} is not set (it should hold the {what})"
        )
    return value


def read_api_key(profile: EngineProfile, *, required: bool = True) -> str | None:
    """The key from the variable named by ``profile.api_key_env``.

    Without ``api_key_env`` a required key makes the engine unavailable (the message says to
    set it); an optional one (a local OpenAI-compatible server) is None.
    """
    if not profile.api_key_env:
        if required:
            raise EngineUnavailable(
                f"engine profile {profile.name!r} ({profile.type}) needs an API key: set api_key_env "
                "to the name of the environment variable that holds it"
            )
        return None
    return read_env_secret(profile.api_key_env, profile.name)


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
