"""MiniMax T2A v2 (``POST {base_url}/v1/t2a_v2``): the whole clip hex-encoded inside a JSON reply.

Profile fields::

    minimax:
      type: minimax
      base_url: https://api.minimax.io        # or https://api.minimaxi.com (mainland China)
      api_key_env: MINIMAX_API_KEY            # Authorization: Bearer
      model: speech-02-hd                     # speech-2.8-hd, speech-02-turbo …
      voice: male-qn-qingse                   # voice_id, or a map language → voice_id
      speed: 1.0                              # optional, 0.5–2
      sample_rate: 32000                      # optional: 8000 16000 22050 24000 32000 44100
      format: wav                             # wav | mp3 | pcm (pcm: s16le at sample_rate)
      language_boost: Chinese                 # optional, sent as is

MiniMax answers its own errors with HTTP 200 and ``base_resp.status_code`` other than 0 (1004
authentication, 1008 balance, 2013 parameters …); those are ``error`` rows carrying
``status_msg``. Throttling (1002 requests per minute, 1039 tokens per minute) is retried with
the client's backoff. The reply is not streamed: the first audio is the whole body.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes
from pytest_ttsbench.engines.json_reply import dig, reply_document
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.support.httpclient import ProviderPolicy

if TYPE_CHECKING:  # httpx loads with the first client (httpclient.py)
    import httpx

    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("model", "voice", "speed", "sample_rate", "language_boost")
EXPORT_FORMATS: tuple[str, ...] = ("wav", "mp3", "pcm")

DEFAULT_BASE_URL = "https://api.minimax.io"
DEFAULT_MODEL = "speech-02-hd"
DEFAULT_SAMPLE_RATE = 32_000
SAMPLE_RATES = (8000, 16000, 22050, 24000, 32000, 44100)
MEDIA_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg", "pcm": "audio/pcm"}
# base_resp codes that mean "slow down": retried like a 429 (MiniMax's error-code page).
THROTTLING_CODES = frozenset({1002, 1039})


def base_resp(body: bytes) -> tuple[int, str] | None:
    """(status_code, status_msg) of a reply's ``base_resp``; None when the body has none."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    code = dig(document, "base_resp", "status_code")
    if isinstance(code, bool) or not isinstance(code, int):
        return None
    message = dig(document, "base_resp", "status_msg")
    return code, message if isinstance(message, str) else ""


def describe_status(code: int, message: str) -> str:
    return f"MiniMax status_code {code}: {message or '(no status_msg)'}"


def _error_message(status: int, headers: httpx.Headers, body: bytes) -> str | None:
    found = base_resp(body)
    return describe_status(*found) if found and found[0] != 0 else None


def _is_throttled(status: int, headers: httpx.Headers, body: bytes) -> bool:
    found = base_resp(body) if len(body) < 65_536 else None  # an error reply is small; audio is not
    return found is not None and found[0] in THROTTLING_CODES


POLICY = ProviderPolicy(
    name="minimax",
    error_message=_error_message,
    is_throttled=_is_throttled,
    request_id_headers=("trace-id", "x-trace-id"),
)


class MiniMaxEngine(HttpEngine):
    """Speech from MiniMax's non-streaming T2A v2 endpoint."""

    def __init__(self, profile: EngineProfile) -> None:
        key = read_api_key(profile)
        headers = {"Authorization": f"Bearer {key}"}
        super().__init__(profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, secrets=(key,), headers=headers)
        self.model = self.str_option("model", DEFAULT_MODEL) or DEFAULT_MODEL
        self.format = self.str_option("format", "wav", tuple(MEDIA_TYPES)) or "wav"
        self.sample_rate = self.rate_option("sample_rate", DEFAULT_SAMPLE_RATE, SAMPLE_RATES)
        self.speed = self.number_option("speed", None, 0.5, 2.0)
        self.language_boost = self.str_option("language_boost")

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.require_voice(request.language, request.voice)
        voice_setting: dict[str, Any] = {"voice_id": voice}
        if self.speed is not None:
            voice_setting["speed"] = self.speed
        body: dict[str, Any] = {
            "model": self.model,
            "text": request.text,
            "stream": False,
            "voice_setting": voice_setting,
            "audio_setting": {"sample_rate": self.sample_rate, "format": self.format, "channel": 1},
            "output_format": "hex",
        }
        if self.language_boost:
            body["language_boost"] = self.language_boost
        result = self.http.request(
            "POST", "/v1/t2a_v2", headers={"Content-Type": "application/json"}, content=json_bytes(body)
        )
        document = reply_document(result, self.http)
        found = base_resp(result.body)
        if found is None:
            raise self.http.error("HTTP 200 without base_resp: not a T2A v2 reply")
        if found[0] != 0:
            raise self.http.error(f"HTTP 200 with {describe_status(*found)}")
        hex_audio = dig(document, "data", "audio")
        if not isinstance(hex_audio, str) or not hex_audio:
            status = dig(document, "data", "status")
            raise self.http.error(f"HTTP 200 without audio (data.audio is empty; data.status {status!r})")
        try:
            audio = bytes.fromhex(hex_audio)
        except ValueError:
            raise self.http.error("data.audio is not hex-encoded audio") from None
        info = dig(document, "extra_info") or {}
        reply_rate = info.get("audio_sample_rate") if isinstance(info, dict) else None
        pcm_rate = int(reply_rate) if isinstance(reply_rate, int) and reply_rate > 0 else self.sample_rate
        settings: dict[str, Any] = {
            "model": self.model,
            "voice": voice,
            "format": self.format,
            "sample_rate": self.sample_rate,
        }
        if self.speed is not None:
            settings["speed"] = self.speed
        if self.language_boost:
            settings["language_boost"] = self.language_boost
        if isinstance(document, dict) and isinstance(document.get("trace_id"), str):
            settings["request_id"] = document["trace_id"]  # the id MiniMax support asks for
        return audio_synthesis(
            result,
            self.http,
            audio=audio,
            media_type=MEDIA_TYPES[self.format],
            pcm_sample_rate=pcm_rate if self.format == "pcm" else None,
            metadata=settings,
        )
