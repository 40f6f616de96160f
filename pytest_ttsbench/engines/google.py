"""Google Cloud Text-to-Speech over REST (``POST /v1/text:synthesize``), base64 audio in JSON.

Profile fields::

    google:
      type: google
      api_key_env: GOOGLE_TTS_API_KEY        # sent as x-goog-api-key, never in the URL
      voice: {en: en-US-Neural2-F, zh: cmn-CN-Wavenet-A}
      audio_encoding: LINEAR16               # LINEAR16 (WAV) MP3 OGG_OPUS MULAW ALAW PCM
      sample_rate_hertz: 24000               # optional (PCM defaults to 24000 so its rate is known)
      speaking_rate: 1.0                     # optional, 0.25–4
      language_code: en-US                   # optional; else the voice's locale, else the item's language
      base_url: https://eu-texttospeech.googleapis.com   # optional regional endpoint or test server

The method does not stream, so the time to first byte is the time to the first byte of the JSON.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes, key_in_header
from pytest_ttsbench.support.httpclient import ProviderPolicy, html_summary, json_error_message

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice", "language_code", "speaking_rate", "sample_rate_hertz")
EXPORT_FORMATS: tuple[str, ...] = ("LINEAR16 (wav)", "MP3", "OGG_OPUS", "MULAW", "ALAW", "PCM")

DEFAULT_BASE_URL = "https://texttospeech.googleapis.com"
DEFAULT_PCM_RATE = 24_000

MEDIA_TYPES = {
    "LINEAR16": "audio/wav",  # the service adds a WAV header, as it does for MULAW and ALAW
    "MULAW": "audio/wav",
    "ALAW": "audio/wav",
    "MP3": "audio/mpeg",
    "OGG_OPUS": "audio/ogg",
    "PCM": "audio/pcm",
}

POLICY = ProviderPolicy(name="google", request_id_headers=("x-request-id", "x-goog-request-id"))


def voice_language(voice: str | None) -> str | None:
    """The language code a voice name starts with: ``en-US`` for ``en-US-Neural2-F``."""
    if not voice:
        return None
    match = re.match(r"^([a-z]{2,3}-[A-Z]{2})-", voice)
    return match.group(1) if match else None


class GoogleEngine(HttpEngine):
    """Speech from Cloud Text-to-Speech with an API key."""

    def __init__(self, profile: EngineProfile) -> None:
        super().__init__(
            profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, **key_in_header(profile, "x-goog-api-key")
        )
        self.encoding = self.str_option("audio_encoding", "LINEAR16", tuple(MEDIA_TYPES)) or "LINEAR16"
        rate = self.number_option("sample_rate_hertz", None, 8000, 48000)
        if rate is None and self.encoding == "PCM":
            rate = DEFAULT_PCM_RATE
        self.sample_rate = int(rate) if rate is not None else None
        self.speaking_rate = self.number_option("speaking_rate", None, 0.25, 4.0)
        self.language_code = self.str_option("language_code")

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.voice(request.language, request.voice)
        voice_spec: dict[str, Any] = {"languageCode": self.language_code or voice_language(voice) or request.language}
        if voice:
            voice_spec["name"] = voice
        audio_config: dict[str, Any] = {"audioEncoding": self.encoding}
        if self.sample_rate is not None:
            audio_config["sampleRateHertz"] = self.sample_rate
        if self.speaking_rate is not None:
            audio_config["speakingRate"] = self.speaking_rate
        body = {"input": {"text": request.text}, "voice": voice_spec, "audioConfig": audio_config}
        result = self.http.request(
            "POST",
            "/v1/text:synthesize",
            headers={"Content-Type": "application/json"},
            content=json_bytes(body),
        )
        audio = self._audio_content(result.body)
        return audio_synthesis(
            result,
            self.http,
            audio=audio,
            media_type=MEDIA_TYPES[self.encoding],
            pcm_sample_rate=self.sample_rate if self.encoding == "PCM" else None,
            metadata={"voice": voice, "audio_encoding": self.encoding},
        )

    def _audio_content(self, body: bytes) -> bytes:
        """The decoded ``audioContent``; anything else in a 200 is reported as what it is."""
        try:
            document = json.loads(body)
        except ValueError:
            text = body.decode("utf-8", errors="replace")
            if "<" in text[:200]:
                raise self.http.error(f"HTTP 200 with an HTML page instead of JSON: {html_summary(body)}") from None
            raise self.http.error(f"HTTP 200 with a body that is not JSON ({len(body)} bytes)") from None
        content = document.get("audioContent") if isinstance(document, dict) else None
        if not isinstance(content, str) or not content:
            message = json_error_message(document) or "no audioContent in the response"
            raise self.http.error(f"HTTP 200 without audio: {message}")
        try:
            return base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise self.http.error("audioContent is not valid base64") from None
