"""Text to speech through chat completions (``POST {base_url}/chat/completions``): MiMo TTS and kin.

Profile fields::

    mimo:
      type: chat-audio
      base_url: https://api.xiaomimimo.com/v1
      api_key_env: MIMO_API_KEY
      auth_header: bearer                      # bearer (Authorization: Bearer) | api-key (api-key: <key>)
      model: mimo-v2.5-tts                     # mimo-v2.5-tts-voiceclone takes reference_audio
      voice: mimo_default                      # audio.voice, or a map language → voice
      format: wav                              # audio.format: wav | mp3 | pcm16 (pcm16: 24 kHz s16le)
      text_role: assistant                     # the role of the message that holds the text
      instructions: "Read calmly."             # optional: sent first, as a user message
      reference_audio: refs/speaker.wav        # optional (clone models): sent as audio.voice, a data: URL
      extra_body: {modalities: [text, audio]}  # optional: merged into the request JSON

The text travels verbatim as the content of the ``text_role`` message (MiMo speaks the
*assistant* message; other chat models with audio output may want ``user``). The audio comes
back whole, base64 in ``choices[0].message.audio.data``; a reply without it (a text answer, a
refusal) is an ``error`` row naming the finish reason and the start of the text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes
from pytest_ttsbench.engines.json_reply import decode_base64, dig, extra_body_option, reply_document
from pytest_ttsbench.engines.references import load_reference
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.support.httpclient import ProviderPolicy, clip_text, json_error_message

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("model", "voice", "instructions", "text_role", "reference_audio (cloning)", "extra_body")
EXPORT_FORMATS: tuple[str, ...] = ("wav", "mp3", "pcm16")

DEFAULT_BASE_URL = "https://api.xiaomimimo.com/v1"
DEFAULT_MODEL = "mimo-v2.5-tts"
DEFAULT_VOICE = "mimo_default"
PCM_SAMPLE_RATE = 24_000
MEDIA_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg", "pcm16": "audio/pcm"}
ROLES = ("assistant", "user", "system")

POLICY = ProviderPolicy(name="chat-audio", request_id_headers=("x-request-id", "request-id"))


class ChatAudioEngine(HttpEngine):
    """Speech from a chat-completions endpoint whose reply carries audio."""

    def __init__(self, profile: EngineProfile) -> None:
        key = read_api_key(profile)
        auth = profile.option("auth_header", "bearer")
        if auth not in ("bearer", "api-key"):
            raise ConfigError(f"engine profile {profile.name!r}: auth_header must be bearer or api-key, got {auth!r}")
        headers = {"Authorization": f"Bearer {key}"} if auth == "bearer" else {"api-key": key or ""}
        super().__init__(profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, secrets=(key,), headers=headers)
        self.model = self.str_option("model", DEFAULT_MODEL) or DEFAULT_MODEL
        self.format = self.str_option("format", "wav", tuple(MEDIA_TYPES)) or "wav"
        self.text_role = self.str_option("text_role", "assistant", ROLES) or "assistant"
        self.instructions = self.str_option("instructions")
        self.reference = load_reference(profile, text_required=False)
        self.extra_body = extra_body_option(profile)

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        if self.reference:
            voice = self.reference.data_url()
        else:
            voice = self.voice(request.language, request.voice) or DEFAULT_VOICE
        messages = []
        if self.instructions:
            messages.append({"role": "user", "content": self.instructions})
        messages.append({"role": self.text_role, "content": request.text})
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "audio": {"format": self.format, "voice": voice},
            **self.extra_body,
        }
        result = self.http.request(
            "POST", "/chat/completions", headers={"Content-Type": "application/json"}, content=json_bytes(body)
        )
        document = reply_document(result, self.http)
        message = dig(document, "choices", 0, "message")
        data = dig(message, "audio", "data")
        if not isinstance(data, str) or not data:
            if dig(document, "error") is not None:
                raise self.http.error(f"HTTP 200 with an error: {json_error_message(document)}")
            reason = dig(document, "choices", 0, "finish_reason")
            content = dig(message, "content")
            said = ""
            if isinstance(content, str) and content:
                said = f"; it answered {clip_text(self.http.redact_text(content.encode()))!r}"
            raise self.http.error(f"HTTP 200 without audio (finish_reason {reason!r}){said}")
        audio = decode_base64(data, self.http, "choices[0].message.audio.data")
        settings: dict[str, Any] = {
            "model": self.model,
            "voice": "(reference clip)" if self.reference else voice,
            "format": self.format,
            "text_role": self.text_role,
        }
        if self.instructions:
            settings["instructions"] = self.instructions
        if self.reference:
            settings.update(self.reference.facts())
        if self.extra_body:
            settings["extra_body"] = self.extra_body
        return audio_synthesis(
            result,
            self.http,
            audio=audio,
            media_type=MEDIA_TYPES[self.format],
            pcm_sample_rate=PCM_SAMPLE_RATE if self.format == "pcm16" else None,
            metadata=settings,
        )
