"""ElevenLabsEngine against the fake ``/v1/text-to-speech/{voice_id}``: path, query, body switches."""

from __future__ import annotations

import json

import pytest
from engine_rig import SECRET
from tts_providers import TONE_SECONDS

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, SynthesisRequest

VOICE = "21m00Tcm4TlvDq8ikWAM"


@pytest.fixture
def rig(rig_factory):
    return rig_factory("elevenlabs")


def test_request_matches_the_documented_wire_format(rig):
    engine = rig.engine()
    engine.synthesize(SynthesisRequest(text="Gate 12 & 13 <closed>", language="en-US"))
    engine.close()
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", f"/v1/text-to-speech/{VOICE}")
    assert req.query == {"output_format": ["pcm_24000"]}
    assert req.headers["xi-api-key"] == SECRET
    # language_code and the normalization switch are not sent unless the profile sets them.
    assert json.loads(req.body) == {"text": "Gate 12 & 13 <closed>", "model_id": "eleven_multilingual_v2"}


def test_profile_switches_reach_the_body(rig):
    engine = rig.engine(
        model="eleven_flash_v2_5",
        language_code="auto",
        text_normalization="off",
        voice_settings={"stability": 0.4},
        seed=7,
    )
    engine.synthesize(SynthesisRequest(text="2026", language="pt-BR"))
    engine.close()
    assert rig.fake.last.parsed == {
        "text": "2026",
        "model_id": "eleven_flash_v2_5",
        "language_code": "pt",
        "apply_text_normalization": "off",
        "voice_settings": {"stability": 0.4},
        "seed": 7,
    }


def test_fixed_language_code(rig):
    engine = rig.engine(language_code="th")
    engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert rig.fake.last.parsed["language_code"] == "th"


@pytest.mark.parametrize(
    ("output_format", "pcm_rate", "source_rate"),
    [("pcm_24000", 24000, 24000), ("wav_16000", None, 16000), ("mp3_44100_128", None, 44100)],
)
def test_output_formats_decode(rig, output_format, pcm_rate, source_rate):
    engine = rig.engine(output_format=output_format)
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert result.pcm_sample_rate == pcm_rate
    decoded = decode_audio(result.audio, result.pcm_sample_rate)
    assert decoded.source_sample_rate == source_rate
    assert decoded.seconds == pytest.approx(TONE_SECONDS, abs=0.08)


def test_stream_path_and_request_id(rig):
    engine = rig.engine(stream=True)
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert rig.fake.last.path == f"/v1/text-to-speech/{VOICE}/stream"
    assert result.metadata["request_id"] == "el-req-1"


def test_unknown_voice_reports_the_status_code_and_message(rig):
    engine = rig.engine(voice="nobody")
    with pytest.raises(EngineError, match="HTTP 404: voice_not_found: A voice with the voice_id nobody"):
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()


@pytest.mark.parametrize(
    "options", [{"output_format": "ulaw_8000"}, {"text_normalization": "maybe"}, {"seed": "x"}, {"voice_settings": 1}]
)
def test_bad_options_are_config_errors(rig, options):
    with pytest.raises(ConfigError):
        rig.engine(**options)
