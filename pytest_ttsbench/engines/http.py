"""The HTTP machinery every cloud adapter shares: timeouts, retries, limits, timing, body checks.

One :class:`HttpClient` per engine profile holds an ``httpx.Client`` and enforces

* connect and read timeouts (``connect_timeout_s``, ``timeout_s``);
* retries with exponential backoff and jitter (tenacity) on 408, 429, 5xx, connection errors,
  timeouts, bodies cut short, and provider throttling signals that use another status (Polly's
  HTTP 400 ``ThrottlingException``). ``Retry-After`` (seconds or an HTTP date, or OpenAI's
  ``retry-after-ms``) sets the wait; a wait longer than ``retry_max_wait_s`` is not worth a
  benchmark's time, so the request fails at once with the provider's message;
* a per-engine concurrency limit (``concurrency``, a semaphore held per attempt) and request
  rate limit (``requests_per_second``); both are per process, so with pytest-xdist each worker
  has its own;
* time to the first body byte and total time, measured while streaming with ``iter_bytes``.

:func:`audio_synthesis` then refuses bodies that are not audio, which providers and proxies
send with status 200 more often than one would hope: an HTML login or error page, a JSON
error document, plain text, nothing at all, or a WAV whose header promises more samples than
arrived. Every message that leaves this module passes the engine's :class:`Redactor`.
"""

from __future__ import annotations

import email.utils
import html
import json
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from pytest_ttsbench.audio import is_playable
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, Synthesis
from pytest_ttsbench.engines.secrets import Redactor

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

USER_AGENT = "pytest-ttsbench"

# Signs one attempt: (method, full URL, headers, body) → headers to send. Called again on every
# retry, because signatures carry a timestamp.
Signer = Callable[[str, str, dict[str, str], bytes], dict[str, str]]


# --- options ---------------------------------------------------------------------------------


