"""OpenAIEngine against the fake ``/v1/audio/speech``: the documented request, formats, Retry-After."""

from __future__ import annotations

import json
import time

import pytest
from engine_rig import KEY_ENV, SECRET
from tts_providers import OPENAI_RATE, TONE_SECONDS, Fault

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError, EngineProfile
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, SynthesisRequest
from pytest_ttsbench.engines.openai import OpenAIEngine

TEXT = 'Flight "CA 981" leaves at 6:30 & costs $1,299 — 歼-20 <b>'


@pytest.fixture
def rig(rig_factory):
    return rig_factory("openai")


def test_request_matches_the_documented_wire_format(rig):
    engine = rig.engine(model="gpt-4o-mini-tts")
    engine.synthesize(SynthesisRequest(text=TEXT, language="en"))
    engine.close()
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1/audio/speech")
    assert req.headers["authorization"] == f"Bearer {SECRET}"
    assert req.headers["content-type"] == "application/json"
    # The text travels verbatim: same characters, nothing added, nothing escaped away.
    assert json.loads(req.body) == {
        "model": "gpt-4o-mini-tts",
        "input": TEXT,
        "voice": "alloy",
        "response_format": "wav",
    }


def test_optional_fields_are_sent_only_when_set(rig):
    engine = rig.engine(speed=1.25, instructions="Read numbers digit by digit.", response_format="mp3")
    engine.synthesize(SynthesisRequest(text="42", language="en"))
    engine.close()
    body = rig.fake.last.parsed
    assert body["speed"] == 1.25
    assert body["instructions"] == "Read numbers digit by digit."
    assert body["response_format"] == "mp3"


def test_voice_by_language_and_request_override(rig):
    engine = rig.engine(voice={"en": "alloy", "zh": "nova"})
    engine.synthesize(SynthesisRequest(text="你好", language="zh-CN"))
    assert rig.fake.last.parsed["voice"] == "nova"
    engine.synthesize(SynthesisRequest(text="hi", language="zh", voice="voice_abc123"))
    assert rig.fake.last.parsed["voice"] == {"id": "voice_abc123"}  # a custom voice goes as an object
    engine.close()


@pytest.mark.parametrize(
    ("fmt", "media_type", "pcm_rate"),
    [("wav", "audio/wav", None), ("pcm", "audio/pcm", OPENAI_RATE), ("mp3", "audio/mpeg", None),
     ("flac", "audio/flac", None)],
)  # fmt: skip
def test_response_formats_decode(rig, fmt, media_type, pcm_rate):
    engine = rig.engine(response_format=fmt)
    result = engine.synthesize(SynthesisRequest(text="2026", language="en"))
    engine.close()
    assert result.media_type == media_type
    assert result.pcm_sample_rate == pcm_rate
    decoded = decode_audio(result.audio, result.pcm_sample_rate)
    assert decoded.seconds == pytest.approx(TONE_SECONDS, abs=0.08)
    assert decoded.source_sample_rate == OPENAI_RATE


def test_retry_after_is_honoured(rig):
    rig.fake.enqueue(Fault("rate_limit", retry_after="1"))
    engine = rig.engine(retry_max_wait_s=2)
    start = time.perf_counter()
    result = engine.synthesize(SynthesisRequest(text="7", language="en"))
    elapsed = time.perf_counter() - start
    engine.close()
    first, second = rig.fake.requests
    assert second.at - first.at >= 1.0  # not sooner than the provider asked
    assert elapsed < 3.0  # and not much later either
    assert result.metadata["retries"] == 1
    assert "Rate limit reached" in result.metadata["retry_reasons"][0]


def test_x_should_retry_false_stops_retries(rig):
    rig.fake.enqueue(
        Fault("raw", status=503, headers={"x-should-retry": "false", "Content-Type": "application/json"},
              body=b'{"error":{"message":"overloaded, do not retry","type":"server_error","param":null,"code":null}}')
    )  # fmt: skip
    engine = rig.engine()
    with pytest.raises(EngineError, match="overloaded, do not retry"):
        engine.synthesize(SynthesisRequest(text="7", language="en"))
    engine.close()
    assert len(rig.fake.requests) == 1


def test_time_to_first_byte_and_total_are_measured_while_streaming(rig):
    rig.fake.first_byte_delay_s = 0.15
    rig.fake.chunk_delay_s = 0.04  # the wav is 8 chunks of 4 KiB
    engine = rig.engine()
    result = engine.synthesize(SynthesisRequest(text="7", language="en"))
    engine.close()
    first = result.first_byte_seconds
    total = result.metadata["total_seconds"]
    assert first is not None and 0.15 <= first < 1.0
    assert total - first >= 0.2  # the rest of the body arrived later: we did not wait for all of it
    assert result.metadata["request_id"].startswith("req_")


def test_local_server_needs_no_key(rig_factory, tmp_path):
    rig = rig_factory("openai", key=None)
    engine = rig.engine(api_key_env=None)
    engine.synthesize(SynthesisRequest(text="7", language="en"))
    engine.close()
    assert "authorization" not in rig.fake.last.headers


def test_the_real_service_without_a_key_is_unavailable(tmp_path):
    profile = EngineProfile(name="oa", type="openai", options={}, base_dir=tmp_path)
    with pytest.raises(EngineUnavailable, match="api_key_env"):
        OpenAIEngine(profile)


def test_missing_key_variable_is_named(monkeypatch, tmp_path):
    monkeypatch.delenv(KEY_ENV, raising=False)
    profile = EngineProfile(name="oa", type="openai", api_key_env=KEY_ENV, options={}, base_dir=tmp_path)
    with pytest.raises(EngineUnavailable, match=KEY_ENV):
        OpenAIEngine(profile)


@pytest.mark.parametrize("options", [{"response_format": "ogg"}, {"speed": 9}, {"timeout_s": -1}, {"base_url": "x"}])
def test_bad_options_are_config_errors(rig, options):
    with pytest.raises(ConfigError, match="openai-test"):
        rig.engine(**options)
