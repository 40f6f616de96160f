"""PollyEngine against the fake SynthesizeSpeech: SigV4 verified in full, PCM at 16 kHz, 400 throttling."""

from __future__ import annotations

import json
import sys

import pytest
from engine_rig import AWS_KEY_ID, SECRET
from tts_providers import TONE_SECONDS, Fault

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, SynthesisRequest


@pytest.fixture
def rig(rig_factory):
    return rig_factory("polly")


def test_signed_request_matches_the_documented_wire_format(rig):
    engine = rig.engine(engine="neural")
    result = engine.synthesize(SynthesisRequest(text="Q3 revenue rose 12% & more", language="en"))
    engine.close()
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1/speech")
    # The fake recomputed the SigV4 signature with the same secret: a 200 means it matched.
    assert req.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={AWS_KEY_ID}/")
    assert "/eu-west-1/polly/aws4_request" in req.headers["authorization"]
    assert json.loads(req.body) == {
        "Text": "Q3 revenue rose 12% & more",
        "TextType": "text",
        "OutputFormat": "pcm",
        "VoiceId": "Joanna",
        "SampleRate": "16000",
        "Engine": "neural",
    }
    assert result.media_type == "audio/pcm" and result.pcm_sample_rate == 16000
    assert decode_audio(result.audio, result.pcm_sample_rate).seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    assert result.metadata["request_characters"] == str(len("Q3 revenue rose 12% & more"))
    assert result.metadata["request_id"].startswith("polly-req-")


def test_throttling_400_is_retried_and_each_attempt_is_signed(rig):
    rig.fake.enqueue(Fault("rate_limit"), Fault("rate_limit"))
    engine = rig.engine()
    result = engine.synthesize(SynthesisRequest(text="你好", language="zh"))
    engine.close()
    assert len(rig.fake.requests) == 3
    assert result.metadata["retries"] == 2
    assert all("ThrottlingException: Rate exceeded" in r for r in result.metadata["retry_reasons"])
    assert rig.fake.last.parsed["VoiceId"] == "Zhiyu"


def test_other_400s_are_final(rig):
    engine = rig.engine(voice="Nobody")
    with pytest.raises(EngineError, match="ValidationException: Value 'Nobody'"):
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert len(rig.fake.requests) == 1


def test_session_token_is_sent_signed_and_never_reported(rig, monkeypatch):
    token = "FwoGZXIvYXdzEXAMPLE-session-token-value"
    monkeypatch.setenv("TTSBENCH_TEST_AWS_TOKEN", token)
    rig.fake.enqueue(Fault("error", status=400, message="token {key} rejected"))
    engine = rig.engine(session_token_env="TTSBENCH_TEST_AWS_TOKEN")
    with pytest.raises(EngineError) as info:
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    assert rig.fake.last.headers["x-amz-security-token"] == token
    assert "x-amz-security-token" in rig.fake.last.headers["authorization"]
    for value in (token, SECRET):
        assert value not in str(info.value)
    engine.synthesize(SynthesisRequest(text="1", language="en"))  # and the fake accepts the signature
    engine.close()


def test_mp3_output_decodes(rig):
    engine = rig.engine(output_format="mp3", sample_rate="24000")
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert result.pcm_sample_rate is None
    assert decode_audio(result.audio).source_sample_rate == 24000


def test_pcm_rate_outside_polly_range_is_a_config_error(rig):
    with pytest.raises(ConfigError, match="8000 or 16000"):
        rig.engine(sample_rate=24000)


def test_without_botocore_the_engine_is_unavailable_with_the_pip_command(rig, monkeypatch):
    monkeypatch.setitem(sys.modules, "botocore.auth", None)
    with pytest.raises(EngineUnavailable, match=r"pip install 'pytest-ttsbench\[polly\]'"):
        rig.engine()


def test_missing_access_key_id_variable_is_named(rig, monkeypatch):
    monkeypatch.delenv("TTSBENCH_TEST_AWS_KEY_ID")
    with pytest.raises(EngineUnavailable, match="TTSBENCH_TEST_AWS_KEY_ID"):
        rig.engine()
