"""Secrets kept out of every message: a :class:`Redactor` scrubs the values it was told about.

Providers like to echo a bad key back ("Incorrect API key provided: sk-…"), and transport
errors can quote URLs and headers, so every message an engine adapter or an ASR route raises
goes through a redactor that knows the values it read. Keys come from environment variables;
the shared HTTP client also teaches it every credential it sends, whatever the adapter named
the header (:func:`header_secrets`), and a URL with credentials in it (userinfo, or a
credential-named query parameter such as ``?key=``) is refused (:func:`url_credentials_message`).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit

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

    def with_secrets(self, secrets: Iterable[str | None]) -> Redactor:
        """A copy that also scrubs ``secrets``, for one message only: they are not learnt process-wide."""
        copy = Redactor()
        forms = set(self._forms)
        for secret in secrets:
            if secret and len(secret) >= _MIN_SECRET_LENGTH:
                forms |= _variants(secret)
        copy._forms = sorted(forms, key=len, reverse=True)
        return copy

    @property
    def empty(self) -> bool:
        return not self._forms

    def __call__(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text


# Header (and query parameter) names that carry a credential, whatever the provider calls it:
# Authorization, Proxy-Authorization, X-Api-Key, api-key, xi-api-key, x-goog-api-key,
# Ocp-Apim-Subscription-Key, X-Api-Access-Key, X-Amz-Security-Token, X-Auth-Token, Cookie…
_CREDENTIAL_NAME = re.compile(r"auth|key|token|secret|passw|credential|cookie|signature|session", re.IGNORECASE)


def is_credential_name(name: str) -> bool:
    """Whether a header or query parameter of this name carries a credential."""
    return bool(_CREDENTIAL_NAME.search(name))


def header_secrets(name: str, value: str) -> list[str]:
    """The values to scrub for a credential header: the whole value, the part after its scheme
    (``Bearer …``) and, for Basic, the base64 decoded to ``user:password`` and the password.
    Empty for a header that carries no credential."""
    value = value.strip()
    if not value or not is_credential_name(name):
        return []
    found = [value]
    scheme, _, rest = value.partition(" ")
    rest = rest.strip()
    if rest:
        found.append(rest)
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(rest, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                pair = ""
            if pair:
                found += [pair, pair.partition(":")[2]]
    if name.lower() == "cookie":
        found += [part.partition("=")[2].strip() for part in value.split(";")]
    return [f for f in found if f]


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: its userinfo (as is and as Basic auth) and credential-named query values."""
    try:
        split = urlsplit(url)
        username, password = split.username, split.password
    except ValueError:
        return []
    found: list[str] = []
    if username or password:
        pair = f"{username or ''}:{password or ''}"
        found += [pair, password or "", base64.b64encode(pair.encode("utf-8")).decode("ascii")]
    for _, value in _credential_query_pairs(url):
        found += [value, unquote_plus(value)]  # as the URL has it, and as a message may decode it
    return [f for f in found if f]


def hide_userinfo(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@``: fit to quote in a message."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@", r"\1***@", url)


def _credential_query_pairs(url: str) -> list[tuple[str, str]]:
    """(name, value as written) of each credential-named query parameter ``url`` gives a value (``key``, ``token``…)."""
    query = url.partition("?")[2].partition("#")[0]
    pairs = [(unquote_plus(key), value) for key, _, value in (part.partition("=") for part in query.split("&"))]
    return [(key, value) for key, value in pairs if value and is_credential_name(key)]


def hide_credentials(url: str) -> str:
    """``url`` with its userinfo and the values of its credential-named query parameters as ``***``."""

    def masked(match: re.Match[str]) -> str:
        key = match.group(2)
        return f"{match.group(1)}{key}=***" if is_credential_name(unquote_plus(key)) else match.group(0)

    return re.sub(r"([?&])([^=&#]+)=([^&#]*)", masked, hide_userinfo(url))


def url_credentials_message(url: str) -> str | None:
    """Why a URL with credentials in it (``https://user:pass@host``, ``…?key=…``) is refused; None when it has none."""
    try:
        split = urlsplit(url)
        has_userinfo = split.username is not None or split.password is not None
    except ValueError:
        has_userinfo = "@" in url.split("://", 1)[-1].split("/", 1)[0]
    advice = "put the key in an environment variable and name it with api_key_env"
    if has_userinfo:
        return (
            f"{hide_credentials(url)!r} carries credentials (user:password@): they would be sent as Basic auth "
            f"and could come back in messages and results; {advice}"
        )
    keys = [key for key, _ in _credential_query_pairs(url)]
    if keys:
        named = ", ".join(dict.fromkeys(f"{key}=" for key in keys))
        return (
            f"{hide_credentials(url)!r} carries a credential in its query ({named}…): it would be kept with "
            f"the configuration and could come back in messages and results; {advice}"
        )
    return None


def url_credentials_in(document: Any, path: str = "") -> tuple[str, str] | None:
    """(field path, why) for the first URL with credentials anywhere in a configuration document."""
    if isinstance(document, str):
        maybe = "://" in document and ("@" in document or "?" in document)
        problem = url_credentials_message(document) if maybe else None
        return (path or "(top level)", problem) if problem else None
    if isinstance(document, Mapping):
        children: Iterable[tuple[str, Any]] = ((str(k), v) for k, v in document.items())
    elif isinstance(document, (list, tuple)):
        children = ((str(i), v) for i, v in enumerate(document))
    else:
        return None
    for key, value in children:
        found = url_credentials_in(value, f"{path}.{key}" if path else key)
        if found:
            return found
    return None


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with each of ``secrets`` (and its URL-quoted forms) replaced by ``[REDACTED]``."""
    return Redactor(secrets)(text)


#: every secret value this process has read: whatever leaves the process is scrubbed of them
KNOWN_SECRETS = Redactor()


def redact_known(text: str) -> str:
    """``text`` with every secret this process has read replaced by ``[REDACTED]``."""
    return KNOWN_SECRETS(text)


def scrub(value: Any) -> Any:
    """``value`` (strings, lists and mappings, nested; a dataclass as its fields) with every known
    secret redacted, keys included. New containers throughout: nothing is shared with ``value``."""
    if isinstance(value, str):
        return KNOWN_SECRETS(value)
    if isinstance(value, Mapping):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return scrub(dataclasses.asdict(value))
    return value


def scrubbed_fields(record: Any) -> dict[str, Any]:
    """A dataclass record's fields by name, in order, scrubbed: what ``scrub(asdict(record))`` gives,
    without the deep copy ``asdict`` makes first (``scrub`` builds new containers anyway)."""
    return {f.name: scrub(getattr(record, f.name)) for f in dataclasses.fields(record)}


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
