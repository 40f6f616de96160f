"""What the cloud engine adapters share on top of :mod:`pytest_ttsbench.support.httpclient`.

The profile options every HTTP adapter understands (:class:`HttpOptions`), the common base
:class:`HttpEngine`, and :func:`audio_synthesis`, which refuses bodies that are not audio:
providers and proxies send those with status 200 more often than one would hope (an HTML login
or error page, a JSON error document, plain text, nothing at all, or a WAV whose header promises
more samples than arrived). Every message passes the engine's :class:`Redactor`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.audio.decoding import is_playable, wav_shortfall
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, Synthesis
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.run_model.provenance import endpoint_host, provider_headers
from pytest_ttsbench.support.checked_numbers import NumberRange
from pytest_ttsbench.support.httpclient import (
    ClientOptions,
    HttpClient,
    HttpResult,
    ProviderPolicy,
    clip_text,
    html_summary,
    json_error_message,
    looks_like_html,
)
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.redaction import Redactor, hide_userinfo, url_credentials_message

if TYPE_CHECKING:  # httpx loads with the first client (httpclient.py)
    import httpx

    from pytest_ttsbench.config import EngineProfile


# --- options ---------------------------------------------------------------------------------


def _number(profile: EngineProfile, key: str, default: float | None, *, minimum: float = 0.0) -> float | None:
    value = profile.number(key, default, NumberRange(minimum))
    return None if value is None else float(value)


@dataclass(frozen=True)
class HttpOptions(ClientOptions):
    """The profile options every HTTP adapter understands (all optional)."""

    @classmethod
    def from_profile(cls, profile: EngineProfile, default_base_url: str) -> HttpOptions:
        """Read and check the options; a bad value raises ConfigError naming the profile and option."""
        base_url = profile.option("base_url", default_base_url)
        if not isinstance(base_url, str) or not re.match(r"^https?://", base_url):
            shown = hide_userinfo(base_url) if isinstance(base_url, str) else base_url
            raise ConfigError(f"engine profile {profile.name!r}: base_url must be an http(s) URL, got {shown!r}")
        credentials = url_credentials_message(base_url)
        if credentials:
            raise ConfigError(f"engine profile {profile.name!r}: base_url {credentials}")
        timeout = _number(profile, "timeout_s", cls.timeout_s, minimum=0.001)
        connect = _number(
            profile, "connect_timeout_s", min(cls.connect_timeout_s, timeout or cls.timeout_s), minimum=0.001
        )
        retries = _number(profile, "max_retries", cls.max_retries)
        concurrency = _number(profile, "concurrency", cls.concurrency, minimum=1)
        min_wait = _number(profile, "retry_min_wait_s", cls.retry_min_wait_s)
        max_wait = _number(profile, "retry_max_wait_s", cls.retry_max_wait_s)
        assert timeout is not None and connect is not None and retries is not None
        assert concurrency is not None and min_wait is not None and max_wait is not None
        return cls(
            base_url=base_url.rstrip("/"),
            timeout_s=timeout,
            connect_timeout_s=connect,
            max_retries=int(retries),
            retry_min_wait_s=min_wait,
            retry_max_wait_s=max(max_wait, min_wait),
            concurrency=int(concurrency),
            requests_per_second=_number(profile, "requests_per_second", None, minimum=0.001),
        )


# --- audio bodies ----------------------------------------------------------------------------

_TEXT_TYPES = ("application/json", "application/xml", "application/problem+json", "application/javascript")


def _is_text_type(content_type: str) -> bool:
    return content_type.startswith("text/") or content_type in _TEXT_TYPES or content_type.endswith(("+json", "+xml"))


def ensure_audio(body: bytes, content_type: str, client: HttpClient, headers: httpx.Headers | None = None) -> None:
    """Raise EngineError when a successful response's body is not audio, quoting what it says instead."""
    if not body:
        raise client.error("HTTP 200 with an empty body instead of audio")
    if looks_like_html(body) or _is_text_type(content_type) or body[:64].lstrip()[:1] in (b"{", b"["):
        body = client.scrub_body(body)  # a text body is quoted, shortened, in the error: redact it first
    if looks_like_html(body) or content_type == "text/html":
        raise client.error(f"HTTP 200 with an HTML page instead of audio: {html_summary(body)}")
    head = body[:64].lstrip()[:1]
    document: Any = None
    if head in (b"{", b"[") or _is_text_type(content_type):
        try:
            document = json.loads(body)
        except ValueError:
            document = None
        if document is not None:
            import httpx

            found = (
                client.policy.error_message(200, headers or httpx.Headers(), body)
                if client.policy.error_message
                else None
            )
            message = found or json_error_message(document) or clip_text(body.decode("utf-8", errors="replace"))
            raise client.error(f"HTTP 200 with a JSON document instead of audio: {message}")
    if _is_text_type(content_type):
        raise client.error(
            f"HTTP 200 with {content_type} instead of audio: {clip_text(body.decode('utf-8', errors='replace'))}"
        )
    short = wav_shortfall(body)
    if short is not None:
        raise client.error(f"truncated WAV: the header declares {short[0]} bytes of samples, {short[1]} arrived")


def first_playable_seconds(result: HttpResult, pcm_sample_rate: int | None = None) -> float | None:
    """Seconds from the first attempt until the body received so far first decoded to audio.

    Earlier failed attempts and the waits between them count: the listener waited for them too.
    None when no prefix decoded.
    """
    earlier = max(result.wall_seconds - result.total_seconds, 0.0)
    for seconds, size in result.arrivals:
        if is_playable(result.body[:size], pcm_sample_rate):
            return earlier + seconds
    return None


