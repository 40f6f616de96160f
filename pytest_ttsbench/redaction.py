"""Secrets kept out of every message: a :class:`Redactor` scrubs the values it was told about.

Providers like to echo a bad key back ("Incorrect API key provided: sk-…"), and transport
errors can quote URLs and headers, so every message an engine adapter or an ASR route raises
goes through a redactor that knows the values it read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any
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
        """Learn one more value to scrub (None and short values are ignored).

        Every value learnt is also known process-wide (:data:`KNOWN_SECRETS`), so results, logs
        and reports are scrubbed of it too, whoever writes them.
        """
        if not secret or len(secret) < _MIN_SECRET_LENGTH:
            return
        if self is not KNOWN_SECRETS:
            KNOWN_SECRETS.add(secret)
        forms = set(self._forms) | _variants(secret)
        # Longest first, so a value that contains another is scrubbed whole.
        self._forms = sorted(forms, key=len, reverse=True)

    @property
    def empty(self) -> bool:
        return not self._forms

    def __call__(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with each of ``secrets`` (and its URL-quoted forms) replaced by ``[REDACTED]``."""
    return Redactor(secrets)(text)


#: every secret value this process has read: whatever leaves the process is scrubbed of them
KNOWN_SECRETS = Redactor()


def redact_known(text: str) -> str:
    """``text`` with every secret this process has read replaced by ``[REDACTED]``."""
    return KNOWN_SECRETS(text)


def scrub(value: Any) -> Any:
    """``value`` (strings, lists and mappings, nested) with every known secret redacted, keys included."""
    if isinstance(value, str):
        return KNOWN_SECRETS(value)
    if isinstance(value, Mapping):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value


class _RedactingRecordFactory:
    """Wraps logging's record factory: a record naming a known secret gets its message redacted.

    A filter on one logger would miss records of its child loggers (httpcore logs response
    headers from ``httpcore.http11``), and handlers come and go (pytest adds its own), so the
    record is scrubbed where it is created, before any handler sees it.
    """

    def __init__(self, wrapped: Callable[..., logging.LogRecord]) -> None:
        self.wrapped = wrapped

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.wrapped(*args, **kwargs)
        if KNOWN_SECRETS.empty:
            return record
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is logging's to report, not ours
            return record
        redacted = KNOWN_SECRETS(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return record


def install_log_redaction() -> None:
    """Scrub known secrets from every log record from now on (idempotent)."""
    factory = logging.getLogRecordFactory()
    if not isinstance(factory, _RedactingRecordFactory):
        logging.setLogRecordFactory(_RedactingRecordFactory(factory))
