"""An ASR route over the OpenAI transcription API: ``POST {base_url}/audio/transcriptions``.

OpenAI serves it, and so do the self-hosted servers that copy it (vLLM, speaches,
whisper.cpp's server), so one route covers a cloud recognizer and a GPU box down the hall::

    asr:
      routes:
        - {type: openai, base_url: http://gpu-box:8000/v1, model: openai/whisper-large-v3, name: large-v3}
        - {type: openai, model: gpt-4o-transcribe, api_key_env: OPENAI_API_KEY}

The clip goes up as a 16-bit WAV in a multipart form with ``model``, ``language`` (the item's
primary language subtag, as Whisper names it) and ``response_format=json``; the answer's
``text`` is the transcript. The key, when there is one, is read from the environment variable
named by ``api_key_env`` at the first transcription and scrubbed from every message.

Transient failures (connection errors, timeouts, 408, 429, 5xx) are retried with exponential
backoff (tenacity); anything else fails the clip at once with the server's own message.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

import httpx
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from pytest_ttsbench.asr.base import AsrError, Transcription
from pytest_ttsbench.asr.whisper import whisper_language
from pytest_ttsbench.audio import DecodedAudio, encode_wav
from pytest_ttsbench.engines.http import describe_error_body
from pytest_ttsbench.engines.secrets import Redactor

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "whisper-1"
_RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_KEYS = frozenset(
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
    }
)


class _Transient(Exception):
    """A failure worth another attempt; carries the message to report if none succeeds."""


class OpenAITranscriptionRoute:
    """A recognizer behind an OpenAI-compatible ``/audio/transcriptions`` endpoint."""

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
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"openai route: base_url must be an http(s) URL, got {base_url!r}")
        self.url = base_url.rstrip("/") + "/audio/transcriptions"
        self.model = model
        self.api_key_env = api_key_env
        self.name = name or f"openai:{model}"
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.retry_min_wait_s = float(retry_min_wait_s)
        self.retry_max_wait_s = max(float(retry_max_wait_s), self.retry_min_wait_s)
        self.prompt = prompt
        self.temperature = temperature
        self._redact = Redactor()
        self._client: httpx.Client | None = None

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
        return form

    def _attempt(self, wav: bytes, form: Mapping[str, str], headers: Mapping[str, str]) -> str:
        if self._client is None:
            self._client = httpx.Client(timeout=httpx.Timeout(self.timeout_s, connect=min(10.0, self.timeout_s)))
        try:
            response = self._client.post(
                self.url, data=dict(form), files={"file": ("clip.wav", wav, "audio/wav")}, headers=dict(headers)
            )
        except httpx.TransportError as exc:  # connection refused, reset, timeout: worth retrying
            raise _Transient(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            message = f"HTTP {response.status_code}: " + describe_error_body(
                response.status_code, response.headers, response.content
            )
            if response.status_code in _RETRY_STATUSES:
                raise _Transient(message)
            raise AsrError(message)
        try:
            document: Any = response.json()
        except (ValueError, json.JSONDecodeError) as exc:
            raise AsrError(f"answer is not JSON: {response.text[:200]!r}") from exc
        text = document.get("text") if isinstance(document, Mapping) else None
        if not isinstance(text, str):
            raise AsrError(f"answer has no 'text' string: {json.dumps(document)[:200]}")
        return text

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription:
        headers = self._headers()
        form = self._form(language)
        wav = encode_wav(audio)
        retrying = Retrying(
            retry=retry_if_exception_type(_Transient),
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential(multiplier=self.retry_min_wait_s, max=self.retry_max_wait_s),
            reraise=True,
        )
        attempts = 0
        text = ""
        started = time.perf_counter()
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    text = self._attempt(wav, form, headers)
        except (_Transient, AsrError) as exc:
            tries = f" after {attempts} attempt(s)" if attempts > 1 else ""
            raise AsrError(self._redact(f"ASR route {self.name!r} ({self.url}){tries}: {exc}")) from None
        return Transcription(
            text=text.strip(),
            seconds=time.perf_counter() - started,
            language=form["language"],
            details={"model": self.model, "url": self.url, "attempts": attempts},
        )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def openai_route(spec: Mapping[str, Any]) -> OpenAITranscriptionRoute:
    """The route for ``{type: openai, base_url, model, api_key_env, name, timeout_s, max_retries, ...}``."""
    unknown = set(spec) - _KEYS
    if unknown:
        raise ValueError(f"openai route: unknown field(s) {', '.join(sorted(unknown))}")
    return OpenAITranscriptionRoute(**{k: v for k, v in spec.items() if k != "type" and v is not None})
