"""The seed benchmarks' providers against their fakes: each wire format, and each provider's own traps.

The faults every HTTP adapter shares (throttling, 5xx, hangs, HTML pages, key echoes) run for
these providers too, in ``test_adapter_faults.py``. Here: the documented request of each, the
errors they send with HTTP 200 (MiniMax ``base_resp``, Volcengine stream codes, DashScope
``{code, message}``, a Gemini or MiMo reply without audio), which of them are retried, the
Volcengine stream's end and first audio, DashScope's download without the key, and the
``openai`` adapter's clone fields against a server that requires them.
"""

from __future__ import annotations

import base64
import io
import json
import wave

import pytest
from engine_rig import KEY_ENV, SECRET, leaked_fragment
from seed_providers import SEED_FAKES, FakeVllmOmni
from tts_providers import TONE_SECONDS, Fault, wav_bytes

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError, EngineProfile, load_settings
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, SynthesisRequest
from pytest_ttsbench.engines.registry import adapter_module, create_engine

TEXT = "第3季度营收增长12%, Flight CA981 at 6:30 & <b>"
REQUEST = SynthesisRequest(text=TEXT, language="zh", item_id="q3")


def synthesize(rig, request=REQUEST, **options):
    engine = rig.engine(**options)
    try:
        return engine.synthesize(request)
    finally:
        engine.close()


def failure(rig, request=REQUEST, **options) -> str:
    engine = rig.engine(**options)
    try:
        with pytest.raises(EngineError) as info:
            engine.synthesize(request)
    finally:
        engine.close()
    message = str(info.value)
    assert leaked_fragment(message) is None, message
    return message


@pytest.mark.parametrize("provider", sorted(SEED_FAKES))
def test_each_type_declares_its_listening_controls_and_export_formats(provider):
    module = adapter_module(provider)
    assert module is not None
    assert module.CONTROLS and all(isinstance(c, str) for c in module.CONTROLS)
    assert module.EXPORT_FORMATS and all(isinstance(f, str) for f in module.EXPORT_FORMATS)


# --- the documented requests --------------------------------------------------------------------


def test_minimax_request_and_hex_reply(rig_factory):
    rig = rig_factory("minimax")
    result = synthesize(rig, model="speech-02-turbo", speed=1.2, sample_rate=24000, language_boost="Chinese")
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1/t2a_v2")
    assert req.headers["authorization"] == f"Bearer {SECRET}"
    assert req.parsed == {
        "model": "speech-02-turbo",
        "text": TEXT,
        "stream": False,
        "voice_setting": {"voice_id": "male-qn-qingse", "speed": 1.2},
        "audio_setting": {"sample_rate": 24000, "format": "wav", "channel": 1},
        "output_format": "hex",
        "language_boost": "Chinese",
    }
    decoded = decode_audio(result.audio)
    assert decoded.source_sample_rate == 24000 and decoded.seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    assert result.metadata["request_id"].startswith("trace-")
    assert {"model": "speech-02-turbo", "speed": 1.2, "sample_rate": 24000}.items() <= result.metadata.items()


def test_minimax_pcm_takes_the_rate_from_the_reply(rig_factory):
    result = synthesize(rig_factory("minimax"), format="pcm", sample_rate=16000)
    assert result.pcm_sample_rate == 16000
    assert decode_audio(result.audio, 16000).seconds == pytest.approx(TONE_SECONDS, abs=0.02)


def test_volcengine_request_asks_for_pcm_and_wraps_it(rig_factory):
    rig = rig_factory("volcengine")
    result = synthesize(rig, resource_id="seed-tts-2.0", sample_rate=16000, speech_rate=10)
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/api/v3/tts/unidirectional")
    assert req.headers["x-api-key"] == SECRET and req.headers["x-api-resource-id"] == "seed-tts-2.0"
    assert req.headers["x-api-request-id"]
    assert req.parsed["req_params"] == {
        "text": TEXT,
        "speaker": "zh_female_cancan_mars_bigtts",
        "audio_params": {"format": "pcm", "sample_rate": 16000, "speech_rate": 10},
    }
    assert result.media_type == "audio/wav" and result.audio[:4] == b"RIFF"
    with wave.open(io.BytesIO(result.audio)) as clip:  # one header: every chunk's PCM joined under it
        assert clip.getframerate() == 16000
        assert clip.getnframes() == int(16000 * TONE_SECONDS)
    assert result.metadata["request_id"].startswith("log-")


