"""Fish Audio text to speech (``POST /v1/tts``), with optional voice cloning from a reference clip.

Profile fields::

    fish:
      type: fish
      api_key_env: FISH_API_KEY            # Authorization: Bearer
      model: s2.1-pro                      # optional, sent as the ``model`` header
      voice: 7f92f8afb8ec43bf81429cc1c9199cb1   # optional reference_id (a voice model id)
      format: wav                          # wav pcm mp3 opus
      sample_rate: 24000                   # optional (pcm defaults to 24000 so its rate is known)
      latency: normal                      # low | normal | balanced
      normalize: true                      # Fish's own EN/ZH text normalization switch
      reference_audio: refs/speaker.wav    # optional, relative to the config file's folder
      reference_text: "What the reference clip says."

References carry raw audio bytes, which JSON cannot: such requests go as MessagePack and need
the ``msgpack`` package (``pip install 'pytest-ttsbench[fish]'``). Fish's WAV header carries
placeholder sizes while streaming; the truncation check in :mod:`~pytest_ttsbench.engines.http`
ignores those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.http import HttpEngine, audio_synthesis, json_bytes
from pytest_ttsbench.engines.references import load_reference
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.support.httpclient import ProviderPolicy

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("model", "voice", "latency", "normalize", "reference_audio (cloning)", "sample_rate")
EXPORT_FORMATS: tuple[str, ...] = ("wav", "pcm", "mp3", "opus")

DEFAULT_BASE_URL = "https://api.fish.audio"
DEFAULT_PCM_RATE = 24_000

MEDIA_TYPES = {"wav": "audio/wav", "pcm": "audio/pcm", "mp3": "audio/mpeg", "opus": "audio/ogg"}
LATENCY_MODES = ("low", "normal", "balanced")

POLICY = ProviderPolicy(name="fish", request_id_headers=("x-request-id", "request-id"))


def _pack(document: dict[str, Any]) -> bytes:
    try:
        import msgpack
    except ImportError:
        raise EngineUnavailable(
            "fish voice cloning (reference_audio) sends MessagePack: pip install 'pytest-ttsbench[fish]' "
            "(or pip install msgpack)"
        ) from None
    return msgpack.packb(document, use_bin_type=True)


class FishEngine(HttpEngine):
    """Speech from Fish Audio, by voice model id or cloned from a reference clip."""

    def __init__(self, profile: EngineProfile) -> None:
        key = read_api_key(profile)
        headers = {"Authorization": f"Bearer {key}"}
        super().__init__(profile, default_base_url=DEFAULT_BASE_URL, policy=POLICY, secrets=(key,), headers=headers)
        model = self.str_option("model")
        self.model_header = {"model": model} if model else {}  # absent: Fish picks its default model
        self.format = self.str_option("format", "wav", tuple(MEDIA_TYPES)) or "wav"
        rate = self.number_option("sample_rate", None, 8000, 48000)
        if rate is None and self.format == "pcm":
            rate = DEFAULT_PCM_RATE
        self.sample_rate = int(rate) if rate is not None else None
        self.latency = self.str_option("latency", None, LATENCY_MODES)
        normalize = profile.option("normalize")
        if normalize is not None and not isinstance(normalize, bool):
            raise ConfigError(f"engine profile {self.name!r}: normalize must be true or false")
        self.normalize = normalize
        self.references = self._load_references(profile)
        if self.references:
            _pack({})  # fail at start-up, not on the first item, when msgpack is missing

    def _load_references(self, profile: EngineProfile) -> list[dict[str, Any]]:
        clip = load_reference(profile, text_required=True, wav_only=False)
        return [{"audio": clip.audio, "text": clip.text}] if clip else []

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        voice = self.voice(request.language, request.voice)
        body: dict[str, Any] = {"text": request.text, "format": self.format}
        if self.sample_rate is not None:
            body["sample_rate"] = self.sample_rate
        if self.latency:
            body["latency"] = self.latency
        if self.normalize is not None:
            body["normalize"] = self.normalize
        if voice:
            body["reference_id"] = voice
        if self.references:
            body["references"] = self.references
            content, content_type = _pack(body), "application/msgpack"
        else:
            content, content_type = json_bytes(body), "application/json"
        result = self.http.request(
            "POST", "/v1/tts", headers={"Content-Type": content_type, **self.model_header}, content=content
        )
        return audio_synthesis(
            result,
            self.http,
            media_type=MEDIA_TYPES[self.format],
            pcm_sample_rate=self.sample_rate if self.format == "pcm" else None,
            metadata={"voice": voice, "format": self.format, "cloned": bool(self.references)},
        )
