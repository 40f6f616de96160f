"""FishEngine against the fake ``/v1/tts``: JSON requests, MessagePack references, placeholder WAV headers."""

from __future__ import annotations

import json
import sys

import pytest
from engine_rig import SECRET
from tts_providers import TONE_SECONDS, wav_bytes

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineUnavailable, SynthesisRequest


@pytest.fixture
def rig(rig_factory):
    return rig_factory("fish")


def test_request_matches_the_documented_wire_format(rig):
    engine = rig.engine(voice="7f92f8afb8ec43bf81429cc1c9199cb1", latency="balanced", normalize=False, model="s1")
    engine.synthesize(SynthesisRequest(text="第3季度营收增长12%", language="zh"))
    engine.close()
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1/tts")
    assert req.headers["authorization"] == f"Bearer {SECRET}"
    assert req.headers["content-type"] == "application/json"
    assert req.headers["model"] == "s1"
    assert json.loads(req.body) == {
        "text": "第3季度营收增长12%",
        "format": "wav",
        "latency": "balanced",
        "normalize": False,
        "reference_id": "7f92f8afb8ec43bf81429cc1c9199cb1",
    }


def test_defaults_send_no_model_header_and_no_switches(rig):
    engine = rig.engine()
    engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert "model" not in rig.fake.last.headers
    assert rig.fake.last.parsed == {"text": "1", "format": "wav"}


def test_placeholder_wav_header_is_accepted_and_decodes(rig):
    engine = rig.engine(sample_rate=24000)
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert result.audio[4:8] == (0xFFFFFFFF - 219).to_bytes(4, "little")  # the fake's streaming header
    decoded = decode_audio(result.audio)
    assert decoded.source_sample_rate == 24000
    assert decoded.seconds == pytest.approx(TONE_SECONDS, abs=0.08)


def test_pcm_defaults_to_a_known_rate(rig):
    engine = rig.engine(format="pcm")
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()
    assert rig.fake.last.parsed["sample_rate"] == 24000
    assert result.pcm_sample_rate == 24000
    assert decode_audio(result.audio, result.pcm_sample_rate).seconds == pytest.approx(TONE_SECONDS, abs=0.02)


def test_reference_audio_is_sent_as_msgpack(rig, tmp_path):
    clip = wav_bytes(16000, 0.3)
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "speaker.wav").write_bytes(clip)
    engine = rig.engine(reference_audio="refs/speaker.wav", reference_text="Hello, this is my voice.")
    result = engine.synthesize(SynthesisRequest(text="Call me at 9.", language="en"))
    engine.close()
    req = rig.fake.last
    assert req.headers["content-type"] == "application/msgpack"
    assert req.parsed["text"] == "Call me at 9."
    assert req.parsed["references"] == [{"audio": clip, "text": "Hello, this is my voice."}]
    assert result.metadata["cloned"] is True


def test_cloning_without_msgpack_is_unavailable(rig, tmp_path, monkeypatch):
    (tmp_path / "ref.wav").write_bytes(wav_bytes(16000, 0.3))
    monkeypatch.setitem(sys.modules, "msgpack", None)  # import msgpack now raises ImportError
    with pytest.raises(EngineUnavailable, match=r"pytest-ttsbench\[fish\]"):
        rig.engine(reference_audio="ref.wav", reference_text="hi")


@pytest.mark.parametrize(
    "options",
    [
        {"reference_audio": "missing.wav", "reference_text": "hi"},
        {"reference_text": "text without audio"},
        {"latency": "fastest"},
        {"normalize": "yes"},
        {"format": "flac"},
    ],
)
def test_bad_options_are_config_errors(rig, options):
    with pytest.raises(ConfigError):
        rig.engine(**options)