def test_volcengine_app_id_and_access_key_pair(rig_factory, monkeypatch):
    monkeypatch.setenv("TTSBENCH_TEST_VOLC_APP", "7012345678")
    rig = rig_factory("volcengine", app_id="7012345678", access_key=SECRET)
    pair = {"api_key_env": None, "app_id_env": "TTSBENCH_TEST_VOLC_APP", "access_key_env": KEY_ENV}
    synthesize(rig, **pair)
    headers = rig.fake.last.headers
    assert headers["x-api-app-id"] == "7012345678" and headers["x-api-access-key"] == SECRET
    assert "x-api-key" not in headers
    wrong = rig_factory("volcengine", app_id="7012345678", access_key="another-access-key")
    assert "HTTP 401" in failure(wrong, **pair)


def test_volcengine_without_credentials_is_unavailable(rig_factory):
    with pytest.raises(EngineUnavailable, match="app_id_env and access_key_env"):
        rig_factory("volcengine").engine(api_key_env=None)


@pytest.mark.parametrize(
    ("model", "path", "sent"),
    [
        ("cosyvoice-v2", "/api/v1/services/audio/tts/SpeechSynthesizer",
         {"text": TEXT, "voice": "longxiaochun_v2", "format": "wav", "sample_rate": 24000}),
        ("qwen-tts", "/api/v1/services/aigc/multimodal-generation/generation",
         {"text": TEXT, "voice": "Cherry", "language_type": "Chinese"}),
    ],
)  # fmt: skip
def test_dashscope_endpoint_by_model_and_download_without_the_key(rig_factory, model, path, sent):
    rig = rig_factory("dashscope")
    voice = "Cherry" if model.startswith("qwen") else "longxiaochun_v2"
    result = synthesize(rig, model=model, voice=voice)
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", path)
    assert req.headers["authorization"] == f"Bearer {SECRET}"
    assert req.parsed == {"model": model, "input": sent}
    download = rig.fake.store.last
    assert download.method == "GET" and "Signature" in download.query  # the signed URL, query intact
    assert "authorization" not in download.headers and SECRET not in json.dumps(download.headers)
    assert decode_audio(result.audio).seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    assert result.metadata["attempts"] == 1 and result.metadata["endpoint_host"] == rig.fake.url.split("//")[1]


def test_chat_audio_request_roles_and_api_key_header(rig_factory):
    rig = rig_factory("chat-audio")
    synthesize(rig, auth_header="api-key", instructions="用平静的语气", extra_body={"temperature": 0.2})
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1/chat/completions")
    assert req.headers["api-key"] == SECRET and "authorization" not in req.headers
    assert req.parsed == {
        "model": "mimo-v2.5-tts",
        "messages": [{"role": "user", "content": "用平静的语气"}, {"role": "assistant", "content": TEXT}],
        "audio": {"format": "wav", "voice": "mimo_default"},
        "temperature": 0.2,
    }


def test_chat_audio_clone_sends_the_reference_as_a_data_url(rig_factory, tmp_path):
    clip = wav_bytes(16000, 0.3)
    (tmp_path / "speaker.wav").write_bytes(clip)
    rig = rig_factory("chat-audio")
    result = synthesize(rig, model="mimo-v2.5-tts-voiceclone", reference_audio="speaker.wav")
    voice = rig.fake.last.parsed["audio"]["voice"]
    assert voice == "data:audio/wav;base64," + base64.b64encode(clip).decode()
    assert rig.fake.last.headers["authorization"] == f"Bearer {SECRET}"
    assert result.metadata["reference_audio"] == "speaker.wav" and len(result.metadata["reference_sha256"]) == 64
    assert "base64" not in json.dumps(result.metadata)  # provenance names the clip, it does not carry it


def test_gemini_request_style_and_rate_from_the_mime_type(rig_factory):
    rig = rig_factory("gemini")
    rig.fake.pcm_rate = 16000
    result = synthesize(rig, model="gemini-2.5-pro-preview-tts", voice="Puck", style="Say calmly:")
    req = rig.fake.last
    assert (req.method, req.path) == ("POST", "/v1beta/models/gemini-2.5-pro-preview-tts:generateContent")
    assert req.headers["x-goog-api-key"] == SECRET and "key" not in req.query
    assert req.parsed == {
        "contents": [{"parts": [{"text": f"Say calmly: {TEXT}"}]}],
        "generationConfig": {
            "responseModalities": ["AUDIO"],
            "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": "Puck"}}},
        },
    }
    assert result.pcm_sample_rate == 16000  # read from audio/L16;codec=pcm;rate=16000
    assert decode_audio(result.audio, result.pcm_sample_rate).seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    assert result.metadata["style"] == "Say calmly:"


