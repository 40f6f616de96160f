"""The one HTTP client, shared by the cloud engine adapters and the ASR routes: one retry policy.

One :class:`HttpClient` per engine profile or ASR route holds an ``httpx.Client`` and enforces

* a total deadline per attempt (``timeout_s``): connect, TLS, headers and body together, however
  slowly the server trickles them (:mod:`pytest_ttsbench.support.http_deadline`); connecting alone may
  take at most ``connect_timeout_s``;
* an overall deadline for a request and its retries (:attr:`ClientOptions.overall_deadline_s`):
  each attempt gets at most what is left of it, and no retry is made whose wait would end past it;
* retries with exponential backoff and jitter (tenacity) on 408, 429, 5xx but 501, connection
  errors, timeouts, bodies cut short, and provider throttling signals that use another status
  (Polly's HTTP 400 ``ThrottlingException``); OpenAI's ``x-should-retry`` hint wins when given.
  ``Retry-After`` (seconds or an HTTP date, or OpenAI's ``retry-after-ms``) sets the wait; a
  wait longer than ``retry_max_wait_s`` is not worth a benchmark's time, so the request fails
  at once with the provider's message;
* a concurrency limit (``concurrency``, a semaphore held per attempt) and request rate limit
  (``requests_per_second``); both are per process, so with pytest-xdist each worker has its own;
* time to the first body byte and total time, measured while streaming with ``iter_bytes``.

Failures are raised as the caller's own error type (``EngineError`` for engines, ``AsrError``
for routes), every message passed through the caller's :class:`Redactor` first. The redactor
learns every credential the client sends, whatever the adapter called the header
(:func:`~pytest_ttsbench.support.redaction.header_secrets`); a ``base_url`` with credentials in it
(``https://user:pass@host``) is refused.
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

from pytest_ttsbench.support.redaction import Redactor, header_secrets, url_credentials_message, url_secrets

if TYPE_CHECKING:  # httpx, tenacity and the deadlines load with the first client, not with an adapter's module
    import httpx
    from tenacity import RetryCallState

USER_AGENT = "pytest-ttsbench"

# Signs one attempt: (method, full URL, headers, body) → headers to send. Called again on every
# retry, because signatures carry a timestamp.
Signer = Callable[[str, str, dict[str, str], bytes], dict[str, str]]


@dataclass(frozen=True)
class ClientOptions:
    """Where requests go and how patiently: timeouts, retries and limits."""

    base_url: str
    timeout_s: float = 60.0
    connect_timeout_s: float = 10.0
    max_retries: int = 3
    retry_min_wait_s: float = 0.5
    retry_max_wait_s: float = 30.0
    concurrency: int = 4
    requests_per_second: float | None = None
    max_response_bytes: int = 200 * 1024 * 1024

    def __post_init__(self) -> None:
        # Userinfo would go out as Basic auth and come back in any message that quotes the URL.
        problem = url_credentials_message(self.base_url)
        if problem:
            raise ValueError(problem)

    @property
    def overall_deadline_s(self) -> float:
        """The most one request may take, its retries and the waits between them included.

        Every attempt may take ``timeout_s`` and every wait ``retry_max_wait_s``, so this is
        their sum; the client enforces it as a deadline of its own (see :meth:`HttpClient.request`).
        """
        return (self.max_retries + 1) * self.timeout_s + self.max_retries * self.retry_max_wait_s


# --- provider policy -------------------------------------------------------------------------


def clip_text(text: str, limit: int = 300) -> str:
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
    return clip_text(_join(*(" ".join(f.split()) for f in found))) or "an empty page"


def looks_like_html(body: bytes) -> bool:
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def describe_error_body(status: int, headers: httpx.Headers, body: bytes) -> str:
    """What an error body says, whatever its shape; falls back to naming an empty body."""
    if not body.strip():
        return "empty body"
    if looks_like_html(body) or "html" in headers.get("content-type", "").lower():
        return f"HTML page: {html_summary(body)}"
    try:
        document = json.loads(body)
    except ValueError:
        return clip_text(body.decode("utf-8", errors="replace"))
    return json_error_message(document) or clip_text(body.decode("utf-8", errors="replace"))


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


class _Overall:
    """One request's overall deadline, counted from the start of its first attempt."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at: float | None = None
        self.out_of_time = False  # retries stopped because the next wait would end past the deadline

    def begin(self, now: float) -> None:
        if self.at is None:  # after the semaphore: time queued behind other requests is not this one's
            self.at = now + self.seconds

    def left(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        return self.seconds if self.at is None else max(self.at - now, 0.0)


def _scrubbed(body: bytes, redact: Redactor) -> bytes:
    text = body.decode("utf-8", errors="replace")
    redacted = redact(text)
    return body if redacted == text else redacted.encode("utf-8")


def join_url(base_url: str, path: str) -> str:
    """``path`` (``/audio/speech``, maybe with a query) after ``base_url``'s path, both queries kept.

    A base URL may carry a query of its own (``…/deployments/tts?api-version=2025-03-01``):
    pasting the path after the whole string would put the path inside that query.
    """
    base, _, base_query = base_url.partition("?")
    tail, _, path_query = path.partition("?")
    query = "&".join(part for part in (base_query, path_query) if part)
    joined = (base.rstrip("/") + tail) if tail else base
    return f"{joined}?{query}" if query else joined


def with_params(url: httpx.URL, params: Mapping[str, str] | None) -> httpx.URL:
    """``url`` with ``params`` appended to its query, the query it has kept byte for byte.

    A query the address already has (a signed download URL's) must go out exactly as given:
    httpx.URL(address, params=None) drops it, params={…} replaces it, and merging re-encodes it
    (``%7e`` becomes ``~``) and lets a parameter replace one of the same name (a repeated key
    lost), any of which can void a signature computed over the query's bytes.
    """
    if not params:
        return url
    from urllib.parse import urlencode

    added = urlencode(list(params.items())).encode("ascii")
    return url.copy_with(query=url.query + b"&" + added if url.query else added)


class HttpClient:
    """Sends one provider's requests under the profile's timeouts, retries and limits."""

    def __init__(
        self,
        options: ClientOptions,
        policy: ProviderPolicy,
        redactor: Redactor,
        *,
        label: str,
        error_type: type[Exception],
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.options = options
        self.policy = policy
        self.error_type = error_type  # what every failure is raised as: the caller's own error class
        self.label = label  # "openai profile 'x'": starts every error message
        self._redact = redactor
        self._semaphore = threading.BoundedSemaphore(options.concurrency)
        self._rate = RateLimiter(options.requests_per_second)
        # No base URL carries a credential (ClientOptions refuses userinfo and ``?key=``); an address
        # given per request (a signed download URL) is scrubbed per request (see request()).
        for name, value in (headers or {}).items():
            for secret in header_secrets(name, value):
                redactor.add(secret)
        import httpx

        from pytest_ttsbench.support.http_deadline import install_deadlines

        self._client = httpx.Client(
            timeout=httpx.Timeout(options.timeout_s, connect=options.connect_timeout_s),
            limits=httpx.Limits(max_connections=options.concurrency, max_keepalive_connections=options.concurrency),
            headers={"User-Agent": USER_AGENT, **(headers or {})},
            follow_redirects=False,
        )
        install_deadlines(self._client)

    def redact_text(self, body: bytes) -> str:
        """A body as text with every known secret redacted, before anything quotes (and shortens) it."""
        return self._redact(body.decode("utf-8", errors="replace"))

    def scrub_body(self, body: bytes) -> bytes:
        """:meth:`redact_text` as bytes; the body itself when it names no secret."""
        return _scrubbed(body, self._redact)

    def error(self, message: str) -> Exception:
        """The caller's error type, labelled with the engine or route, every known secret scrubbed."""
        return self.error_type(self._redact(f"{self.label}: {message}"))

    def _error(self, message: str, redact: Redactor) -> Exception:
        """:meth:`error`, also scrubbed of the credentials one request sent."""
        return self.error_type(redact(f"{self.label}: {message}"))

    def url(self, path: str) -> str:
        return join_url(self.options.base_url, path)

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
        """Send until a response is final; raise the caller's error type (redacted) when retries run out.

        The request as a whole, retries and waits included, ends by the overall deadline
        (:attr:`ClientOptions.overall_deadline_s`, counted from the first attempt's start): each
        attempt gets at most the time left, and a retry whose wait would end past it is not made.
        """
        reasons: list[str] = []
        overall = _Overall(self.options.overall_deadline_s)
        # Whatever credential this request sends, in a header or the query, is scrubbed from its
        # messages. Values given for one request only (a signed download URL's signature) are
        # not learnt for the whole run: thousands of one-off values would slow every later scrub.
        # Keys given to the constructor are learnt process-wide (see __init__).
        sent = [*(headers or {}).items(), *(params or {}).items()]
        address = self.url(path)
        credentials = [s for name, value in sent for s in header_secrets(name, value)]
        redact = self._redact.with_secrets([*credentials, *url_secrets(address)])
        import httpx
        from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

        attempts_stop = stop_after_attempt(self.options.max_retries + 1)

        def note(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            if exc is not None:
                reasons.append(redact(str(exc)))

        def stop(state: RetryCallState) -> bool:
            if attempts_stop(state):
                return True
            # tenacity computes the wait before asking whether to stop (upcoming_sleep).
            overall.out_of_time = overall.left() <= state.upcoming_sleep
            return overall.out_of_time

        retrying = Retrying(
            stop=stop, wait=self._wait, retry=retry_if_exception_type(_Retryable), before_sleep=note, reraise=True
        )
        started = time.perf_counter()
        url = with_params(httpx.URL(address), params)
        last: _Retryable | None = None
        try:
            result = retrying(self._attempt, method, url, dict(headers or {}), content or b"", sign, overall, redact)
        except _Retryable as exc:
            last = exc
        if last is not None:
            # Raised outside the except block, so the unredacted attempt error is not its context.
            attempts = retrying.statistics.get("attempt_number", self.options.max_retries + 1)
            why = (
                f"; another would end past the request's overall deadline of {overall.seconds:g} s"
                if overall.out_of_time
                else ""
            )
            raise self._error(f"{last.reason} (gave up after {attempts} attempts{why})", redact)
        result.attempts = retrying.statistics.get("attempt_number", 1)
        result.retry_reasons = reasons
        result.wall_seconds = time.perf_counter() - started
        return result

    def _attempt(
        self,
        method: str,
        url: httpx.URL,
        headers: dict[str, str],
        content: bytes,
        sign: Signer | None,
        overall: _Overall,
        redact: Redactor,
    ) -> HttpResult:
        import httpx

        from pytest_ttsbench.support.http_deadline import deadline

        with self._semaphore:
            self._rate.wait()
            send_headers = sign(method, str(url), dict(headers), content) if sign else headers
            # A signature is made anew for every attempt: scrubbed from this attempt's messages only.
            signed = [s for k, v in send_headers.items() if k not in headers for s in header_secrets(k, v)]
            redact = redact.with_secrets(signed) if signed else redact
            request = self._client.build_request(method, url, headers=send_headers, content=content or None)
            now = time.monotonic()
            overall.begin(now)
            allowed = min(self.options.timeout_s, overall.left(now))
            start = time.perf_counter()
            first: float | None = None
            chunks: list[bytes] = []
            arrivals: list[tuple[float, int]] = []
            size = 0
            with deadline(allowed) as due:
                try:
                    response = self._client.send(request, stream=True)
                except httpx.TimeoutException as exc:
                    if due.passed:
                        raise _Retryable(self._past_deadline(allowed, "no response")) from None
                    if isinstance(exc, httpx.ConnectTimeout):
                        connect = self.options.connect_timeout_s
                        raise _Retryable(f"no connection within {connect:g} s (connect_timeout_s)") from None
                    raise _Retryable(f"no response within {self.options.timeout_s:g} s (timeout_s)") from None
                except httpx.TransportError as exc:
                    raise _Retryable(f"connection failed: {type(exc).__name__}: {exc}") from None
                except httpx.RequestError as exc:
                    raise self._error(f"request failed: {type(exc).__name__}: {exc}", redact) from None
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
                            raise self._error(f"response larger than {self.options.max_response_bytes} bytes", redact)
                        chunks.append(chunk)
                except httpx.TimeoutException:
                    raise _Retryable(
                        self._past_deadline(allowed, f"HTTP {response.status_code}, body unfinished after {size} bytes")
                    ) from None
                except httpx.TransportError as exc:
                    raise _Retryable(f"body cut short after {size} bytes: {type(exc).__name__}: {exc}") from None
                except httpx.RequestError as exc:
                    raise self._error(f"reading the body failed: {type(exc).__name__}: {exc}", redact) from None
                finally:
                    response.close()
            total = time.perf_counter() - start
        body = b"".join(chunks)
        status = response.status_code
        throttled = bool(self.policy.is_throttled and self.policy.is_throttled(status, response.headers, body))
        if status >= 300 or throttled:
            self._fail(status, response.headers, body, throttled, redact)
        return HttpResult(status, response.headers, body, first, total, total, 1, arrivals=arrivals)

    def _past_deadline(self, allowed: float, what: str) -> str:
        cut = " (what was left of the overall deadline)" if allowed < self.options.timeout_s else ""
        return (
            f"{what}: the request did not finish within its {allowed:g} s deadline{cut} "
            "(timeout_s: connect, headers and body together)"
        )

    def _fail(
        self, status: int, headers: httpx.Headers, body: bytes, throttled: bool, redact: Redactor | None = None
    ) -> None:
        redact = redact or self._redact
        # Redact first: the message below quotes only the body's start.
        body = _scrubbed(body, redact)
        if 300 <= status < 400:
            location = headers.get("location", "(no location)")
            raise self._error(f"HTTP {status}: unexpected redirect to {location}", redact)
        message = redact(f"HTTP {status}: {self.policy.message(status, headers, body)}")
        should = headers.get("x-should-retry", "").lower()  # OpenAI's explicit hint wins when present
        retryable = throttled or status in _RETRY_STATUSES or (status >= 500 and status != 501)
        if should in ("true", "false"):
            retryable = should == "true"
        if not retryable:
            raise self._error(message, redact)
        delay = parse_retry_after(headers)
        if delay is not None and delay > self.options.retry_max_wait_s:
            raise self._error(
                f"{message} (the provider asked to wait {delay:g} s, more than retry_max_wait_s "
                f"{self.options.retry_max_wait_s:g} s)",
                redact,
            )
        raise _Retryable(message, delay)