def _number(profile: EngineProfile, key: str, default: float | None, *, minimum: float = 0.0) -> float | None:
    value = profile.option(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise ConfigError(f"engine profile {profile.name!r}: option {key} must be a number >= {minimum}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class HttpOptions:
    """The profile options every HTTP adapter understands (all optional)."""

    base_url: str
    timeout_s: float = 60.0
    connect_timeout_s: float = 10.0
    max_retries: int = 3
    retry_min_wait_s: float = 0.5
    retry_max_wait_s: float = 30.0
    concurrency: int = 4
    requests_per_second: float | None = None
    max_response_bytes: int = 200 * 1024 * 1024

    @classmethod
    def from_profile(cls, profile: EngineProfile, default_base_url: str) -> HttpOptions:
        """Read and check the options; a bad value raises ConfigError naming the profile and option."""
        base_url = profile.option("base_url", default_base_url)
        if not isinstance(base_url, str) or not re.match(r"^https?://", base_url):
            raise ConfigError(f"engine profile {profile.name!r}: base_url must be an http(s) URL, got {base_url!r}")
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


# --- provider policy -------------------------------------------------------------------------


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _join(*parts: Any) -> str:
    seen: list[str] = []
    for part in parts:
        if part is None or part == "":
            continue
        text = str(part)
        if text not in seen:
            seen.append(text)
    return ": ".join(seen)


def json_error_message(document: Any) -> str | None:
    """The message in a provider's JSON error, for the shapes the adapters meet.

    OpenAI and Azure APIM ``{"error": {"message", "code"|"type"}}``; Google adds ``status``;
    ElevenLabs ``{"detail": {"status", "message"}}`` or FastAPI's list-shaped ``detail``;
    Fish ``{"status", "message"}``; Polly ``{"message"}`` or ``{"Message"}``; whisper.cpp and
    vLLM's ``{"error": "..."}``.
    """
    if not isinstance(document, Mapping):
        return None
    error = document.get("error")
    if isinstance(error, Mapping):
        code = error.get("status") or error.get("code") or error.get("type")
        return _join(code if isinstance(code, str) else None, error.get("message")) or None
    if isinstance(error, str) and error:
        return error
    detail = document.get("detail")
    if isinstance(detail, Mapping):
        return _join(detail.get("status"), detail.get("message")) or None
    if isinstance(detail, list):
        parts = []
        for entry in detail:
            if isinstance(entry, Mapping):
                loc = ".".join(str(p) for p in entry.get("loc", []) if p is not None)
                parts.append(_join(loc, entry.get("msg")))
        return "; ".join(p for p in parts if p) or None
    if isinstance(detail, str) and detail:
        return detail
    message = document.get("message") or document.get("Message")
    if isinstance(message, str) and message:
        return message
    return None


def html_summary(body: bytes) -> str:
    """An HTML page in a few words: its title, heading and the start of its text."""
    page = body.decode("utf-8", errors="replace")
    found = []
    for tag in ("title", "h1"):
        match = re.search(rf"<{tag}\b[^>]*>(.*?)</{tag}\s*>", page, re.IGNORECASE | re.DOTALL)
        if match:
            found.append(html.unescape(re.sub(r"<[^>]+>", " ", match.group(1))).strip())
    if not found:
        page = re.sub(r"<(script|style)\b.*?</\1\s*>", " ", page, flags=re.IGNORECASE | re.DOTALL)
        found.append(html.unescape(re.sub(r"<[^>]+>", " ", page)))
    return _clip(_join(*(" ".join(f.split()) for f in found))) or "an empty page"


def _looks_like_html(body: bytes) -> bool:
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def describe_error_body(status: int, headers: httpx.Headers, body: bytes) -> str:
    """What an error body says, whatever its shape; falls back to naming an empty body."""
    if not body.strip():
        return "empty body"
    if _looks_like_html(body) or "html" in headers.get("content-type", "").lower():
        return f"HTML page: {html_summary(body)}"
    try:
        document = json.loads(body)
    except ValueError:
        return _clip(body.decode("utf-8", errors="replace"))
    return json_error_message(document) or _clip(body.decode("utf-8", errors="replace"))


@dataclass(frozen=True)
class ProviderPolicy:
    """How one provider words its errors and signals throttling.

    ``error_message(status, headers, body)`` returns the provider's message (None: fall back to
    :func:`describe_error_body`); ``is_throttled`` marks responses to retry whatever their
    status (Polly throttles with 400).
    """

    name: str
    error_message: Callable[[int, httpx.Headers, bytes], str | None] | None = None
    is_throttled: Callable[[int, httpx.Headers, bytes], bool] | None = None
    request_id_headers: tuple[str, ...] = ("x-request-id", "request-id")

    def message(self, status: int, headers: httpx.Headers, body: bytes) -> str:
        found = self.error_message(status, headers, body) if self.error_message else None
        return found or describe_error_body(status, headers, body)


# --- retry-after -----------------------------------------------------------------------------


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI) or ``Retry-After`` (seconds or HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


# --- limits ----------------------------------------------------------------------------------


class RateLimiter:
    """Spaces request starts at least ``1 / per_second`` apart across threads (None: no limit)."""

    def __init__(self, per_second: float | None) -> None:
        self._interval = 1.0 / per_second if per_second else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self._interval:
            return
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + self._interval
        if slot > now:
            time.sleep(slot - now)


# --- the client ------------------------------------------------------------------------------


@dataclass
class HttpResult:
    """One successful response, read whole, with how long it took and how many attempts."""

    status: int
    headers: httpx.Headers
    body: bytes
    first_byte_seconds: float | None
    total_seconds: float
    wall_seconds: float
    attempts: int
    retry_reasons: list[str] = field(default_factory=list)
    # (seconds since the request was sent, bytes received so far) after each body chunk.
    arrivals: list[tuple[float, int]] = field(default_factory=list)

    @property
    def streamed(self) -> bool:
        """A reply sent with chunked transfer: the body arrived as it was generated."""
        return "chunked" in self.headers.get("transfer-encoding", "").lower()

    def first_playable_seconds(self, pcm_sample_rate: int | None = None) -> float | None:
        """Seconds from the first attempt until the body received so far first decoded to audio.

        Earlier failed attempts and the waits between them count: the listener waited for them too.
        None when no prefix decoded.
        """
        earlier = max(self.wall_seconds - self.total_seconds, 0.0)
        for seconds, size in self.arrivals:
            if is_playable(self.body[:size], pcm_sample_rate):
                return earlier + seconds
        return None

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


class _Retryable(Exception):
    """An attempt that failed in a way worth trying again."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


_RETRY_STATUSES = frozenset({408, 429})


class HttpClient:
    """Sends one provider's requests under the profile's timeouts, retries and limits."""

    def __init__(
        self,
        options: HttpOptions,
        policy: ProviderPolicy,
        redactor: Redactor,
        *,
        label: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.options = options
        self.policy = policy
        self.label = label  # "openai profile 'x'": starts every error message
        self._redact = redactor
        self._semaphore = threading.BoundedSemaphore(options.concurrency)
        self._rate = RateLimiter(options.requests_per_second)
        self._client = httpx.Client(
            timeout=httpx.Timeout(options.timeout_s, connect=options.connect_timeout_s),
            limits=httpx.Limits(max_connections=options.concurrency, max_keepalive_connections=options.concurrency),
            headers={"User-Agent": USER_AGENT, **(headers or {})},
            follow_redirects=False,
        )

    def error(self, message: str) -> EngineError:
        """An EngineError labelled with the engine, every known secret scrubbed."""
        return EngineError(self._redact(f"{self.label}: {message}"))

    def url(self, path: str) -> str:
        return self.options.base_url + path

    def close(self) -> None:
        self._client.close()

    # The wait before the next attempt: the provider's Retry-After when it gave one, else
    # exponential backoff (retry_min_wait_s doubling up to retry_max_wait_s); both get a little
    # jitter so parallel workers do not come back in lockstep.
    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        jitter = random.uniform(0, self.options.retry_min_wait_s)
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return exc.retry_after + jitter
        backoff = self.options.retry_min_wait_s * 2 ** (state.attempt_number - 1)
        return min(backoff + jitter, self.options.retry_max_wait_s)

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        content: bytes | None = None,
        sign: Signer | None = None,
    ) -> HttpResult:
        """Send until a response is final; raise EngineError (redacted) when retries run out."""
        reasons: list[str] = []

        def note(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            if exc is not None:
                reasons.append(self._redact(str(exc)))

        retrying = Retrying(
            stop=stop_after_attempt(self.options.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(_Retryable),
            before_sleep=note,
            reraise=True,
        )
        started = time.perf_counter()
        url = httpx.URL(self.url(path), params=params or None)
        last: _Retryable | None = None
        try:
            result = retrying(self._attempt, method, url, dict(headers or {}), content or b"", sign)
        except _Retryable as exc:
            last = exc
        if last is not None:
            # Raised outside the except block, so the unredacted attempt error is not its context.
            attempts = retrying.statistics.get("attempt_number", self.options.max_retries + 1)
            raise self.error(f"{last.reason} (gave up after {attempts} attempts)")
        result.attempts = retrying.statistics.get("attempt_number", 1)
        result.retry_reasons = reasons
        result.wall_seconds = time.perf_counter() - started
        return result

    def _attempt(
        self, method: str, url: httpx.URL, headers: dict[str, str], content: bytes, sign: Signer | None
    ) -> HttpResult:
        with self._semaphore:
            self._rate.wait()
            send_headers = sign(method, str(url), dict(headers), content) if sign else headers
            request = self._client.build_request(method, url, headers=send_headers, content=content or None)
            start = time.perf_counter()
            first: float | None = None
            chunks: list[bytes] = []
            arrivals: list[tuple[float, int]] = []
            size = 0
            try:
                response = self._client.send(request, stream=True)
            except httpx.TimeoutException:
                raise _Retryable(f"no response within {self.options.timeout_s:g} s (timeout_s)") from None
            except httpx.TransportError as exc:
                raise _Retryable(f"connection failed: {type(exc).__name__}: {exc}") from None
            except httpx.RequestError as exc:
                raise self.error(f"request failed: {type(exc).__name__}: {exc}") from None
            try:
                for chunk in response.iter_bytes():
                    if not chunk:
                        continue
                    now = time.perf_counter() - start
                    if first is None:
                        first = now
                    size += len(chunk)
                    arrivals.append((now, size))
                    if size > self.options.max_response_bytes:
                        raise self.error(f"response larger than {self.options.max_response_bytes} bytes")
                    chunks.append(chunk)
            except httpx.TimeoutException:
                raise _Retryable(
                    f"body stalled for {self.options.timeout_s:g} s after {size} bytes (timeout_s)"
                ) from None
            except httpx.TransportError as exc:
                raise _Retryable(f"body cut short after {size} bytes: {type(exc).__name__}: {exc}") from None
            except httpx.RequestError as exc:
                raise self.error(f"reading the body failed: {type(exc).__name__}: {exc}") from None
            finally:
                response.close()
            total = time.perf_counter() - start
        body = b"".join(chunks)
        status = response.status_code
        throttled = bool(self.policy.is_throttled and self.policy.is_throttled(status, response.headers, body))
        if status >= 300 or throttled:
            self._fail(status, response.headers, body, throttled)
        return HttpResult(status, response.headers, body, first, total, total, 1, arrivals=arrivals)

    def _fail(self, status: int, headers: httpx.Headers, body: bytes, throttled: bool) -> None:
        if 300 <= status < 400:
            raise self.error(f"HTTP {status}: unexpected redirect to {headers.get('location', '(no location)')}")
        message = f"HTTP {status}: {self.policy.message(status, headers, body)}"
        should = headers.get("x-should-retry", "").lower()  # OpenAI's explicit hint wins when present
        retryable = throttled or status in _RETRY_STATUSES or (status >= 500 and status != 501)
        if should in ("true", "false"):
            retryable = should == "true"
        if not retryable:
            raise self.error(message)
        delay = parse_retry_after(headers)
        if delay is not None and delay > self.options.retry_max_wait_s:
            raise self.error(
                f"{message} (the provider asked to wait {delay:g} s, more than retry_max_wait_s "
                f"{self.options.retry_max_wait_s:g} s)"
            )
        raise _Retryable(message, delay)


# --- audio bodies ----------------------------------------------------------------------------

_TEXT_TYPES = ("application/json", "application/xml", "application/problem+json", "application/javascript")


def _is_text_type(content_type: str) -> bool:
    return content_type.startswith("text/") or content_type in _TEXT_TYPES or content_type.endswith(("+json", "+xml"))


def wav_shortfall(body: bytes) -> tuple[int, int] | None:
    """(declared, present) data bytes when a WAV header promises more audio than arrived.

    Streaming writers put placeholder sizes in the header (0, or near 0xFFFFFFFF as Fish
    documents); those say nothing about the length and are not checked.
    """
    if len(body) < 12 or body[:4] != b"RIFF" or body[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(body):
        chunk_id = body[pos : pos + 4]
        size = int.from_bytes(body[pos + 4 : pos + 8], "little")
        if chunk_id == b"data":
            if size == 0 or size >= 0x7FFF0000:
                return None
            present = len(body) - pos - 8
            return (size, present) if present < size else None
        pos += 8 + size + (size & 1)
    return None


def ensure_audio(body: bytes, content_type: str, client: HttpClient, headers: httpx.Headers | None = None) -> None:
    """Raise EngineError when a successful response's body is not audio, quoting what it says instead."""
    if not body:
        raise client.error("HTTP 200 with an empty body instead of audio")
    if _looks_like_html(body) or content_type == "text/html":
        raise client.error(f"HTTP 200 with an HTML page instead of audio: {html_summary(body)}")
    head = body[:64].lstrip()[:1]
    document: Any = None
    if head in (b"{", b"[") or _is_text_type(content_type):
        try:
            document = json.loads(body)
        except ValueError:
            document = None
        if document is not None:
            found = (
                client.policy.error_message(200, headers or httpx.Headers(), body)
                if client.policy.error_message
                else None
            )
            message = found or json_error_message(document) or _clip(body.decode("utf-8", errors="replace"))
            raise client.error(f"HTTP 200 with a JSON document instead of audio: {message}")
    if _is_text_type(content_type):
        raise client.error(
            f"HTTP 200 with {content_type} instead of audio: {_clip(body.decode('utf-8', errors='replace'))}"
        )
    short = wav_shortfall(body)
    if short is not None:
        raise client.error(f"truncated WAV: the header declares {short[0]} bytes of samples, {short[1]} arrived")


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
    elif _looks_like_html(data):
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
    meta.update(metadata or {})
    # Audio wrapped in another document (JSON, base64) is playable only once the whole body is in.
    streamed = audio is None and result.streamed
    return Synthesis(
        audio=data,
        media_type=media_type or result.content_type or "application/octet-stream",
        pcm_sample_rate=pcm_sample_rate,
        first_byte_seconds=result.first_byte_seconds,
        first_audio_seconds=result.first_playable_seconds(pcm_sample_rate) if streamed else None,
        streamed=streamed,
        metadata=meta,
    )


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
        self.http = HttpClient(self.options, policy, self.redact, label=engine_label(profile), headers=headers)

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
        value = self.profile.option(key, default)
        if value is None:
            return None
        bad = isinstance(value, bool) or not isinstance(value, (int, float))
        if bad or (low is not None and value < low) or (high is not None and value > high):
            raise ConfigError(
                f"engine profile {self.name!r}: option {key} must be a number in [{low}, {high}], got {value!r}"
            )
        return value

    def close(self) -> None:
        self.http.close()


def json_bytes(document: Any) -> bytes:
    """A request body as UTF-8 JSON, non-ASCII text kept as is (the item's text goes verbatim)."""
    return json.dumps(document, ensure_ascii=False).encode("utf-8")
