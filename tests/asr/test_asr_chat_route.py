"""The `chat` ASR route against a real HTTP server on 127.0.0.1 speaking chat completions: the clip
inside the user message, the reply in choices[0].message.content."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plugin_projects import NEWS, read_jsonl
from test_asr_openai_route import KEY, FakeServer, Received, _clip, server  # noqa: F401  (server is the fixture)

from pytest_ttsbench.asr.base import AsrError
from pytest_ttsbench.asr.chat_route import ChatTranscriptionRoute
from pytest_ttsbench.asr.openai_route import DEFAULT_STRIP_PREFIX, compile_prefix, without_prefix
from pytest_ttsbench.asr.registry import create_route
from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.session.provenance_capture import routes_facts


def completion(content: object) -> dict:
    """A chat completion as OpenAI-compatible servers answer one."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "mimo-asr",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 90, "completion_tokens": 12, "total_tokens": 102},
    }


def _route(server: FakeServer, **spec: object) -> ChatTranscriptionRoute:  # noqa: F811
    full = {"type": "chat", "base_url": server.url, "model": "mimo-asr", "retry_min_wait_s": 0.01, **spec}
    route = create_route(full)
    assert isinstance(route, ChatTranscriptionRoute)
    return route


def test_the_clip_goes_in_the_message_and_the_prefix_comes_off(server: FakeServer, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("ASR_TEST_KEY", "sk-chat-123456")
    server.replies.append((200, completion("language Chinese<asr_text>航展首日，歼二十亮相。")))
    route = _route(
        server, name="mimo_v2_5_asr", api_key_env="ASR_TEST_KEY", prompt="Transcribe this {language} clip.",
        extra_body={"asr_options": {"language": "zh", "itn": False}, "max_tokens": 256},
    )  # fmt: skip
    heard = route.transcribe(_clip(), "zh-CN")
    assert heard.text == "航展首日，歼二十亮相。"
    assert heard.details["stripped_prefix"] == "language Chinese<asr_text>"
    assert route.name == "mimo_v2_5_asr"
    (request,) = server.received
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-chat-123456"
    body = request.document
    assert body["model"] == "mimo-asr" and body["temperature"] == 0.0
    assert body["asr_options"] == {"language": "zh", "itn": False} and body["max_tokens"] == 256  # extra_body arrives
    (message,) = body["messages"]
    assert message["role"] == "user"
    audio_part, text_part = message["content"]
    assert audio_part["type"] == "input_audio" and audio_part["input_audio"]["format"] == "wav"
    sent = decode_audio(base64.b64decode(audio_part["input_audio"]["data"]))  # a real WAV of the clip
    assert sent.sample_rate == 16000 and sent.seconds == pytest.approx(0.5, abs=0.01)
    assert text_part == {"type": "text", "text": "Transcribe this zh clip."}


def test_audio_url_sends_a_data_url_and_no_prompt_no_text_part(server: FakeServer) -> None:  # noqa: F811
    server.replies.append((200, completion([{"type": "text", "text": "In 2026."}])))
    heard = _route(server, audio_part="audio_url").transcribe(_clip(), "en")
    assert heard.text == "In 2026." and "stripped_prefix" not in heard.details
    (part,) = server.received[0].document["messages"][0]["content"]
    assert part["type"] == "audio_url"
    prefix = "data:audio/wav;base64,"
    assert part["audio_url"]["url"].startswith(prefix)
    assert decode_audio(base64.b64decode(part["audio_url"]["url"][len(prefix) :])).seconds == pytest.approx(
        0.5, abs=0.01
    )


def test_input_audio_may_hold_a_data_url_as_mimo_wants(server: FakeServer) -> None:  # noqa: F811
    server.replies.append((200, completion("航展首日")))
    assert _route(server, audio_part="input_audio_data_url").transcribe(_clip(), "zh").text == "航展首日"
    (part,) = server.received[0].document["messages"][0]["content"]
    prefix = "data:audio/wav;base64,"
    assert part["type"] == "input_audio" and part["input_audio"]["data"].startswith(prefix)
    assert decode_audio(base64.b64decode(part["input_audio"]["data"][len(prefix) :])).seconds == pytest.approx(
        0.5, abs=0.01
    )


def test_a_refusal_is_a_failed_route_not_a_transcript(server: FakeServer) -> None:  # noqa: F811
    server.replies.append((200, completion("抱歉，我无法转写这段音频。")))
    route = _route(server, refusal_patterns=["抱歉，我无法转写", r"(?i)^I'm sorry"])
    with pytest.raises(AsrError, match=r"declined to transcribe.*抱歉，我无法转写这段音频"):
        route.transcribe(_clip(), "zh")
    server.replies.append((200, completion("language Chinese<asr_text>抱歉，我无法转写。")))
    with pytest.raises(AsrError, match="declined"):  # matched after the prefix comes off
        route.transcribe(_clip(), "zh")
    server.replies.append((200, completion("他说：没关系。")))
    assert route.transcribe(_clip(), "zh").text == "他说：没关系。"
    assert len(server.received) == 3  # a refusal is not retried


def test_transient_failures_are_retried_like_the_openai_route(server: FakeServer) -> None:  # noqa: F811
    server.replies += [(503, {"error": {"message": "loading model"}}), (200, completion("ok"))]
    heard = _route(server, max_retries=2).transcribe(_clip(), "en")
    assert heard.text == "ok" and heard.details["attempts"] == 2


def test_the_key_is_redacted_from_errors_and_replies(server: FakeServer, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("ASR_TEST_KEY", KEY)
    server.replies.append((401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    with pytest.raises(AsrError) as caught:
        _route(server, api_key_env="ASR_TEST_KEY").transcribe(_clip(), "en")
    assert KEY not in str(caught.value) and "[REDACTED]" in str(caught.value)
    server.replies.append((200, completion(f"you said {KEY}")))
    assert _route(server, api_key_env="ASR_TEST_KEY").transcribe(_clip(), "en").text == "you said [REDACTED]"


@pytest.mark.parametrize(
    "reply", [{"choices": []}, {"choices": [{"message": {"content": None}}]}, {"text": "an openai answer"}]
)
def test_an_answer_without_content_is_an_error(server: FakeServer, reply: dict) -> None:  # noqa: F811
    server.replies.append((200, reply))
    with pytest.raises(AsrError, match=r"no choices\[0\].message.content"):
        _route(server).transcribe(_clip(), "en")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"model": None}, "field 'model' is required"),
        ({"audio_part": "file"}, "audio_part must be one of input_audio, input_audio_data_url, audio_url"),
        ({"extra_body": ["x"]}, "extra_body must be a mapping"),
        ({"refusal_patterns": "抱歉"}, "refusal_patterns must be a list"),
        ({"refusal_patterns": ["("]}, "not a regular expression"),
        ({"extra_form": {"use_itn": False}}, "unknown field"),
    ],
)
def test_bad_specs(spec: dict, message: str) -> None:
    full = {"type": "chat", "model": "m", **spec}
    with pytest.raises(ValueError, match=message):
        create_route({k: v for k, v in full.items() if v is not None})


