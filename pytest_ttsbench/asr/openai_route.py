"""An ASR route over the OpenAI transcription API: ``POST {base_url}/audio/transcriptions``.

OpenAI serves it, and so do the self-hosted servers that copy it (vLLM, speaches,
whisper.cpp's server), so one route covers a cloud recognizer and a GPU box down the hall::

    asr:
      routes:
        - {type: openai, base_url: http://gpu-box:8000/v1, model: openai/whisper-large-v3, name: large-v3}
        - {type: openai, model: gpt-4o-transcribe, api_key_env: OPENAI_API_KEY}

The clip goes up as a 16-bit WAV in a multipart form with ``model``, ``language`` (the item's
primary language subtag, as Whisper names it) and ``response_format=json``, plus the fields of
``extra_form`` (FunASR's server wants ``use_itn: false`` to decode as a benchmark did); the
answer's ``text`` is the transcript, less a leading match of ``strip_prefix`` (a regex; by
default ``language Chinese<asr_text>``, which Qwen3-ASR servers put before the text; ``""``
strips nothing). The key, when there is one, is read from the environment variable
named by ``api_key_env`` at the first transcription and scrubbed from every message.

Requests go through the shared HTTP client (:mod:`pytest_ttsbench.support.httpclient`): transient
failures are retried under the same policy as the engine adapters (``Retry-After`` honoured);
anything else fails the clip at once with the server's own message.

``concurrency`` (default 1) is how many of this route's requests one pytest process keeps in
flight: with more than one, the route takes part in transcription across items
(:mod:`pytest_ttsbench.asr.batching`) as a route of ``items_batch = concurrency``: when a test's
clip reaches it, the clips of later tests already synthesized and checked go with it, each its
own request, up to ``concurrency`` at once, so a recognizer server shared by several CI shards,
or one that batches concurrent requests (vLLM), is kept busy. One, the default, sends each clip
from its own test, one at a time.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from pytest_ttsbench.asr.base import AsrError, Transcription
from pytest_ttsbench.asr.whisper import whisper_language
from pytest_ttsbench.audio.decoding import DecodedAudio, encode_wav
from pytest_ttsbench.support.checked_numbers import (
    COUNT,
    NON_NEGATIVE,
    POSITIVE,
    NumberRange,
    checked_fields,
    checked_number,
)
from pytest_ttsbench.support.httpclient import ClientOptions, HttpClient, HttpResult, ProviderPolicy, join_url
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.limits import MAX_TRANSCRIPT_BYTES
from pytest_ttsbench.support.redaction import Redactor, hide_userinfo, url_credentials_message
from pytest_ttsbench.support.text import shorten

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "whisper-1"
_PATH = "/audio/transcriptions"
DEFAULT_CONCURRENCY = 1
# More requests than this from one process would be a mistake, not a setting (a typo'd 400).
MAX_CONCURRENCY = 64
#: the route's numeric fields and their ranges
NUMERIC_FIELDS = {
    "timeout_s": POSITIVE,
    "max_retries": COUNT,
    "retry_min_wait_s": NON_NEGATIVE,
    "retry_max_wait_s": NON_NEGATIVE,
    "temperature": NON_NEGATIVE,
    "concurrency": NumberRange(1, MAX_CONCURRENCY, integer=True),
}
ROUTE_KEYS = frozenset(
    {
        "type",
        "name",
        "base_url",
        "model",
        "api_key_env",
        "timeout_s",
        "max_retries",
        "retry_min_wait_s",
        "retry_max_wait_s",
        "prompt",
        "temperature",
        "extra_form",
        "strip_prefix",
        "concurrency",
    }
)
# What Qwen3-ASR (and MiMo) put before the transcript: the language it heard, then a tag.
DEFAULT_STRIP_PREFIX = r"\s*language\s+[^<\n]{0,40}<asr_text>"


def compile_prefix(pattern: str | None, route: str) -> re.Pattern[str] | None:
    """``strip_prefix`` as a regex matched at the start of a reply (None or ``""``: strip nothing)."""
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{route} route: strip_prefix {pattern!r} is not a regular expression: {exc}") from None


def concurrency_setting(value: Any, route: str) -> int:
    """``concurrency`` as a whole number of requests in flight, 1 to :data:`MAX_CONCURRENCY`
    (``route`` names the route in the message: ``openai route 'shared'``)."""
    return int(
        checked_number(value, f"{route}: concurrency (requests in flight at once)", NUMERIC_FIELDS["concurrency"])
    )


def without_prefix(text: str, prefix: re.Pattern[str] | None) -> tuple[str, str | None]:
    """The reply with a leading ``prefix`` match removed, and what was removed (None: nothing)."""
    found = prefix.match(text) if prefix is not None else None
    if found is None or not found.group(0):
        return text.strip(), None
    return text[found.end() :].strip(), found.group(0)


class OpenAITranscriptionRoute:
    """A recognizer behind an OpenAI-compatible ``/audio/transcriptions`` endpoint.

    Requests go through the shared :class:`~pytest_ttsbench.support.httpclient.HttpClient`, so this
    route retries exactly as the engine adapters do (and honours ``Retry-After``).
    """

    kind = "openai"
    path = _PATH

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        model: str = DEFAULT_MODEL,
        api_key_env: str | None = None,
        name: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        retry_min_wait_s: float = 0.5,
        retry_max_wait_s: float = 20.0,
        prompt: str | None = None,
        temperature: float | None = None,
        extra_form: Mapping[str, Any] | None = None,
        strip_prefix: str | None = DEFAULT_STRIP_PREFIX,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"{self.kind} route: base_url must be an http(s) URL, got {hide_userinfo(base_url)!r}")
        credentials = url_credentials_message(base_url)
        if credentials:
            raise ValueError(f"{self.kind} route: base_url {credentials}")
        self.url = join_url(base_url, self.path)
        self.model = model
        self.api_key_env = api_key_env
        self.name = name or f"{self.kind}:{model}"
        self.prompt = prompt
        self.temperature = temperature
        self.extra_form = _form_fields(extra_form)
        self.strip_prefix = compile_prefix(strip_prefix, self.kind)
        #: requests in flight at once from this process (the client enforces it)
        self.concurrency = concurrency_setting(concurrency, f"{self.kind} route {self.name!r}")
        #: clips of several items handed over together (asr/batching.py): one request each, at once
        self.items_batch = self.concurrency
        self.options = ClientOptions(
            base_url=base_url.rstrip("/"),
            timeout_s=float(timeout_s),
            connect_timeout_s=min(10.0, float(timeout_s)),
            max_retries=int(max_retries),
            retry_min_wait_s=float(retry_min_wait_s),
            retry_max_wait_s=max(float(retry_max_wait_s), float(retry_min_wait_s)),
            max_response_bytes=MAX_TRANSCRIPT_BYTES,  # an answer is a transcript, never megabytes
            concurrency=self.concurrency,
        )
        self._redact = Redactor()
        self._client: HttpClient | None = None
        self._client_lock = threading.Lock()  # clips are sent from several threads when concurrency > 1

    def _headers(self) -> dict[str, str]:
        if not self.api_key_env:
            return {}
        key = os.environ.get(self.api_key_env, "").strip()
        if not key:
            raise AsrError(
                f"ASR route {self.name!r}: environment variable {self.api_key_env} is not set "
                "(it should hold the API key)"
            )
        self._redact.add(key)
        return {"Authorization": f"Bearer {key}"}

    def _form(self, language: str) -> dict[str, str]:
        form = {"model": self.model, "language": whisper_language(language), "response_format": "json"}
        if self.prompt:
            form["prompt"] = self.prompt
        if self.temperature is not None:
            form["temperature"] = str(self.temperature)
        return {**form, **self.extra_form}

    def _http(self) -> HttpClient:
        with self._client_lock:
            if self._client is None:
                label = f"ASR route {self.name!r} ({self.url})"
                policy = ProviderPolicy(f"{self.kind}-transcriptions")
                self._client = HttpClient(self.options, policy, self._redact, label=label, error_type=AsrError)
            return self._client

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription:
        headers = self._headers()
        form = self._form(language)
        # httpx encodes the multipart body once; every attempt sends the same bytes.
        upload = httpx.Request(
            "POST", self.url, data=form, files={"file": ("clip.wav", encode_wav(audio), "audio/wav")}
        )
        body = upload.read()
        headers["Content-Type"] = upload.headers["content-type"]
        document, result = self._post(headers, body)
        text = document.get("text") if isinstance(document, Mapping) else None
        if not isinstance(text, str):
            shown = shorten(self._redact(dump_json(document)), 200)
            raise self._http().error(f"answer has no 'text' string: {shown}")
        return self._transcription(text, result, form["language"])

    def transcribe_together(self, audios: Sequence[DecodedAudio], language: str) -> list[Transcription | AsrError]:
        """Clips of several items, each its own request, up to ``concurrency`` in flight; outcomes in order.

        A clip whose request fails gets its :class:`AsrError`, the others their transcripts.
        """

        def one(audio: DecodedAudio) -> Transcription | AsrError:
            try:
                return self.transcribe(audio, language)
            except AsrError as exc:
                return exc

        if len(audios) <= 1:
            return [one(audio) for audio in audios]
        with ThreadPoolExecutor(min(len(audios), self.concurrency), thread_name_prefix="ttsbench-asr") as pool:
            return list(pool.map(one, audios))

    def _post(self, headers: dict[str, str], body: bytes) -> tuple[Any, HttpResult]:
        """POST ``body`` (retried by the shared client) and parse the answer as JSON."""
        client = self._http()
        result = client.request("POST", self.path, headers=headers, content=body)
        try:
            return json.loads(result.body), result
        except ValueError:
            # Redacted before it is shortened: a cut key would no longer match.
            raise client.error(f"answer is not JSON: {shorten(client.redact_text(result.body), 200)!r}") from None

    def _text(self, reply: str) -> tuple[str, str | None]:
        """The reply redacted (a server that echoes the key must not put it in a transcript) and
        without its ``strip_prefix``; and the prefix removed."""
        return without_prefix(self._redact(reply), self.strip_prefix)

    def _transcription(self, reply: str, result: HttpResult, language: str | None) -> Transcription:
        text, prefix = self._text(reply)
        details: dict[str, object] = {"model": self.model, "url": self.url, "attempts": result.attempts}
        if prefix is not None:
            details["stripped_prefix"] = prefix
        return Transcription(text=text, seconds=result.wall_seconds, language=language, details=details)

    def close(self) -> None:
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def _form_fields(extra: Mapping[str, Any] | None) -> dict[str, str]:
    """``extra_form`` as form fields: scalars only (true/false as the lowercase words servers parse)."""
    if extra is None:
        return {}
    if not isinstance(extra, Mapping):
        raise ValueError("openai route: extra_form must be a mapping of form field → value")
    fields: dict[str, str] = {}
    for key, value in extra.items():
        if key == "file" or isinstance(value, (Mapping, list, tuple)) or value is None:
            raise ValueError(f"openai route: extra_form field {key!r} must be a string, number or boolean")
        fields[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
    return fields


def openai_route(spec: Mapping[str, Any]) -> OpenAITranscriptionRoute:
    """The route for ``{type: openai, base_url, model, api_key_env, name, timeout_s, max_retries, ...}``."""
    unknown = set(spec) - ROUTE_KEYS
    if unknown:
        raise ValueError(f"openai route: unknown field(s) {', '.join(sorted(unknown))}")
    checked_fields(spec, NUMERIC_FIELDS, f"openai route {spec['name']!r}" if spec.get("name") else "openai route")
    return OpenAITranscriptionRoute(**{k: v for k, v in spec.items() if k != "type" and v is not None})