# --- errors sent with HTTP 200, and which are retried --------------------------------------------


def minimax_reply(code: int, message: str) -> Fault:
    body = {"data": None, "trace_id": "t-1", "base_resp": {"status_code": code, "status_msg": message}}
    return Fault("raw", status=200, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(
    ("code", "message"),
    [(1004, "login fail: Please carry the API secret key"), (2013, "invalid params, voice_id"),
     (1008, "insufficient balance")],
)  # fmt: skip
def test_minimax_errors_at_200_are_final_and_carry_status_msg(rig_factory, code, message):
    rig = rig_factory("minimax")
    rig.fake.enqueue(minimax_reply(code, message))
    text = failure(rig)
    assert f"status_code {code}: {message}" in text and "HTTP 200" in text
    assert len(rig.fake.requests) == 1


@pytest.mark.parametrize("code", [1002, 1039])
def test_minimax_throttling_at_200_is_retried(rig_factory, code):
    rig = rig_factory("minimax")
    rig.fake.enqueue(minimax_reply(code, "rate limit exceeded"), minimax_reply(code, "rate limit exceeded"))
    result = synthesize(rig)
    assert len(rig.fake.requests) == 3 and result.metadata["retries"] == 2
    assert f"status_code {code}" in result.metadata["retry_reasons"][0]


def test_minimax_reply_without_audio(rig_factory):
    rig = rig_factory("minimax")
    body = {"data": {"audio": "", "status": 1}, "base_resp": {"status_code": 0, "status_msg": "success"}}
    rig.fake.enqueue(
        Fault("raw", status=200, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    )
    assert "without audio" in failure(rig)


def test_volcengine_in_band_error_carries_the_message(rig_factory):
    text = failure(rig_factory("volcengine"), voice="zh_nobody")
    assert "HTTP 200 with Volcengine code 45000000: speaker permission denied: zh_nobody" in text


def test_volcengine_error_after_audio_chunks(rig_factory):
    rig = rig_factory("volcengine")
    rig.fake.mid_stream_error = (55000000, "TTS server error: synthesis interrupted")
    text = failure(rig)
    assert "Volcengine code 55000000: TTS server error: synthesis interrupted after 2 audio chunks" in text


def test_volcengine_stream_without_its_final_object(rig_factory):
    rig = rig_factory("volcengine")
    rig.fake.drop_final = True
    assert "ended without its final code 20000000 object (6 audio chunks received)" in failure(rig)


def test_volcengine_finished_stream_without_audio(rig_factory):
    rig = rig_factory("volcengine")
    body = b'{"code": 0, "message": "", "data": null}\n{"code": 20000000, "message": "OK", "data": null}\n'
    rig.fake.enqueue(Fault("raw", status=200, body=body, headers={"Content-Type": "application/json"}))
    assert "without any audio" in failure(rig)


def test_volcengine_first_audio_is_the_first_data_chunk(rig_factory):
    rig = rig_factory("volcengine")
    sentence_line = b'{"code": 0, "message": "", "data": null, "sentence": {"text": "' + TEXT.encode("unicode_escape")
    rig.fake.lead_bytes = len(sentence_line)  # the first bytes are a sentence object: no audio yet
    rig.fake.lead_pause_s = 0.2
    rig.fake.chunk_delay_s = 0.02
    result = synthesize(rig)
    assert result.streamed is True
    assert result.first_byte_seconds is not None and result.first_audio_seconds is not None
    assert result.first_byte_seconds < result.first_audio_seconds < result.metadata["total_seconds"]


def test_dashscope_error_document_at_200(rig_factory):
    rig = rig_factory("dashscope")
    body = {
        "request_id": "r-1",
        "code": "DataInspectionFailed",
        "message": "Input data may contain inappropriate content.",
    }
    rig.fake.enqueue(
        Fault("raw", status=200, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    )
    text = failure(rig)
    assert "DataInspectionFailed: Input data may contain inappropriate content." in text
    assert len(rig.fake.requests) == 1 and not rig.fake.store.requests


@pytest.mark.parametrize("status", [200, 400, 429])
def test_dashscope_throttling_is_retried_whatever_the_status(rig_factory, status):
    rig = rig_factory("dashscope")
    body = {"request_id": "r-2", "code": "Throttling.RateQuota", "message": "Requests rate limit exceeded"}
    rig.fake.enqueue(
        Fault("raw", status=status, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    )
    result = synthesize(rig)
    assert len(rig.fake.requests) == 2 and "Throttling.RateQuota" in result.metadata["retry_reasons"][0]


def test_dashscope_reply_without_an_audio_url(rig_factory):
    rig = rig_factory("dashscope")
    body = {"output": {"finish_reason": "stop", "audio": {"url": "", "data": ""}}, "request_id": "r-3"}
    rig.fake.enqueue(
        Fault("raw", status=200, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    )
    assert "without audio (no output.audio.url; finish_reason 'stop')" in failure(rig)


def test_dashscope_expired_audio_url_is_an_error_naming_the_download(rig_factory):
    rig = rig_factory("dashscope")
    rig.fake.store.enqueue(Fault("error", status=403, message="Request has expired."))
    text = failure(rig)
    assert "(audio download): HTTP 403" in text and "Request has expired." in text


@pytest.mark.parametrize(
    "reply",
    [
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": "抱歉，我无法朗读这段内容。"},
                      "finish_reason": "content_filter"}]},
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "audio": None},
                      "finish_reason": "length"}]},
    ],
    ids=["refusal-text", "empty"],
)  # fmt: skip
def test_chat_audio_reply_without_audio_names_the_finish_reason(rig_factory, reply):
    rig = rig_factory("chat-audio")
    rig.fake.enqueue(
        Fault("raw", status=200, body=json.dumps(reply).encode(), headers={"Content-Type": "application/json"})
    )
    text = failure(rig)
    reason = reply["choices"][0]["finish_reason"]
    assert f"without audio (finish_reason {reason!r})" in text
    if reply["choices"][0]["message"]["content"]:
        assert "无法朗读" in text


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ({"candidates": [{"content": {"parts": [{"text": "I can't read that aloud."}], "role": "model"},
                          "finishReason": "OTHER"}]}, "finishReason 'OTHER'"),
        ({"candidates": [{"finishReason": "SAFETY", "index": 0}]}, "finishReason 'SAFETY'"),
        ({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}, "blockReason 'PROHIBITED_CONTENT'"),
    ],
    ids=["text-only", "safety", "blocked-prompt"],
)  # fmt: skip
def test_gemini_candidate_without_audio_is_an_error_naming_the_reason(rig_factory, reply, expected):
    rig = rig_factory("gemini")
    rig.fake.enqueue(
        Fault("raw", status=200, body=json.dumps(reply).encode(), headers={"Content-Type": "application/json"})
    )
    text = failure(rig)
    assert expected in text
    assert len(rig.fake.requests) == 1


