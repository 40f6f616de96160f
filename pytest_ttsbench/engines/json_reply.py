"""JSON requests and replies of the adapters whose audio arrives inside JSON (hex, base64 or a URL).

MiniMax, DashScope, Gemini and the chat-completions providers answer a synthesis with a JSON
document, and with status 200 send other things too: a proxy's HTML page, plain text, a JSON
error. Each is reported as what it is, quoted only after every known secret is scrubbed.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.support.httpclient import HttpClient, HttpResult, clip_text, html_summary, looks_like_html

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile


def reply_document(result: HttpResult, client: HttpClient) -> Any:
    """The reply's JSON document; an empty, HTML or non-JSON body raises the client's error naming it."""
    body = result.body
    if not body.strip():
        raise client.error(f"HTTP {result.status} with an empty body instead of a JSON reply")
    if looks_like_html(body) or result.content_type == "text/html":
        raise client.error(f"HTTP {result.status} with an HTML page instead of a JSON reply: {html_summary(body)}")
    try:
        return json.loads(body)
    except ValueError:
        text = clip_text(client.redact_text(body))  # redact before shortening: a cut key still leaks
        raise client.error(f"HTTP {result.status} with a body that is not JSON: {text}") from None


def decode_base64(value: Any, client: HttpClient, what: str) -> bytes:
    """``value`` decoded from base64; an absent, empty or malformed value raises naming ``what``."""
    if not isinstance(value, str) or not value:
        raise client.error(f"the reply carried no audio ({what} is empty)")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise client.error(f"{what} is not valid base64") from None


def dig(document: Any, *keys: str | int) -> Any:
    """``document[k1][k2]…``, None where any step is missing or of the wrong kind."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(document, list) or not -len(document) <= key < len(document):
                return None
        elif not isinstance(document, dict):
            return None
        document = document[key] if isinstance(key, int) else document.get(key)
    return document


def extra_body_option(profile: EngineProfile) -> dict[str, Any]:
    """The ``extra_body`` mapping (server-specific request fields), empty when unset."""
    extra = profile.option("extra_body")
    if extra is None:
        return {}
    if not isinstance(extra, dict) or not all(isinstance(k, str) for k in extra):
        raise ConfigError(f"engine profile {profile.name!r}: extra_body must be a mapping of field names to values")
    return dict(extra)
