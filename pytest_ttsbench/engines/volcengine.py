"""Volcengine (Doubao / Seed TTS) v3 unidirectional HTTP: ``POST {base_url}/api/v3/tts/unidirectional``.

Profile fields::

    doubao:
      type: volcengine
      base_url: https://openspeech.bytedance.com
      resource_id: seed-tts-1.0               # X-Api-Resource-Id: the product (seed-tts-2.0 …)
      api_key_env: VOLC_API_KEY               # X-Api-Key; or instead the older pair:
      # app_id_env: VOLC_APP_ID               #   X-Api-App-Id
      # access_key_env: VOLC_ACCESS_KEY       #   X-Api-Access-Key
      voice: zh_female_cancan_mars_bigtts     # req_params.speaker, or a map language → speaker
      sample_rate: 24000                      # optional: 8000 16000 22050 24000 32000 44100 48000
      speech_rate: 0                          # optional, -50 (slower) … 100 (faster)

The reply is chunked: newline-separated JSON objects, each ``{"code": 0, "data": "<base64
audio>"}`` (or sentence information without data), ending with ``{"code": 20000000}``. Any
other code, or a stream that stops before that last object, is an ``error`` row carrying the
provider's ``message``. The adapter always asks for PCM, because a WAV request makes every
chunk start with a WAV header of its own, and wraps the joined PCM in one WAV. The first audio
is timed at the arrival of the first chunk that carries data.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import MissingCredentials, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes
from pytest_ttsbench.engines.json_reply import dig
from pytest_ttsbench.engines.secrets import read_env_secret
from pytest_ttsbench.support.httpclient import HttpResult, ProviderPolicy, clip_text, html_summary, looks_like_html

if TYPE_CHECKING:  # httpx loads with the first client (httpclient.py)
    import httpx

    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("resource_id", "voice", "sample_rate", "speech_rate")
EXPORT_FORMATS: tuple[str, ...] = ("pcm (wrapped as wav)",)

DEFAULT_BASE_URL = "https://openspeech.bytedance.com"
DEFAULT_RESOURCE_ID = "seed-tts-1.0"
DEFAULT_SAMPLE_RATE = 24_000
SAMPLE_RATES = (8000, 16000, 22050, 24000, 32000, 44100, 48000)
FINISHED = 20_000_000  # the code of the stream's last object: synthesis complete
PATH = "/api/v3/tts/unidirectional"


def describe_code(code: Any, message: Any) -> str:
    return f"Volcengine code {code}: {message or '(no message)'}"


def _error_message(status: int, headers: httpx.Headers, body: bytes) -> str | None:
    first = body.strip().split(b"\n", 1)[0]
    try:
        document = json.loads(first)
    except ValueError:
        return None
    code = dig(document, "code")
    return describe_code(code, dig(document, "message")) if code is not None else None


POLICY = ProviderPolicy(name="volcengine", error_message=_error_message, request_id_headers=("x-tt-logid",))


class VolcengineEngine(HttpEngine):
    """Speech from the Doubao / Seed TTS v3 HTTP endpoint, as PCM wrapped in WAV."""

    def __init__(self, profile: EngineProfile) -> None:
        headers, secrets = self._credentials(profile)
        resource = profile.option("resource_id", DEFAULT_RESOURCE_ID)
        if not isinstance(resource, str) or not resource:
            raise ConfigError(f"engine profile {profile.name!r}: resource_id must name the product, e.g. seed-tts-1.0")
        headers["X-Api-Resource-Id"] = resource
        super().__init__(profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, secrets=secrets, headers=headers)
        self.resource_id = resource
        self.sample_rate = self.rate_option("sample_rate", DEFAULT_SAMPLE_RATE, SAMPLE_RATES)
        speech_rate = self.number_option("speech_rate", None, -50, 100)
        self.speech_rate = int(speech_rate) if speech_rate is not None else None

    @staticmethod
    def _credentials(profile: EngineProfile) -> tuple[dict[str, str], tuple[str | None, ...]]:
        """X-Api-Key from ``api_key_env``, else the X-Api-App-Id + X-Api-Access-Key pair."""
        if profile.api_key_env:
            key = read_env_secret(profile.api_key_env, profile.name)
            return {"X-Api-Key": key}, (key,)
        app_env, access_env = profile.option("app_id_env"), profile.option("access_key_env")
        if not (isinstance(app_env, str) and isinstance(access_env, str)):
            raise MissingCredentials(
                f"engine profile {profile.name!r} (volcengine) needs credentials: set api_key_env, or both "
                "app_id_env and access_key_env, to the names of the environment variables that hold them"
            )
        app_id = os.environ.get(app_env, "").strip()  # an app id identifies, it does not authorize
        if not app_id:
            raise MissingCredentials(
                f"engine profile {profile.name!r}: environment variable {app_env} is not set "
                "(it should hold the app id)"
            )
        access = read_env_secret(access_env, profile.name, "access key")
        return {"X-Api-App-Id": app_id, "X-Api-Access-Key": access}, (access,)

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        speaker = self.require_voice(request.language, request.voice)
        audio_params: dict[str, Any] = {"format": "pcm", "sample_rate": self.sample_rate}
        if self.speech_rate is not None:
            audio_params["speech_rate"] = self.speech_rate
        body = {
            "user": {"uid": "pytest-ttsbench"},
            "req_params": {"text": request.text, "speaker": speaker, "audio_params": audio_params},
        }
        result = self.http.request(
            "POST",
            PATH,
            headers={"Content-Type": "application/json", "X-Api-Request-Id": str(uuid.uuid4())},
            content=json_bytes(body),
        )
        try:
            stream = read_stream(result.body, self.http.redact_text)
        except StreamError as exc:
            raise self.http.error(str(exc)) from None
        synthesis = audio_synthesis(
            result,
            self.http,
            audio=pcm16_wav(stream.pcm, self.sample_rate),
            media_type="audio/wav",
            metadata={
                "voice": speaker,
                "resource_id": self.resource_id,
                "format": "pcm",
                "sample_rate": self.sample_rate,
                **({"speech_rate": self.speech_rate} if self.speech_rate is not None else {}),
            },
        )
        if result.streamed:
            synthesis.streamed = True
            synthesis.first_audio_seconds = first_arrival(result, stream.first_data_end)
        return synthesis


class StreamError(ValueError):
    """A reply stream that did not end in complete audio; the message says why, in the provider's words."""