def test_gemini_resource_exhausted_is_retried(rig_factory):
    rig = rig_factory("gemini")
    rig.fake.enqueue(Fault("rate_limit"))
    result = synthesize(rig)
    assert "RESOURCE_EXHAUSTED" in result.metadata["retry_reasons"][0]


# --- bad profiles ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "options"),
    [
        ("minimax", {"format": "ogg"}), ("minimax", {"sample_rate": 12345}), ("minimax", {"speed": 5}),
        ("volcengine", {"sample_rate": 11025}), ("volcengine", {"resource_id": ""}),
        ("dashscope", {"format": "flac"}),
        ("chat-audio", {"text_role": "narrator"}), ("chat-audio", {"auth_header": "cookie"}),
        ("chat-audio", {"extra_body": ["not", "a", "map"]}), ("chat-audio", {"reference_audio": "missing.wav"}),
        ("gemini", {"style": 3}),
    ],
)  # fmt: skip
def test_bad_options_are_config_errors_naming_the_profile(rig_factory, provider, options):
    with pytest.raises(ConfigError, match=f"{provider}-test"):
        rig_factory(provider).engine(**options)


@pytest.mark.parametrize("provider", sorted(SEED_FAKES))
def test_missing_key_variable_is_named(rig_factory, monkeypatch, provider):
    rig = rig_factory(provider)
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(EngineUnavailable, match=KEY_ENV):
        rig.engine()


# --- openai clone fields, against a server that requires them ------------------------------------


@pytest.fixture
def clone_server():
    fake = FakeVllmOmni().start()
    yield fake
    fake.stop()


