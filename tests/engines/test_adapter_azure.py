"""AzureEngine against the fake Speech REST endpoint: SSML that carries the text exactly, headers, formats."""

from __future__ import annotations

import pytest
from engine_rig import SECRET
from tts_providers import TONE_SECONDS

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError, EngineProfile
from pytest_ttsbench.engines.azure import AzureEngine, build_ssml
from pytest_ttsbench.engines.base import EngineError, SynthesisRequest


@pytest.fixture
def rig(rig_factory):
    return rig_factory("azure")


@pytest.mark.parametrize(
    "text",
    [
        "Tom & Jerry: 3 < 5 > 2",
        "He said \"hi\" & 'bye'",
        "&amp; is not an ampersand entity here; neither is &lt;",
        "<speak><prosody rate='x-slow'>injected</prosody></speak>",
        "a ]]> b <!-- c --> d",
        "ผมติดตั้งแอป LINE ใหม่เมื่อวานนี้",
        "航展首日，歼-20与运-20同场亮相。",
        "  leading and trailing spaces, tab\there  ",
    ],
)
def test_text_round_trips_exactly_through_the_ssml(rig, text):
    engine = rig.engine()
    engine.synthesize(SynthesisRequest(text=text, language="en"))
    engine.close()
    req = rig.fake.last
    # The fake parsed the SSML with an XML parser: the <voice> element's text is the item's text,
    # character for character, and no markup of the item's became elements.
    assert req.ssml_text == text
    voice = req.ssml.find("{http://www.w3.org/2001/10/synthesis}voice")
    assert list(voice) == []


def test_headers_and_document(rig):
    engine = rig.engine()
    engine.synthesize(SynthesisRequest(text="你好", language="zh"))
    engine.close()
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/cognitiveservices/v1")
    assert req.headers["ocp-apim-subscription-key"] == SECRET
    assert req.headers["content-type"] == "application/ssml+xml"
    assert req.headers["x-microsoft-outputformat"] == "riff-24khz-16bit-mono-pcm"
    assert req.headers["user-agent"]
    assert req.ssml.get("{http://www.w3.org/XML/1998/namespace}lang") == "zh-CN"  # from the voice name
    assert req.ssml.find("{http://www.w3.org/2001/10/synthesis}voice").get("name") == "zh-CN-XiaoxiaoNeural"


@pytest.mark.parametrize(
    ("output_format", "pcm_rate", "source_rate"),
    [
        ("riff-24khz-16bit-mono-pcm", None, 24000),
        ("raw-16khz-16bit-mono-pcm", 16000, 16000),
        ("audio-24khz-48kbitrate-mono-mp3", None, 24000),
    ],
)
def test_output_formats_decode(rig, output_format, pcm_rate, source_rate):
    engine = rig.engine(output_format=output_format)
    result = engine.synthesize(SynthesisRequest(text="2026", language="en"))
    engine.close()
    assert result.pcm_sample_rate == pcm_rate
    decoded = decode_audio(result.audio, result.pcm_sample_rate)
    assert decoded.source_sample_rate == source_rate
    assert decoded.seconds == pytest.approx(TONE_SECONDS, abs=0.08)
    assert result.metadata["request_id"] == "azure-req-1"


def test_unknown_voice_gets_azures_empty_400(rig):
    engine = rig.engine(voice="en-US-NobodyNeural")
    with pytest.raises(EngineError, match="HTTP 400: empty body"):
        engine.synthesize(SynthesisRequest(text="hi", language="en"))
    engine.close()


def test_language_without_a_voice_fails_before_any_request(rig):
    engine = rig.engine()
    with pytest.raises(EngineError, match="no voice configured for language 'ar'"):
        engine.synthesize(SynthesisRequest(text="مرحبا", language="ar"))
    engine.close()
    assert rig.fake.requests == []


def test_region_builds_the_endpoint(secret_env, tmp_path):
    profile = EngineProfile(
        name="az", type="azure", voice="en-US-JennyNeural", api_key_env="TTSBENCH_TEST_TTS_KEY",
        options={"region": "westeurope"}, base_dir=tmp_path,
    )  # fmt: skip
    engine = AzureEngine(profile)
    assert engine.options.base_url == "https://westeurope.tts.speech.microsoft.com"
    engine.close()
    with pytest.raises(ConfigError, match="region"):
        AzureEngine(EngineProfile(name="az", type="azure", api_key_env="TTSBENCH_TEST_TTS_KEY", base_dir=tmp_path))


def test_undecodable_output_format_is_refused(rig):
    with pytest.raises(ConfigError, match="raw-8khz-8bit-mono-mulaw"):
        rig.engine(output_format="raw-8khz-8bit-mono-mulaw")


def test_build_ssml_escapes_only_what_xml_requires():
    ssml = build_ssml('A&B <c> "d"', "en-US-JennyNeural", "en")
    assert '>A&amp;B &lt;c&gt; "d"</voice>' in ssml
