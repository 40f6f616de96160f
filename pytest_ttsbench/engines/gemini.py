"""Gemini API speech generation (``POST {base_url}/v1beta/models/{model}:generateContent``).

Profile fields::

    gemini-tts:
      type: gemini
      base_url: https://generativelanguage.googleapis.com
      api_key_env: GEMINI_API_KEY            # sent as x-goog-api-key, never in the URL
      model: gemini-2.5-flash-preview-tts
      voice: Kore                            # a prebuilt voice name, or a map language → name
      style: Say calmly                      # optional: prepended as "Say calmly: <text>"

The audio is base64 16-bit PCM in the candidate's ``inlineData`` parts, its rate named in the
MIME type (``audio/L16;codec=pcm;rate=24000``); it is returned as headerless PCM at that rate.
A candidate without audio (text only, or a ``finishReason`` such as ``SAFETY`` or ``OTHER``)
is an ``error`` row naming the reason, not silence. ``RESOURCE_EXHAUSTED`` (429) is retried.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes, key_in_header
from pytest_ttsbench.engines.json_reply import decode_base64, dig, reply_document
from pytest_ttsbench.support.httpclient import ProviderPolicy, clip_text, json_error_message

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("model", "voice", "style")
EXPORT_FORMATS: tuple[str, ...] = ("pcm (24 kHz s16le)",)

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
DEFAULT_MODEL = "gemini-2.5-flash-preview-tts"
DEFAULT_VOICE = "Kore"
DEFAULT_RATE = 24_000  # the documented rate, when a MIME type names none

POLICY = ProviderPolicy(name="gemini", request_id_headers=("x-request-id", "x-goog-request-id"))

_RATE = re.compile(r"(?:^|;)\s*rate=(\d+)", re.IGNORECASE)


def pcm_rate(mime_type: str) -> int | None:
    """The rate of an ``audio/L16;…;rate=N`` (or ``audio/pcm``) MIME type; None for other types."""
    kind = mime_type.split(";")[0].strip().lower()
    if kind not in ("audio/l16", "audio/pcm"):
        return None
    match = _RATE.search(mime_type)
    return int(match.group(1)) if match else DEFAULT_RATE


def styled_prompt(style: str | None, text: str) -> str:
    """The documented way to ask for a style: the instruction, a colon, then the text verbatim."""
    if not style:
        return text
    return f"{style.strip().rstrip(':').rstrip()}: {text}"


class GeminiEngine(HttpEngine):
    """Speech from a Gemini TTS model with a prebuilt voice."""

    def __init__(self, profile: EngineProfile) -> None:
        super().__init__(
            profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, **key_in_header(profile, "x-goog-api-key")
        )
        self.model = self.str_option("model", DEFAULT_MODEL) or DEFAULT_MODEL
        self.style = self.str_option("style")

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.voice(request.language, request.voice) or DEFAULT_VOICE
        body = {
            "contents": [{"parts": [{"text": styled_prompt(self.style, request.text)}]}],
            "generationConfig": {
                "responseModalities": ["AUDIO"],
                "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": voice}}},
            },
        }
        result = self.http.request(
            "POST",
            f"/v1beta/models/{quote(self.model, safe='')}:generateContent",
            headers={"Content-Type": "application/json"},
            content=json_bytes(body),
        )
        document = reply_document(result, self.http)
        pcm, rate = self._audio(document)
        settings: dict[str, Any] = {"model": self.model, "voice": voice, "sample_rate": rate}
        if self.style:
            settings["style"] = self.style
        version = dig(document, "modelVersion")
        if isinstance(version, str):
            settings["model_version"] = version
        return audio_synthesis(
            result, self.http, audio=pcm, media_type="audio/pcm", pcm_sample_rate=rate, metadata=settings
        )

    def _audio(self, document: Any) -> tuple[bytes, int]:
        """The PCM of the first candidate's audio parts and its rate; a candidate without audio is an error."""
        candidate = dig(document, "candidates", 0)
        if not isinstance(candidate, dict):
            if dig(document, "error") is not None:
                raise self.http.error(f"HTTP 200 with an error: {json_error_message(document)}")
            blocked = dig(document, "promptFeedback", "blockReason")
            raise self.http.error(f"HTTP 200 without a candidate (blockReason {blocked!r})")
        reason = candidate.get("finishReason")
        parts = dig(candidate, "content", "parts") or []
        chunks: list[bytes] = []
        rate: int | None = None
        texts: list[str] = []
        for index, part in enumerate(parts if isinstance(parts, list) else []):
            inline = dig(part, "inlineData")
            if isinstance(inline, dict):
                mime = str(inline.get("mimeType", ""))
                found = pcm_rate(mime)
                if found is None:
                    raise self.http.error(f"candidate part {index} has audio of type {mime!r}, not 16-bit PCM")
                if rate is not None and found != rate:
                    raise self.http.error(f"candidate parts disagree on the sample rate ({rate} and {found})")
                rate = found
                chunks.append(decode_base64(inline.get("data"), self.http, f"inlineData of part {index}"))
            elif isinstance(dig(part, "text"), str):
                texts.append(part["text"])
        if not chunks or rate is None:
            said = f"; it answered {clip_text(self.http.redact_text(' '.join(texts).encode()))!r}" if texts else ""
            raise self.http.error(f"HTTP 200 with a candidate without audio (finishReason {reason!r}){said}")
        return b"".join(chunks), rate
