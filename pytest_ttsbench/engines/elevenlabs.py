"""ElevenLabs text to speech (``POST /v1/text-to-speech/{voice_id}``, or ``…/stream``).

Profile fields::

    elevenlabs:
      type: elevenlabs
      api_key_env: ELEVENLABS_API_KEY       # sent as xi-api-key
      voice: 21m00Tcm4TlvDq8ikWAM           # a voice id, or a map language → voice id
      model: eleven_multilingual_v2         # model_id
      output_format: pcm_24000              # pcm_* (s16le), wav_*, mp3_*, opus_*
      language_code: auto                   # optional: auto = the item's primary language subtag
      text_normalization: auto              # optional: apply_text_normalization auto | on | off
      voice_settings: {stability: 0.5}      # optional, passed through
      seed: 42                              # optional: generation r sends seed + r (else a fresh random seed)
      stream: false                         # true: the /stream path (a meaningful time to first byte)

``language_code`` is only sent when set, because some models refuse it. Instant voice
cloning is a separate voice-creation API: a profile's ``reference_audio`` is ignored here;
create the voice first and name its id as ``voice``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes, key_in_header
from pytest_ttsbench.support.checked_numbers import WHOLE
from pytest_ttsbench.support.httpclient import ProviderPolicy

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = (
    "model",
    "voice",
    "voice_settings",
    "seed",
    "language_code",
    "text_normalization",
    "stream",
)
EXPORT_FORMATS: tuple[str, ...] = ("pcm", "wav", "mp3", "opus")

DEFAULT_BASE_URL = "https://api.elevenlabs.io"
DEFAULT_MODEL = "eleven_multilingual_v2"
DEFAULT_OUTPUT_FORMAT = "pcm_24000"

POLICY = ProviderPolicy(name="elevenlabs", request_id_headers=("request-id", "x-request-id"))

_FORMAT = re.compile(r"(pcm|wav|mp3|opus)_(\d+)(?:_\d+)?")


def output_format_info(output_format: str) -> tuple[str, int | None]:
    """(media type, PCM rate or None) for an ``output_format`` this plugin decodes (ValueError else)."""
    match = _FORMAT.fullmatch(output_format)
    if not match:
        raise ValueError(output_format)
    kind, rate = match.group(1), int(match.group(2))
    return {
        "pcm": ("audio/pcm", rate),
        "wav": ("audio/wav", None),
        "mp3": ("audio/mpeg", None),
        "opus": ("audio/ogg", None),
    }[kind]


class ElevenLabsEngine(HttpEngine):
    """Speech from ElevenLabs with an ``xi-api-key``."""

    def __init__(self, profile: EngineProfile) -> None:
        super().__init__(
            profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, **key_in_header(profile, "xi-api-key")
        )
        self.model = self.str_option("model", DEFAULT_MODEL)
        self.output_format = self.str_option("output_format", DEFAULT_OUTPUT_FORMAT) or DEFAULT_OUTPUT_FORMAT
        try:
            self.media_type, self.pcm_rate = output_format_info(self.output_format)
        except ValueError:
            raise ConfigError(
                f"engine profile {self.name!r}: output_format {self.output_format!r} is not one this plugin "
                "decodes (pcm_*, wav_*, mp3_*, opus_*)"
            ) from None
        self.language_code = self.str_option("language_code")
        self.text_normalization = self.str_option("text_normalization", None, ("auto", "on", "off"))
        settings = profile.option("voice_settings")
        if settings is not None and not isinstance(settings, dict):
            raise ConfigError(f"engine profile {self.name!r}: voice_settings must be a mapping")
        self.voice_settings = settings
        self.seed = profile.number("seed", None, WHOLE)
        self.stream = bool(profile.option("stream", False))

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.require_voice(request.language, request.voice)
        body: dict[str, Any] = {"text": request.text, "model_id": self.model}
        if self.language_code:
            code = request.language.split("-")[0] if self.language_code == "auto" else self.language_code
            body["language_code"] = code
        if self.text_normalization:
            body["apply_text_normalization"] = self.text_normalization
        if self.voice_settings:
            body["voice_settings"] = self.voice_settings
        # Each generation's own seed (fresh, or the profile's seed plus the repeat index).
        seed = request.seed if request.seed is not None else self.seed
        if seed is not None:
            body["seed"] = seed
        path = f"/v1/text-to-speech/{quote(voice, safe='')}" + ("/stream" if self.stream else "")
        result = self.http.request(
            "POST",
            path,
            headers={"Content-Type": "application/json"},
            params={"output_format": self.output_format},
            content=json_bytes(body),
        )
        return audio_synthesis(
            result,
            self.http,
            media_type=self.media_type,
            pcm_sample_rate=self.pcm_rate,
            metadata={
                "voice": voice,
                "model": self.model,
                "output_format": self.output_format,
                "seed": seed,
                "stream": self.stream,
                **({"voice_settings": self.voice_settings} if self.voice_settings else {}),
                **({"language_code": body["language_code"]} if "language_code" in body else {}),
                **({"text_normalization": self.text_normalization} if self.text_normalization else {}),
            },
        )
