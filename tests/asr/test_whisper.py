"""The faster-whisper route on real eSpeak NG audio, and its guard against decoding loops."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from forced_decoder import assert_a_bounded_loop, force_a_loop, transcribe_a_forced_loop

from pytest_ttsbench.asr import models
from pytest_ttsbench.asr.base import AsrError, AsrRoute
from pytest_ttsbench.asr.whisper import (
    FLAG_BOUNDED,
    FLAG_REPETITION,
    WhisperRoute,
    clip_token_budget,
    decoder_max_new_tokens,
    find_repetition,
    read_bounded,
    whisper_language,
    window_token_budget,
)
from pytest_ttsbench.audio.decoding import DecodedAudio, decode_audio
from pytest_ttsbench.config import BUILTIN_PROFILES, EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The assembled base model goes to a private cache, named by the environment variable."""
    root = tmp_path_factory.mktemp("ttsbench-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(models.CACHE_ENV, str(root))
        yield root


@pytest.fixture(scope="module")
def espeak() -> EspeakEngine:
    voices = BUILTIN_PROFILES["espeak"]["voice"]
    return EspeakEngine(EngineProfile(name="espeak", type="espeak", voice=voices))


@pytest.fixture(scope="module")
def tiny() -> WhisperRoute:
    route = WhisperRoute("tiny.en")
    route.load("en")
    return route


@pytest.fixture(scope="module")
def base(cache: Path) -> WhisperRoute:
    route = WhisperRoute("base")
    route.load("en")
    return route


def speak(engine: EspeakEngine, text: str, language: str = "en") -> DecodedAudio:
    return decode_audio(engine.synthesize(SynthesisRequest(text=text, language=language)).audio)


# --- real audio, real models ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Flight 237 leaves from gate 14.", ["237", "14"]),
        ("The final score was 96 to 91.", ["96", "91"]),
        ("In 2019 the company hired 250 people.", ["2019", "250"]),
    ],
)
def test_tiny_en_hears_espeak_numbers(espeak: EspeakEngine, tiny: WhisperRoute, text: str, numbers: list[str]) -> None:
    heard = tiny.transcribe(speak(espeak, text), "en")
    for number in numbers:
        assert number in heard.text.replace(",", "")
    assert heard.flags == ()
    assert heard.seconds > 0 and heard.language == "en"
    assert heard.details["model"] == "tiny.en" and heard.details["beam_size"] == 5


def test_assembled_base_model_transcribes(espeak: EspeakEngine, base: WhisperRoute, cache: Path) -> None:
    heard = base.transcribe(speak(espeak, "The plant opened in 2026."), "en")
    assert "2026" in heard.text
    assert Path(str(heard.details["model_path"])).is_relative_to(cache)


def test_route_name_and_protocol() -> None:
    route = WhisperRoute("tiny.en")
    assert route.name == "whisper:tiny.en" and isinstance(route, AsrRoute)
    assert WhisperRoute().name == "whisper:auto"


def test_models_load_once_per_process(tiny: WhisperRoute) -> None:
    again = WhisperRoute("tiny.en", beam_size=1)
    assert again.load("en") is tiny.load("en")
    other_precision = WhisperRoute("tiny.en", compute_type="float32")
    assert other_precision.load("en") is not tiny.load("en")


def test_english_only_model_refuses_other_languages(espeak: EspeakEngine, tiny: WhisperRoute) -> None:
    with pytest.raises(AsrError, match=r"English-only.*multilingual"):
        tiny.transcribe(speak(espeak, "สวัสดี", "th"), "th")


def test_unknown_language_is_an_asr_error(espeak: EspeakEngine, base: WhisperRoute) -> None:
    with pytest.raises(AsrError, match="does not know language 'xx-YY'"):
        base.transcribe(speak(espeak, "Hello."), "xx-YY")


def test_empty_clip_is_an_asr_error(tiny: WhisperRoute) -> None:
    empty = DecodedAudio(np.zeros(0, np.float32), 16_000, 22_050, 1, "wav", 2)
    with pytest.raises(AsrError, match="empty"):
        tiny.transcribe(empty, "en")


def test_clips_at_other_rates_are_resampled(espeak: EspeakEngine, tiny: WhisperRoute) -> None:
    clip = decode_audio(
        espeak.synthesize(SynthesisRequest("Flight 237 leaves from gate 14.", "en")).audio, None, 22_050
    )
    assert clip.sample_rate == 22_050
    assert "237" in tiny.transcribe(clip, "en").text


# --- the bounds on a real model whose decoder loops (see tests/support/forced_decoder.py) --------
# Which audio makes Whisper loop depends on the CPU's kernels, so the loop is forced, never hoped for.