def clone_profile(fake: FakeVllmOmni, tmp_path, **options) -> EngineProfile:
    voice = options.pop("voice", None)
    return EngineProfile(
        name="clone",
        type="openai",
        voice=voice,
        options={"base_url": fake.url + "/v1", "model": fake.model, "max_retries": 0, **options},
        base_dir=tmp_path,
    )


def test_clone_server_refuses_a_request_without_the_reference(clone_server, tmp_path):
    engine = create_engine(clone_profile(clone_server, tmp_path))
    with pytest.raises(EngineError, match="requires 'ref_audio' and 'ref_text'"):
        engine.synthesize(SynthesisRequest(text="hi", language="en"))
    engine.close()


def test_clone_fields_are_sent_and_recorded(clone_server, tmp_path):
    clip = wav_bytes(24000, 0.4)
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "speaker.wav").write_bytes(clip)
    profile = clone_profile(
        clone_server,
        tmp_path,
        reference_audio="refs/speaker.wav",
        reference_text="这是我的声音。",
        language="Chinese",
        task_type="Base",
        extra_body={"x_vector_only_mode": False, "max_new_tokens": 2048},
    )
    engine = create_engine(profile)
    result = engine.synthesize(SynthesisRequest(text=TEXT, language="zh"))
    engine.close()
    sent = clone_server.last.parsed
    assert "voice" not in sent  # a clone profile that names no voice sends none
    assert sent["ref_audio"] == "data:audio/wav;base64," + base64.b64encode(clip).decode()
    assert (sent["ref_text"], sent["language"], sent["task_type"]) == ("这是我的声音。", "Chinese", "Base")
    assert (sent["x_vector_only_mode"], sent["max_new_tokens"]) == (False, 2048)
    assert sent["input"] == TEXT
    assert decode_audio(result.audio).seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    meta = result.metadata
    assert meta["reference_text"] == "这是我的声音。" and meta["reference_audio"] == "speaker.wav"
    assert meta["extra_body"] == {"x_vector_only_mode": False, "max_new_tokens": 2048}
    assert "base64" not in json.dumps(meta)


def test_voice_null_omits_the_voice_and_a_set_voice_is_sent(clone_server, tmp_path):
    (tmp_path / "ref.wav").write_bytes(wav_bytes(24000, 0.3))
    clone = {"reference_audio": "ref.wav", "reference_text": "hello"}
    for options, expected in (({"voice": "vivian"}, "vivian"), ({}, None)):
        engine = create_engine(clone_profile(clone_server, tmp_path, **clone, **options))
        engine.synthesize(SynthesisRequest(text="1", language="en"))
        engine.close()
        assert clone_server.last.parsed.get("voice") == expected


def test_voice_null_in_the_configuration_sends_no_voice_and_absent_keeps_the_default(clone_server, tmp_path):
    base = f"{clone_server.url}/v1"
    (tmp_path / "ttsbench.yaml").write_text(
        "engines:\n"
        f"  unset: {{type: openai, base_url: {base}}}\n"
        f"  none: {{type: openai, base_url: {base}, voice: null}}\n",
        encoding="utf-8",
    )
    profiles = load_settings(tmp_path).engines
    sent = {}
    for name in ("unset", "none"):
        engine = create_engine(profiles[name])
        with pytest.raises(EngineError):  # this server wants a reference clip; what was sent is what counts
            engine.synthesize(SynthesisRequest(text="1", language="en"))
        engine.close()
        sent[name] = clone_server.last.parsed
    assert sent["unset"]["voice"] == "alloy"
    assert "voice" not in sent["none"]


@pytest.mark.parametrize(
    "options",
    [{"reference_audio": "ref.wav"}, {"reference_text": "text without a clip"},
     {"reference_audio": "notwav.wav", "reference_text": "x"}, {"extra_body": "x_vector_only_mode"}],
)  # fmt: skip
def test_openai_clone_options_are_checked(tmp_path, options):
    (tmp_path / "ref.wav").write_bytes(wav_bytes(24000, 0.3))
    (tmp_path / "notwav.wav").write_bytes(b"ID3\x04 an mp3 really")
    profile = EngineProfile(name="clone", type="openai", options={"base_url": "http://127.0.0.1:9/v1", **options},
                            base_dir=tmp_path)  # fmt: skip
    with pytest.raises(ConfigError, match="'clone'"):
        create_engine(profile)