@dataclass(frozen=True)
class StreamAudio:
    """The audio of a complete stream."""

    pcm: bytes
    chunks: int
    # Byte offset in the body where the first object carrying audio ended: its arrival is the first audio.
    first_data_end: int


def read_stream(body: bytes, redact_text: Callable[[bytes], str]) -> StreamAudio:
    """The PCM of every data object up to the final ``20000000`` one; StreamError otherwise.

    ``redact_text`` scrubs secrets from a line before it is quoted (and shortened) in the error.
    """
    if looks_like_html(body):
        raise StreamError(f"HTTP 200 with an HTML page instead of the JSON stream: {html_summary(body)}")
    pcm: list[bytes] = []
    first_end = 0
    offset = 0
    for raw in body.split(b"\n"):
        offset += len(raw) + 1
        if not raw.strip():
            continue
        try:
            document = json.loads(raw)
        except ValueError:
            raise StreamError(
                f"HTTP 200 with a line that is not JSON in the stream: {clip_text(redact_text(raw))}"
            ) from None
        code = dig(document, "code")
        if code == FINISHED:
            audio = b"".join(pcm)
            if not audio:
                raise StreamError(f"the stream finished (code {FINISHED}) without any audio")
            return StreamAudio(audio, len(pcm), first_end)
        if code not in (0, None):
            got = f" after {len(pcm)} audio chunks" if pcm else ""
            raise StreamError(f"HTTP 200 with {describe_code(code, dig(document, 'message'))}{got}")
        data = dig(document, "data")
        if isinstance(data, str) and data:
            try:
                pcm.append(base64.b64decode(data, validate=True))
            except (binascii.Error, ValueError):
                raise StreamError("a chunk's data is not valid base64") from None
            first_end = first_end or min(offset, len(body))
    raise StreamError(f"the stream ended without its final code {FINISHED} object ({len(pcm)} audio chunks received)")


def first_arrival(result: HttpResult, offset: int) -> float | None:
    """Seconds from the first attempt until ``offset`` bytes of the body had arrived (earlier attempts count)."""
    earlier = max(result.wall_seconds - result.total_seconds, 0.0)
    return next((earlier + seconds for seconds, size in result.arrivals if size >= offset), None)