@pytest.mark.parametrize("clip_name", ["espeak-mandarin", "noise"])
def test_a_looping_decode_is_bounded_and_flagged(
    espeak: EspeakEngine, cache: Path, monkeypatch: pytest.MonkeyPatch, clip_name: str
) -> None:
    heard, decoder, clip = transcribe_a_forced_loop(monkeypatch, espeak, clip_name, batch_size=1)
    assert heard.details["batching"] == "sequential"
    assert heard.details["model"] == "base"  # "auto" gives a Chinese item the multilingual model
    assert_a_bounded_loop(heard, decoder, clip)


def test_a_real_decoder_never_decodes_the_windows_after_a_looping_one(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 65 s: three 30 s windows. The first loops; the second is decoded only as far as the reader
    # needs to see the window change, and the third never reaches the decoder.
    noise = (0.1 * np.random.default_rng(1).standard_normal(65 * 16_000)).astype(np.float32)
    route = WhisperRoute("base", batch_size=1)
    decoder = force_a_loop(monkeypatch, route, "en", " 200,000,000")
    heard = route.transcribe(DecodedAudio(noise, 16_000, 16_000, 1, "wav", 2), "en")
    assert len(decoder.decoded) == 2, decoder.decoded
    assert FLAG_BOUNDED in heard.flags and FLAG_REPETITION in heard.flags
    reasons = heard.details["bounded_because"]
    assert isinstance(reasons, list) and any("windows after a looping one" in reason for reason in reasons)
    assert int(heard.details["tokens"]) <= window_token_budget(30.0)  # type: ignore[call-overload]


# --- languages and budgets --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "code"),
    [("en", "en"), ("en-US", "en"), ("zh-CN", "zh"), ("cmn", "zh"), ("cmn-Hans-CN", "zh"), ("th_TH", "th")],
)
def test_whisper_language(tag: str, code: str) -> None:
    assert whisper_language(tag) == code


def test_budgets_grow_with_the_clip_and_respect_the_decoder() -> None:
    assert window_token_budget(1.0) < window_token_budget(5.0) < window_token_budget(20.0)
    assert window_token_budget(30.0) == window_token_budget(90.0) <= 220
    assert all(decoder_max_new_tokens(window_token_budget(s)) <= 440 for s in (0.1, 5, 29, 30, 600))
    assert clip_token_budget(90.0) > 2 * clip_token_budget(30.0)
    # generous for real speech: 5 s of fast Thai is about 50 tokens
    assert window_token_budget(5.0) >= 75


# --- the bounding logic on fake segment streams ---------------------------------------------


@dataclass
class FakeSegment:
    seek: int
    start: float
    end: float
    text: str
    tokens: list[int]
    compression_ratio: float | None = None


TS = 50_000  # fake first timestamp id


def test_a_normal_stream_is_read_whole() -> None:
    segments = [
        FakeSegment(0, 0.0, 2.0, " one", [TS, 1, 2, TS + 100]),
        FakeSegment(0, 2.0, 4.0, " two", [TS + 100, 3, TS + 200]),
    ]
    reading = read_bounded(iter(segments), 4.1, window_budget=80, clip_budget=80, timestamp_begin=TS)
    assert reading.segments == segments and reading.flags == [] and reading.tokens == 3


def test_an_endless_stream_stops_at_the_clip_budget() -> None:
    # distinct tokens, so that only the budget (not the loop detector) can stop this stream
    endless = (FakeSegment(i, 0.1 * i, 0.1 * i + 0.1, " 4", [2 * i, 2 * i + 1]) for i in itertools.count())
    reading = read_bounded(endless, 30.0, window_budget=1000, clip_budget=50)
    assert reading.flags == [FLAG_BOUNDED] and reading.tokens == 50 and len(reading.segments) == 25


def test_a_segment_ending_past_the_clip_stops_the_reading() -> None:
    segments = [
        FakeSegment(0, 0.0, 3.0, " real", [1, 2]),
        FakeSegment(0, 3.0, 9.0, " overshoot", [3]),
        FakeSegment(0, 9.0, 12.0, " invented", [4]),
    ]
    reading = read_bounded(iter(segments), 5.0, window_budget=80, clip_budget=80)
    assert [s.text for s in reading.segments] == [" real", " overshoot"]
    assert reading.flags == [FLAG_BOUNDED] and "9.00 s" in reading.reasons[0]


def test_a_segment_starting_after_the_clip_is_dropped() -> None:
    segments = [FakeSegment(0, 0.0, 3.0, " real", [1]), FakeSegment(300, 6.0, 7.0, " ghost", [2])]
    reading = read_bounded(iter(segments), 5.0, window_budget=80, clip_budget=80)
    assert [s.text for s in reading.segments] == [" real"] and reading.flags == [FLAG_BOUNDED]


