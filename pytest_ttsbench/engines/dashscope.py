"""Alibaba Cloud DashScope speech: CosyVoice and Qwen-TTS models, whose reply names an audio URL.

Profile fields::

    cosyvoice:
      type: dashscope
      base_url: https://dashscope.aliyuncs.com    # or https://dashscope-intl.aliyuncs.com
      api_key_env: DASHSCOPE_API_KEY              # Authorization: Bearer
      model: cosyvoice-v2                         # cosyvoice-*, sambert-*: /audio/tts/SpeechSynthesizer
      voice: longxiaochun_v2                      # qwen-tts, qwen3-tts-*: /aigc/multimodal-generation
      format: wav                                 # CosyVoice only: wav | mp3 | pcm
      sample_rate: 24000                          # CosyVoice only
      language_type: Chinese                      # Qwen-TTS only; default: from the item's language

The model picks the endpoint: names starting ``qwen`` go to multimodal generation, the others
to the SpeechSynthesizer. Both answer ``output.audio.url``, which the adapter then downloads
with a plain GET that carries no key (a signed object-store URL refuses a second credential,
and the key must not travel to another host). Errors are ``{"code", "message"}``; the
``Throttling.*`` codes are retried whatever the status they come with.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.engines.base import EngineError, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, engine_label, json_bytes
from pytest_ttsbench.engines.json_reply import dig, reply_document
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.run_model.provenance import endpoint_host
from pytest_ttsbench.support.httpclient import HttpClient, ProviderPolicy

if TYPE_CHECKING:  # httpx loads with the first client (httpclient.py)
    import httpx

    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("model", "voice", "sample_rate", "language_type")
EXPORT_FORMATS: tuple[str, ...] = ("wav", "mp3", "pcm")

DEFAULT_BASE_URL = "https://dashscope.aliyuncs.com"
DEFAULT_MODEL = "cosyvoice-v2"
SYNTHESIZER_PATH = "/api/v1/services/audio/tts/SpeechSynthesizer"
MULTIMODAL_PATH = "/api/v1/services/aigc/multimodal-generation/generation"
DEFAULT_SAMPLE_RATE = 24_000
SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)  # CosyVoice's
MEDIA_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg", "pcm": "audio/pcm"}
# Qwen-TTS names languages in English words; items carry BCP 47 tags.
LANGUAGE_TYPES = {
    "zh": "Chinese",
    "en": "English",
    "ja": "Japanese",
    "ko": "Korean",
    "de": "German",
    "fr": "French",
    "ru": "Russian",
    "it": "Italian",
    "es": "Spanish",
    "pt": "Portuguese",
}


def error_code(body: bytes) -> tuple[str, str] | None:
    """(code, message) of a DashScope error document; None for anything else."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    code = dig(document, "code")
    if not isinstance(code, str) or not code:
        return None
    message = dig(document, "message")
    return code, message if isinstance(message, str) else ""


def _error_message(status: int, headers: httpx.Headers, body: bytes) -> str | None:
    found = error_code(body)
    return f"{found[0]}: {found[1]}" if found else None


def _is_throttled(status: int, headers: httpx.Headers, body: bytes) -> bool:
    found = error_code(body) if len(body) < 65_536 else None
    return found is not None and found[0].startswith("Throttling")


POLICY = ProviderPolicy(
    name="dashscope", error_message=_error_message, is_throttled=_is_throttled, request_id_headers=("x-request-id",)
)
DOWNLOAD_POLICY = ProviderPolicy(name="dashscope", request_id_headers=("x-oss-request-id",))


class DashScopeEngine(HttpEngine):
    """Speech from DashScope's CosyVoice or Qwen-TTS HTTP endpoints, downloaded from the URL they name."""

    def __init__(self, profile: EngineProfile) -> None:
        key = read_api_key(profile)
        headers = {"Authorization": f"Bearer {key}"}
        super().__init__(profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, secrets=(key,), headers=headers)
        self.model = self.str_option("model", DEFAULT_MODEL) or DEFAULT_MODEL
        self.qwen = self.model.lower().startswith("qwen")
        self.format = self.str_option("format", "wav", tuple(MEDIA_TYPES)) or "wav"
        self.sample_rate = self.rate_option("sample_rate", DEFAULT_SAMPLE_RATE, SAMPLE_RATES)
        self.language_type = self.str_option("language_type")
        # The audio URL is absolute and on another host: a client of its own, without the key.
        self.download = HttpClient(
            dataclasses.replace(self.options, base_url=""),
            DOWNLOAD_POLICY,
            self.redact,
            label=f"{engine_label(profile)} (audio download)",
            error_type=EngineError,
        )

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.require_voice(request.language, request.voice)
        settings: dict[str, Any] = {"model": self.model, "voice": voice}
        if self.qwen:
            language = self.language_type or LANGUAGE_TYPES.get(request.language.split("-")[0].lower(), "Auto")
            body: dict[str, Any] = {
                "model": self.model,
                "input": {"text": request.text, "voice": voice, "language_type": language},
            }
            path, media_type, pcm_rate = MULTIMODAL_PATH, "audio/wav", None
            settings.update(endpoint="multimodal-generation", language_type=language)
        else:
            body = {
                "model": self.model,
                "input": {"text": request.text, "voice": voice, "format": self.format, "sample_rate": self.sample_rate},
            }
            path, media_type = SYNTHESIZER_PATH, MEDIA_TYPES[self.format]
            pcm_rate = self.sample_rate if self.format == "pcm" else None
            settings.update(endpoint="SpeechSynthesizer", format=self.format, sample_rate=self.sample_rate)
        result = self.http.request("POST", path, headers={"Content-Type": "application/json"}, content=json_bytes(body))
        document = reply_document(result, self.http)
        url = dig(document, "output", "audio", "url")
        if not isinstance(url, str) or not url:
            found = error_code(result.body)
            if found:
                raise self.http.error(f"HTTP 200 with {found[0]}: {found[1]}")
            reason = dig(document, "output", "finish_reason")
            raise self.http.error(f"HTTP 200 without audio (no output.audio.url; finish_reason {reason!r})")
        if not url.startswith(("http://", "https://")):
            raise self.http.error(f"output.audio.url is not an http(s) URL: {url[:80]!r}")
        # The signature is in the query, sent as given (support/httpclient.py) and scrubbed from messages.
        download = self.download.request("GET", url)
        request_id = dig(document, "request_id")
        if isinstance(request_id, str):
            settings["request_id"] = request_id
        synthesis = audio_synthesis(download, self.download, media_type=media_type, pcm_sample_rate=pcm_rate)
        # Timings of the whole exchange: the synthesis call, then the download.
        synthesis.first_byte_seconds = result.first_byte_seconds
        synthesis.first_audio_seconds = None
        synthesis.streamed = False
        synthesis.metadata.update(
            http_status=result.status,
            attempts=result.attempts + download.attempts - 1,
            retries=result.attempts + download.attempts - 2,
            total_seconds=round(result.total_seconds + download.total_seconds, 6),
            wall_seconds=round(result.wall_seconds + download.wall_seconds, 6),
            **settings,
        )
        if result.retry_reasons or download.retry_reasons:
            synthesis.metadata["retry_reasons"] = result.retry_reasons + download.retry_reasons
        host = endpoint_host(self.options.base_url)
        if host:
            synthesis.metadata["endpoint_host"] = host
        return synthesis

    def close(self) -> None:
        super().close()
        self.download.close()
