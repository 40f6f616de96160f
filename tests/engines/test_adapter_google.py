"""GoogleEngine against the fake ``/v1/text:synthesize``: JSON request, base64 audio, odd 200 bodies."""

from __future__ import annotations

import json

import pytest
from engine_rig import SECRET
from tts_providers import TONE_SECONDS, Fault

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.engines.base import EngineError, SynthesisRequest

TEXT = 'Call 555-0100 & ask for "Q3" <urgent>'


@pytest.fixture
def rig(rig_factory):
    return rig_factory("google")


def test_request_matches_the_documented_wire_format(rig):
    engine = rig.engine(speaking_rate=1.1)
    engine.synthesize(SynthesisRequest(text=TEXT, language="en"))
    engine.close()
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1/text:synthesize")
    assert req.headers["x-goog-api-key"] == SECRET
    assert req.query == {}  # the key never goes in the URL, where logs and errors would show it
    assert json.loads(req.body) == {
        "input": {"text": TEXT},
        "voice": {"languageCode": "en-US", "name": "en-US-Neural2-F"},
        "audioConfig": {"audioEncoding": "LINEAR16", "speakingRate": 1.1},
    }


def test_language_without_a_voice_lets_google_choose(rig):
    engine = rig.engine()
    engine.synthesize(SynthesisRequest(text="สวัสดี", language="th-TH"))
    engine.close()
    assert rig.fake.last.parsed["voice"] == {"languageCode": "th-TH"}


@pytest.mark.parametrize(
    ("encoding", "media_type", "pcm_rate"),
    [("LINEAR16", "audio/wav", None), ("PCM", "audio/pcm", 24000), ("MP3", "audio/mpeg", None)],
)
def test_encodings_decode(rig, encoding, media_type, pcm_rate):
    engine = rig.engine(audio_encoding=encoding)
    result = engine.synthesize(SynthesisRequest(text="12", language="en"))
    engine.close()
    assert (result.media_type, result.pcm_sample_rate) == (media_type, pcm_rate)
    assert decode_audio(result.audio, result.pcm_sample_rate).seconds == pytest.approx(TONE_SECONDS, abs=0.08)
    if encoding == "PCM":  # the rate is asked for explicitly, so the headerless samples are read right
        assert rig.fake.last.parsed["audioConfig"]["sampleRateHertz"] == 24000


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"audioContent": ""}', "no audioContent"),
        (b'{"audioContent": "@@not base64@@"}', "not valid base64"),
        (b'{"error": {"code": 200, "message": "odd proxy", "status": "UNKNOWN"}}', "UNKNOWN: odd proxy"),
        (b"<html><title>Captive portal</title></html>", "Captive portal"),
        (b"\x00\x01binary", "not JSON"),
    ],
)
def test_200_without_audio_content_is_an_engine_error(rig, body, expected):
    rig.fake.enqueue(Fault("raw", status=200, body=body, headers={"Content-Type": "application/json"}))
    engine = rig.engine()
    with pytest.raises(EngineError, match=expected):
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    engine.close()


def test_text_over_the_byte_limit_reports_googles_message(rig):
    engine = rig.engine()
    with pytest.raises(EngineError, match=r"INVALID_ARGUMENT: .*longer than the limit of 5000 bytes"):
        engine.synthesize(SynthesisRequest(text="数" * 2000, language="en"))  # 6000 UTF-8 bytes
    engine.close()
