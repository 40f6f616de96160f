"""Azure AI Speech text to speech over REST: SSML in, audio out.

Profile fields::

    azure:
      type: azure
      region: westeurope                        # → https://westeurope.tts.speech.microsoft.com
      base_url: http://127.0.0.1:8080           # instead of region (tests, sovereign clouds)
      api_key_env: AZURE_SPEECH_KEY             # sent as Ocp-Apim-Subscription-Key
      voice: {en: en-US-JennyNeural, zh: zh-CN-XiaoxiaoNeural}
      output_format: riff-24khz-16bit-mono-pcm  # X-Microsoft-OutputFormat

The item's text is the only content of the ``<voice>`` element: XML escaping (``&``, ``<``,
``>``) is the one change made to it, so the service reads exactly the item's characters and
no markup of ours (no prosody, no ``say-as``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, key_in_header
from pytest_ttsbench.support.httpclient import ProviderPolicy

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice", "output_format")
EXPORT_FORMATS: tuple[str, ...] = ("riff-*-pcm (wav)", "raw-*-pcm", "audio-*-mp3", "ogg-*-opus", "webm-*-opus")

DEFAULT_OUTPUT_FORMAT = "riff-24khz-16bit-mono-pcm"
SSML_NAMESPACE = "http://www.w3.org/2001/10/synthesis"

POLICY = ProviderPolicy(name="azure", request_id_headers=("x-requestid", "x-request-id", "apim-request-id"))

_RATE = re.compile(r"-(\d+)(khz|hz)-")


def output_format_info(output_format: str) -> tuple[str, int | None]:
    """(media type, PCM rate or None) for an ``X-Microsoft-OutputFormat`` this plugin can decode."""
    if output_format.startswith("riff-"):
        return "audio/wav", None
    if output_format.startswith("raw-") and output_format.endswith("-16bit-mono-pcm"):
        match = _RATE.search(output_format)
        if match:
            value = int(match.group(1))
            return "audio/pcm", value * 1000 if match.group(2) == "khz" else value
    if output_format.endswith("-mp3"):
        return "audio/mpeg", None
    if output_format.startswith("ogg-"):
        return "audio/ogg", None
    if output_format.startswith("webm-"):
        return "audio/webm", None
    raise ValueError(output_format)


def voice_locale(voice: str) -> str | None:
    """The locale a voice short name starts with: ``en-US`` for ``en-US-JennyNeural``."""
    match = re.match(r"^([a-z]{2,3}-[A-Z][A-Za-z]{1,3})-", voice)
    return match.group(1) if match else None


def build_ssml(text: str, voice: str, language: str) -> str:
    """An SSML document that speaks ``text`` with ``voice``, the text escaped and otherwise untouched."""
    lang = voice_locale(voice) or language
    return (
        f"<speak version='1.0' xmlns='{SSML_NAMESPACE}' xml:lang={quoteattr(lang)}>"
        f"<voice name={quoteattr(voice)}>{escape(text)}</voice></speak>"
    )


class AzureEngine(HttpEngine):
    """Speech from Azure's ``/cognitiveservices/v1`` endpoint with a subscription key."""

    def __init__(self, profile: EngineProfile) -> None:
        credentials = key_in_header(profile, "Ocp-Apim-Subscription-Key")  # a missing key is named first
        region = profile.option("region")
        base_url = profile.option("base_url")
        if not base_url and not (isinstance(region, str) and re.fullmatch(r"[a-z0-9]+", region)):
            raise ConfigError(f"engine profile {profile.name!r}: azure needs region (e.g. westeurope) or base_url")
        default = f"https://{region}.tts.speech.microsoft.com" if region else ""
        super().__init__(profile, default_base_url=default, policy=POLICY, **credentials)
        self.output_format = self.str_option("output_format", DEFAULT_OUTPUT_FORMAT) or DEFAULT_OUTPUT_FORMAT
        try:
            self.media_type, self.pcm_rate = output_format_info(self.output_format)
        except ValueError:
            raise ConfigError(
                f"engine profile {profile.name!r}: output_format {self.output_format!r} is not one "
                "this plugin decodes (use riff-*, raw-*-16bit-mono-pcm, *-mp3, ogg-* or webm-*)"
            ) from None

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.require_voice(request.language, request.voice)
        ssml = build_ssml(request.text, voice, request.language)
        result = self.http.request(
            "POST",
            "/cognitiveservices/v1",
            headers={"Content-Type": "application/ssml+xml", "X-Microsoft-OutputFormat": self.output_format},
            content=ssml.encode("utf-8"),
        )
        return audio_synthesis(
            result,
            self.http,
            media_type=self.media_type,
            pcm_sample_rate=self.pcm_rate,
            metadata={"voice": voice, "output_format": self.output_format},
        )