def test_small_overshoot_is_tolerated() -> None:
    segments = [FakeSegment(0, 0.0, 5.3, " fine", [1, 2])]
    assert read_bounded(iter(segments), 5.0, window_budget=80, clip_budget=80).flags == []


def test_a_window_that_spent_its_budget_is_flagged() -> None:
    full = FakeSegment(0, 0.0, 5.0, " 3-4-4-4", [TS, *range(60), TS + 250])
    reading = read_bounded(iter([full]), 5.0, window_budget=62, clip_budget=500, timestamp_begin=TS)
    assert reading.flags == [FLAG_BOUNDED] and reading.segments == [full]


def _windows_pulled(segments: Iterator[FakeSegment], pulled: list[int]) -> Iterator[FakeSegment]:
    """Records the window (seek) of every segment the reader asks for, as the decoder would decode it."""
    for segment in segments:
        pulled.append(segment.seek)
        yield segment


def test_windows_after_a_looping_one_are_never_decoded() -> None:
    # Window 0 loops ("-4-4-4…" in two segments); windows 3000, 6000, … would loop on and on.
    looping = [
        FakeSegment(0, 0.0, 10.0, " 3-4-4-4", [TS, 3, *[9, 4] * 4, TS + 500]),
        FakeSegment(0, 10.0, 30.0, "-4-4-4-4", [TS + 500, *[9, 4] * 4, TS + 1500]),
    ]
    later = (FakeSegment(3000 * i, 30.0 * i, 30.0 * i + 30, " 4-4", [9, 4]) for i in itertools.count(1))
    pulled: list[int] = []
    stream = _windows_pulled(itertools.chain(looping, later), pulled)
    reading = read_bounded(stream, 300.0, window_budget=220, clip_budget=5000, timestamp_begin=TS)
    assert reading.segments == looping  # the looping window is kept whole
    assert FLAG_REPETITION in reading.flags and FLAG_BOUNDED in reading.flags
    assert set(pulled) == {0, 3000}  # one segment of the next window was read, to see the window change
    assert any("repeated" in reason for reason in reading.reasons)


def test_text_that_compresses_like_a_loop_stops_the_reading() -> None:
    segments = [
        FakeSegment(0, 0.0, 30.0, " one two three", [1, 2, 3], compression_ratio=1.2),
        FakeSegment(3000, 30.0, 60.0, " yes yes yes", [4, 5, 6], compression_ratio=3.1),
        FakeSegment(6000, 60.0, 90.0, " yes yes yes", [4, 5, 6], compression_ratio=3.1),
    ]
    reading = read_bounded(iter(segments), 90.0, window_budget=220, clip_budget=5000)
    assert reading.segments == segments[:2]
    assert reading.flags == [FLAG_REPETITION, FLAG_BOUNDED] and "3.1x" in reading.reasons[0]


def test_speech_over_several_windows_is_read_whole() -> None:
    segments = [
        FakeSegment(3000 * i, 30.0 * i, 30.0 * i + 29, f" part {i}", [10 * i + 1, 10 * i + 2], compression_ratio=1.1)
        for i in range(4)
    ]
    reading = read_bounded(iter(segments), 120.0, window_budget=220, clip_budget=5000)
    assert reading.segments == segments and reading.flags == []


# --- loop detection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("items", "found"),
    [
        (["3", *["-", "4"] * 14], ("-", "4")),  # "3-4-4-4-…"
        (["x", *["a", "b", "c"] * 4, "y"], ("a", "b", "c")),
        (["t"] * 12, ("t",)),
        ([*"hello", *["I", "am", "going", "to", "do", "it", ","] * 4], ("I", "am", "going", "to", "do", "it", ",")),
    ],
)
def test_loops_are_found(items: list[str], found: tuple[str, ...]) -> None:
    loop = find_repetition(items)
    assert loop is not None
    assert tuple(items[loop.start : loop.start + loop.size]) in {found, found[1:] + found[:1]}


@pytest.mark.parametrize(
    "items",
    [
        ["no", ",", "no", ",", "no", "."],  # three times is speech, not a loop
        ["1", "1", "1", "1"],  # "1111" read digit by digit
        ["t"] * 11,
        ["a", "b", "c"] * 3,
        ["-", "4"] * 5,
        list("The plant opened in 2026."),
        [],
    ],
)
def test_ordinary_text_is_not_a_loop(items: list[str]) -> None:
    assert find_repetition(items) is None
