"""The embedded eSpeak NG engine: real audio from the library in the espeakng-loader wheel."""

from __future__ import annotations

import ctypes.util
import io
import sys
import wave

import numpy as np
import pytest

from pytest_ttsbench.audio.decoding import check_audio, decode_audio
from pytest_ttsbench.config import BUILTIN_PROFILES, ConfigError, EngineProfile
from pytest_ttsbench.engines import espeak as espeak_module
from pytest_ttsbench.engines.base import Engine, EngineError, EngineUnavailable, SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine, default_voice
from pytest_ttsbench.engines.registry import create_engine


def profile(voice: object = BUILTIN_PROFILES["espeak"]["voice"], **options: object) -> EngineProfile:
    return EngineProfile(name="espeak", type="espeak", voice=voice, options=options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def engine() -> EspeakEngine:
    return EspeakEngine(profile())


def say(engine: EspeakEngine, text: str, language: str = "en", voice: str | None = None) -> bytes:
    return engine.synthesize(SynthesisRequest(text=text, language=language, voice=voice)).audio


def seconds(engine: EspeakEngine, text: str, language: str = "en") -> float:
    return decode_audio(say(engine, text, language)).seconds


def test_registry_builds_it_and_it_is_an_engine() -> None:
    built = create_engine(profile())
    assert isinstance(built, EspeakEngine) and isinstance(built, Engine)
    assert built.name == "espeak"


def test_english_is_a_16bit_mono_wav_at_the_library_rate(engine: EspeakEngine) -> None:
    result = engine.synthesize(SynthesisRequest(text="The plant opened in 2026.", language="en"))
    with wave.open(io.BytesIO(result.audio)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22_050)
        frames = wav.getnframes()
    assert 1.0 < frames / 22_050 < 5.0
    assert result.media_type == "audio/wav"
    meta = result.metadata
    assert meta["voice"] == "en-us" and meta["sample_rate"] == 22_050
    assert meta["library_version"].count(".") >= 1 and meta["library"].endswith((".so", ".dylib", ".dll"))


@pytest.mark.parametrize(
    ("language", "text", "voice"),
    [
        ("ar", "افتتح المصنع عام ٢٠٢٦ بحضور ثلاثة آلاف شخص.", "ar"),
        ("zh", "航展首日，歼-20与运-20同场亮相。", "cmn"),
        ("th", "ผมติดตั้งแอป LINE ใหม่เมื่อวานนี้", "th"),
    ],
)
def test_other_languages_give_speech_of_plausible_length(
    engine: EspeakEngine, language: str, text: str, voice: str
) -> None:
    result = engine.synthesize(SynthesisRequest(text=text, language=language))
    assert result.metadata["voice"] == voice
    clip = decode_audio(result.audio)
    check = check_audio(clip, text)
    assert check.ok, check.problems
    assert 1.0 < clip.seconds < 12.0
    assert check.rms > 0.01  # speech, not a near-silent hiss


def test_language_voices_really_differ(engine: EspeakEngine) -> None:
    # The same digits in another voice are other audio: the voice was switched, not ignored.
    assert say(engine, "2026", "en") != say(engine, "2026", "zh")


def test_same_text_gives_the_same_audio_whatever_came_before(engine: EspeakEngine) -> None:
    # eSpeak keeps waveform state across calls; the engine resets it so audio depends on the text only.
    first = say(engine, "The plant opened in 2026.")
    say(engine, "Something else entirely, with 99 words and more.")
    say(engine, "航展首日。", "zh")
    assert say(engine, "The plant opened in 2026.") == first


@pytest.mark.parametrize(
    ("request_voice", "profile_voice", "language", "expected"),
    [
        (None, BUILTIN_PROFILES["espeak"]["voice"], "en-US", "en-us"),
        (None, BUILTIN_PROFILES["espeak"]["voice"], "zh-CN", "cmn"),
        ("en-gb-x-rp", BUILTIN_PROFILES["espeak"]["voice"], "en", "en-gb-x-rp"),
        (None, None, "zh", "cmn"),
        (None, None, "th", "th"),
        (None, None, "de-AT", "de"),
        (None, "fr", "en", "fr"),
    ],
)
def test_voice_choice(request_voice: str | None, profile_voice: object, language: str, expected: str) -> None:
    chosen = EspeakEngine(profile(profile_voice)).voice_for(
        SynthesisRequest(text="x", language=language, voice=request_voice)
    )
    assert chosen == expected


@pytest.mark.parametrize(("tag", "voice"), [("en", "en-us"), ("cmn", "cmn"), ("ar-EG", "ar"), ("pt-BR", "pt")])
def test_default_voice(tag: str, voice: str) -> None:
    assert default_voice(tag) == voice


def test_unknown_voice_is_an_engine_error_naming_it(engine: EspeakEngine) -> None:
    with pytest.raises(EngineError, match="no-such-voice"):
        say(engine, "Hello.", voice="no-such-voice")
    # the shared synthesizer is still usable afterwards
    assert decode_audio(say(engine, "Hello.")).seconds > 0.3


@pytest.mark.parametrize(
    ("marked_up", "plain", "extra"),
    [
        # with SSML on, "&amp;" would be read as "&" and both would last the same
        ("Salt &amp; pepper.", "Salt & pepper.", 0.3),
        # with SSML on, the tags would vanish
        ("Tom <b>seven</b> now.", "Tom seven now.", 0.5),
        # "&" is spoken ("and"), not dropped
        ("Salt & pepper.", "Salt pepper.", 0.1),
        # phoneme input is off: "[[...]]" is spelled out, not pronounced as "hello"
        ("[[h@l'oU]]", "hello", 0.4),
    ],
)
def test_text_goes_to_the_library_verbatim(engine: EspeakEngine, marked_up: str, plain: str, extra: float) -> None:
    assert seconds(engine, marked_up) > seconds(engine, plain) + extra


def test_rate_and_pitch_options_change_the_audio() -> None:
    text = "The meeting starts at half past six."
    slow = EspeakEngine(profile(rate=120))
    fast = EspeakEngine(profile(rate=300))
    assert seconds(slow, text) > 1.8 * seconds(fast, text)
    low, high = EspeakEngine(profile(pitch=10)), EspeakEngine(profile(pitch=90))
    assert zero_crossings(say(low, text)) < zero_crossings(say(high, text))
    assert slow.synthesize(SynthesisRequest(text=text, language="en")).metadata["rate_wpm"] == 120


def zero_crossings(audio: bytes) -> int:
    samples = decode_audio(audio).samples
    voiced = samples[np.abs(samples) > 0.02]
    return int(np.count_nonzero(np.diff(np.signbit(voiced))))


@pytest.mark.parametrize(("key", "value"), [("rate", 10), ("rate", "fast"), ("pitch", 101), ("pitch", True)])
def test_bad_options_are_configuration_errors(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=key):
        EspeakEngine(profile(**{key: value}))


def test_system_library_is_the_fallback_without_the_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "espeakng_loader", None)  # `import espeakng_loader` now fails
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: f"lib{name}.so.1")
    assert espeak_module._locate_library() == ("libespeak-ng.so.1", None)  # None: the library's own data
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    with pytest.raises(EngineUnavailable, match="espeakng-loader"):
        espeak_module._locate_library()