def test_the_run_header_records_how_the_route_decodes() -> None:
    spec = {
        "type": "chat", "name": "mimo_v2_5_asr", "base_url": "http://gpu-box:8000/v1", "model": "mimo-asr",
        "extra_body": {"asr_options": {"itn": False}}, "refusal_patterns": ["抱歉"], "api_key_env": "MIMO_KEY",
    }  # fmt: skip
    (facts,) = routes_facts({"routes": [spec]}, [])
    assert facts["name"] == "mimo_v2_5_asr" and facts["type"] == "chat" and facts["model"] == "mimo-asr"
    assert facts["extra_body"] == {"asr_options": {"itn": False}} and facts["refusal_patterns"] == ["抱歉"]


_LANGUAGE_NAMES = st.sampled_from(["Chinese", "English", "Thai", "Arabic", "Cantonese", "None", "Min Nan"])
_TRANSCRIPTS = st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and not t.lstrip().startswith("language"))


@settings(max_examples=60, deadline=None)
@given(_LANGUAGE_NAMES, _TRANSCRIPTS, st.sampled_from(["", " ", "\n"]))
def test_the_default_prefix_comes_off_any_transcript(name: str, transcript: str, space: str) -> None:
    pattern = compile_prefix(DEFAULT_STRIP_PREFIX, "chat")
    assert without_prefix(f"{space}language {name}<asr_text>{transcript}", pattern) == (
        transcript.strip(), f"{space}language {name}<asr_text>"
    )  # fmt: skip
    assert without_prefix(transcript, pattern) == (transcript.strip(), None)  # nothing else is touched


EN_CASES = """\
suite: chat-numerals
language: en
scorer: numbers
items:
  - {id: year, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
"""


def test_in_a_run_the_prefix_comes_off_and_a_refusal_is_a_failed_route(
    pytester: pytest.Pytester,
    server: FakeServer,  # noqa: F811
) -> None:
    """eSpeak NG speaks both items; the server, told the language in the prompt, refuses the Chinese clip."""

    def answer(request: Received) -> tuple[int, dict]:
        prompt = request.document["messages"][0]["content"][1]["text"]
        if prompt.endswith("zh"):
            return 200, completion("抱歉，我无法转写这段音频。")
        return 200, completion("language English<asr_text>It opened in 2026.")

    server.answer = answer
    for name, body in {"en.yaml": EN_CASES, "zh.yaml": NEWS}.items():
        (pytester.path / "cases").mkdir(exist_ok=True)
        (pytester.path / "cases" / name).write_text(body, encoding="utf-8")
    route = {
        "type": "chat", "name": "mimo_v2_5_asr", "base_url": server.url, "model": "mimo-v2.5-asr",
        "prompt": "Transcribe verbatim, language {language}", "extra_body": {"asr_options": {"language": "auto"}},
        "refusal_patterns": ["无法转写"], "max_retries": 0,
    }  # fmt: skip
    engine = {"type": "espeak", "voice": {"en": "en-us", "zh": "cmn"}}
    config = {"asr": {"routes": [route]}, "engines": {"espeak": engine}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    pytester.runpytest_subprocess("--tts-engine=espeak", "--tts-results=r.jsonl")
    rows = {row["suite"]: row for row in read_jsonl(pytester.path / "r.jsonl")}
    assert rows["chat-numerals"]["verdict"] == "correct"
    assert rows["chat-numerals"]["transcripts"] == {"mimo_v2_5_asr": "It opened in 2026."}
    news = [row for row in read_jsonl(pytester.path / "r.jsonl") if row["suite"] == "demo-news"]
    assert news and all(row["verdict"] == "error" and not row["transcripts"] for row in news)
    assert all("declined to transcribe" in row["error"] for row in news)
    assert {json.dumps(r.document["asr_options"]) for r in server.received} == {'{"language": "auto"}'}
