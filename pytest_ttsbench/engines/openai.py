"""OpenAI speech (``POST {base_url}/audio/speech``) and the servers that copy it (speaches, vLLM…).

Profile fields::

    openai-mini:
      type: openai
      base_url: https://api.openai.com/v1     # or a local OpenAI-compatible server
      model: gpt-4o-mini-tts
      voice: alloy                            # or {en: alloy, zh: nova}; "voice_…" ids are custom voices
      api_key_env: OPENAI_API_KEY             # optional for local servers
      response_format: wav                    # mp3 opus aac flac wav pcm (pcm: 24 kHz s16le)
      speed: 1.0                              # 0.25–4
      instructions: "Speak clearly."          # optional; not for tts-1 / tts-1-hd
      concurrency: 4
      timeout_s: 60

plus the retry and limit options of :mod:`pytest_ttsbench.engines.http`. OpenAI's own service
has no voice cloning; OpenAI-compatible servers of clone models (vLLM-Omni serving CosyVoice3,
Qwen3-TTS Base, OmniVoice, Fish S2) take more fields, sent only when set::

    cosyvoice3-clone:
      type: openai
      base_url: http://127.0.0.1:8091/v1
      model: FunAudioLLM/Fun-CosyVoice3-0.5B-2512
      voice: null                             # null: send no voice (absent: alloy, or none when cloning)
      reference_audio: refs/speaker.wav       # a WAV, relative to the config: sent as ref_audio, a data: URL
      reference_text: "What the clip says."   # sent as ref_text
      language: Chinese                       # sent as language
      task_type: Base                         # sent as task_type (CustomVoice | VoiceDesign | Base)
      extra_body: {x_vector_only_mode: false} # merged into the request JSON (any server-specific field)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_ttsbench.engines.base import MissingCredentials, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes
from pytest_ttsbench.engines.json_reply import extra_body_option
from pytest_ttsbench.engines.references import load_reference
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.support.httpclient import ProviderPolicy

if TYPE_CHECKING:  # httpx loads with the first client (httpclient.py)
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = (
    "model",
    "voice",
    "speed",
    "instructions",
    "reference_audio + reference_text (cloning, compatible servers)",
    "language",
    "task_type",
    "extra_body",
)
EXPORT_FORMATS: tuple[str, ...] = ("mp3", "opus", "aac", "flac", "wav", "pcm")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini-tts"
DEFAULT_VOICE = "alloy"
PCM_SAMPLE_RATE = 24_000

# response_format → the media type we hand on (the service's own Content-Type varies by server).
MEDIA_TYPES = {
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "pcm": "audio/pcm",
}

POLICY = ProviderPolicy(name="openai", request_id_headers=("x-request-id",))


class OpenAIEngine(HttpEngine):
    """Speech from an OpenAI-style ``/audio/speech`` endpoint."""

    def __init__(self, profile: EngineProfile) -> None:
        import httpx

        key = read_api_key(profile, required=False)
        base_url = profile.option("base_url", DEFAULT_BASE_URL)
        if key is None and isinstance(base_url, str) and httpx.URL(base_url).host == "api.openai.com":
            raise MissingCredentials(
                f"engine profile {profile.name!r} calls api.openai.com without a key: set api_key_env "
                "to the name of the environment variable that holds it"
            )
        headers = {"Accept": "application/octet-stream"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        super().__init__(profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, secrets=(key,), headers=headers)
        self.model = self.str_option("model", DEFAULT_MODEL)
        self.response_format = self.str_option("response_format", "wav", tuple(MEDIA_TYPES)) or "wav"
        self.speed = self.number_option("speed", None, 0.25, 4.0)
        self.instructions = self.str_option("instructions")
        self.reference = load_reference(profile, text_required=True)
        self.language = self.str_option("language")
        self.task_type = self.str_option("task_type")
        self.extra_body = extra_body_option(profile)
        # ``voice: null`` (kept among the options by the config loader) sends no voice; so does a
        # clone profile that names none, since a clone server may know no preset called alloy.
        self.send_voice = not ("voice" in profile.options and profile.options["voice"] is None)
        if self.reference and profile.voice is None:
            self.send_voice = False

    def _voice(self, request: SynthesisRequest) -> str | None:
        if not self.send_voice:
            return None
        return self.voice(request.language, request.voice) or DEFAULT_VOICE

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self._voice(request)
        body: dict[str, Any] = {"model": self.model, "input": request.text}
        if voice is not None:
            body["voice"] = {"id": voice} if voice.startswith("voice_") else voice
        body["response_format"] = self.response_format
        if self.speed is not None:
            body["speed"] = self.speed
        if self.instructions:
            body["instructions"] = self.instructions
        settings: dict[str, Any] = {"model": self.model, "voice": voice, "response_format": self.response_format}
        if self.reference:
            body["ref_audio"] = self.reference.data_url()
            body["ref_text"] = self.reference.text
            settings.update(self.reference.facts())
        for name, value in (("language", self.language), ("task_type", self.task_type)):
            if value:
                body[name] = settings[name] = value
        if self.extra_body:
            body.update(self.extra_body)
            settings["extra_body"] = self.extra_body
        result = self.http.request(
            "POST", "/audio/speech", headers={"Content-Type": "application/json"}, content=json_bytes(body)
        )
        pcm = self.response_format == "pcm"
        return audio_synthesis(
            result,
            self.http,
            media_type=MEDIA_TYPES[self.response_format],
            pcm_sample_rate=PCM_SAMPLE_RATE if pcm else None,
            metadata=settings,
        )