def audio_synthesis(
    result: HttpResult,
    client: HttpClient,
    *,
    audio: bytes | None = None,
    media_type: str | None = None,
    pcm_sample_rate: int | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Synthesis:
    """Check the body (or ``audio`` extracted from it) and wrap it with timings and request facts."""
    data = result.body if audio is None else audio
    if audio is None:
        ensure_audio(data, result.content_type, client, result.headers)
    elif not data:
        raise client.error("the response carried no audio")
    elif looks_like_html(data):
        raise client.error(f"the response carried an HTML page instead of audio: {html_summary(data)}")
    else:
        short = wav_shortfall(data)
        if short is not None:
            raise client.error(f"truncated WAV: the header declares {short[0]} bytes of samples, {short[1]} arrived")
    request_id = next((result.headers[h] for h in client.policy.request_id_headers if h in result.headers), None)
    meta: dict[str, Any] = {
        "provider": client.policy.name,
        "http_status": result.status,
        "attempts": result.attempts,
        "retries": result.attempts - 1,
        "total_seconds": round(result.total_seconds, 6),
        "wall_seconds": round(result.wall_seconds, 6),
        "bytes": len(data),
    }
    if result.retry_reasons:
        meta["retry_reasons"] = list(result.retry_reasons)
    if request_id:
        meta["request_id"] = request_id
    host = endpoint_host(client.options.base_url)
    if host:
        meta["endpoint_host"] = host
    served_by = provider_headers(result.headers)
    if served_by:
        meta["provider_headers"] = served_by
    meta.update(metadata or {})
    # Audio wrapped in another document (JSON, base64) is playable only once the whole body is in.
    streamed = audio is None and result.streamed
    return Synthesis(
        audio=data,
        media_type=media_type or result.content_type or "application/octet-stream",
        pcm_sample_rate=pcm_sample_rate,
        first_byte_seconds=result.first_byte_seconds,
        first_audio_seconds=first_playable_seconds(result, pcm_sample_rate) if streamed else None,
        streamed=streamed,
        metadata=meta,
    )


def key_in_header(profile: EngineProfile, header: str) -> dict[str, Any]:
    """``secrets`` and ``headers`` for :class:`HttpEngine` when the provider takes its key in ``header``."""
    key = read_api_key(profile)
    return {"secrets": (key,), "headers": {header: key or ""}}


def engine_label(profile: EngineProfile) -> str:
    """How error messages name an engine: its type and profile name."""
    return f"{profile.type} profile {profile.name!r}"


# --- the adapters' common base ---------------------------------------------------------------


class HttpEngine:
    """What every HTTP adapter shares: profile options, the client, the redactor, voice lookup."""

    def __init__(
        self,
        profile: EngineProfile,
        *,
        default_base_url: str,
        policy: ProviderPolicy,
        secrets: tuple[str | None, ...] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.name = profile.name
        self.profile = profile
        self.redact = Redactor(secrets)
        self.options = HttpOptions.from_profile(profile, default_base_url)
        # How many synthesize() calls may run at once: the prefetch pool is this wide (prefetch.py).
        self.concurrency = self.options.concurrency
        self.http = HttpClient(
            self.options, policy, self.redact, label=engine_label(profile), error_type=EngineError, headers=headers
        )

    def voice(self, language: str, requested: str | None) -> str | None:
        """The request's voice, else the profile's for the language."""
        return requested or self.profile.voice_for(language)

    def require_voice(self, language: str, requested: str | None) -> str:
        """Like :meth:`voice`, for providers that cannot pick one themselves."""
        voice = self.voice(language, requested)
        if not voice:
            raise self.http.error(f"no voice configured for language {language!r} (set voice in the profile)")
        return voice

    def str_option(self, key: str, default: str | None = None, allowed: tuple[str, ...] | None = None) -> str | None:
        """A string option, checked against ``allowed`` when given (ConfigError otherwise)."""
        value = self.profile.option(key, default)
        if value is None:
            return None
        if not isinstance(value, str) or (allowed is not None and value not in allowed):
            choices = f" (one of: {', '.join(allowed)})" if allowed else ""
            raise ConfigError(f"engine profile {self.name!r}: option {key} must be a string{choices}, got {value!r}")
        return value

    def number_option(
        self, key: str, default: float | None = None, low: float | None = None, high: float | None = None
    ) -> float | None:
        """A numeric option within [low, high] (ConfigError otherwise)."""
        value = self.profile.number(key, default, NumberRange(low, high))
        return None if value is None else float(value)

    def rate_option(self, key: str, default: int, allowed: tuple[int, ...]) -> int:
        """A sample rate among the ``allowed`` ones the provider offers (ConfigError otherwise)."""
        value = self.profile.option(key, default)
        if isinstance(value, bool) or value not in allowed:
            raise ConfigError(
                f"engine profile {self.name!r}: option {key} must be one of {', '.join(map(str, allowed))}, "
                f"got {value!r}"
            )
        return int(value)

    def close(self) -> None:
        self.http.close()


def json_bytes(document: Any) -> bytes:
    """A request body as UTF-8 JSON, non-ASCII text kept as is (the item's text goes verbatim)."""
    return dump_json(document, ensure_ascii=False).encode("utf-8")
