"""The `openai` ASR route against a real HTTP server on 127.0.0.1 that parses the multipart body."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from pytest_ttsbench.asr.base import AsrError
from pytest_ttsbench.asr.openai_route import OpenAITranscriptionRoute
from pytest_ttsbench.asr.registry import create_route
from pytest_ttsbench.audio.decoding import DecodedAudio, decode_audio
from pytest_ttsbench.support.limits import MAX_TRANSCRIPT_BYTES


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    fields: dict[str, str]
    file_name: str | None
    file_type: str | None
    file_bytes: bytes
    document: Any = None  # a JSON body (the chat route's), parsed


@dataclass
class FakeServer:
    """Answers each POST with the next scripted (status, body); records what it received."""

    url: str
    replies: list[tuple[int, dict | str]] = field(default_factory=list)
    # Without scripted replies: the reply chosen from the request (a run's requests come in any order).
    answer: Callable[[Received], tuple[int, dict | str]] | None = None
    received: list[Received] = field(default_factory=list)


def _parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, str], Message | None]:
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    assert message.is_multipart(), "the request body must be multipart/form-data"
    fields: dict[str, str] = {}
    upload = None
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if part.get_filename():
            upload = part
        else:
            fields[str(name)] = part.get_payload(decode=True).decode("utf-8")
    return fields, upload


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            document = None
            if self.headers["Content-Type"] == "application/json":  # chat completions
                document, fields, upload = json.loads(body.decode("utf-8")), {}, None
            else:
                fields, upload = _parse_multipart(self.headers["Content-Type"], body)
            state.received.append(
                Received(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    fields=fields,
                    file_name=upload.get_filename() if upload else None,
                    file_type=upload.get_content_type() if upload else None,
                    file_bytes=upload.get_payload(decode=True) if upload else b"",
                    document=document,
                )
            )
            default = state.answer(state.received[-1]) if state.answer else (200, {"text": "default"})
            status, reply, *extra = state.replies.pop(0) if state.replies else default
            data = json.dumps(reply).encode() if isinstance(reply, dict) else reply.encode()
            self.send_response(status)
            for name, value in (extra[0] if extra else {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json" if isinstance(reply, dict) else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def _clip(seconds: float = 0.5) -> DecodedAudio:
    t = np.arange(int(16000 * seconds)) / 16000
    samples = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    return DecodedAudio(samples, 16000, 16000, 1, "wav", 2)


def _route(server: FakeServer, **spec: object) -> OpenAITranscriptionRoute:
    route = create_route({"type": "openai", "base_url": server.url, "retry_min_wait_s": 0.01, **spec})
    assert isinstance(route, OpenAITranscriptionRoute)
    return route


def test_posts_a_wav_with_the_form_fields_and_key(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASR_TEST_KEY", "sk-test-123456")
    server.replies.append((200, {"text": " 航展首日，歼二十亮相。 "}))
    route = _route(server, model="whisper-large-v3", api_key_env="ASR_TEST_KEY", name="large")
    heard = route.transcribe(_clip(), "zh-CN")
    assert heard.text == "航展首日，歼二十亮相。"
    assert route.name == "large"
    (request,) = server.received
    assert request.path == "/v1/audio/transcriptions"
    assert request.headers["authorization"] == "Bearer sk-test-123456"
    assert request.fields == {"model": "whisper-large-v3", "language": "zh", "response_format": "json"}
    assert request.file_name == "clip.wav" and request.file_type == "audio/wav"
    sent = decode_audio(request.file_bytes)  # the upload is a real WAV of the same clip
    assert sent.sample_rate == 16000 and sent.seconds == pytest.approx(0.5, abs=0.01)


def test_no_key_no_authorization_header(server: FakeServer) -> None:
    server.replies.append((200, {"text": "In 2026."}))
    route = _route(server)
    assert route.name == "openai:whisper-1"
    assert route.transcribe(_clip(), "en").text == "In 2026."
    assert "authorization" not in server.received[0].headers
    assert server.received[0].fields["language"] == "en"


def test_transient_failures_are_retried(server: FakeServer) -> None:
    server.replies += [(503, {"error": {"message": "loading model"}}), (429, "slow down"), (200, {"text": "ok"})]
    heard = _route(server, max_retries=3).transcribe(_clip(), "en")
    assert heard.text == "ok"
    assert heard.details["attempts"] == 3
    assert len(server.received) == 3


def test_retries_are_bounded(server: FakeServer) -> None:
    server.replies += [(503, {"error": {"message": "loading model"}})] * 3
    with pytest.raises(AsrError, match=r"HTTP 503: loading model \(gave up after 2 attempts\)"):
        _route(server, max_retries=1).transcribe(_clip(), "en")
    assert len(server.received) == 2


def test_client_errors_fail_at_once_without_the_key(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASR_TEST_KEY", "sk-secret-abcdef")
    server.replies.append((401, {"error": {"message": "Incorrect API key provided: sk-secret-abcdef", "code": "bad"}}))
    with pytest.raises(AsrError) as caught:
        _route(server, api_key_env="ASR_TEST_KEY").transcribe(_clip(), "en")
    message = str(caught.value)
    assert "HTTP 401" in message and "Incorrect API key provided" in message
    assert "sk-secret-abcdef" not in message and "[REDACTED]" in message
    assert len(server.received) == 1


def test_answer_without_text_is_an_error(server: FakeServer) -> None:
    server.replies.append((200, {"transcript": "wrong field"}))
    with pytest.raises(AsrError, match="no 'text' string"):
        _route(server).transcribe(_clip(), "en")


def test_unset_key_variable_is_named(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASR_UNSET_KEY", raising=False)
    with pytest.raises(AsrError, match="environment variable ASR_UNSET_KEY is not set"):
        _route(server, api_key_env="ASR_UNSET_KEY").transcribe(_clip(), "en")
    assert server.received == []


def test_unreachable_server_is_an_error_after_retries() -> None:
    route = create_route(
        {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "max_retries": 1, "retry_min_wait_s": 0.01}
    )
    with pytest.raises(AsrError, match=r"ConnectError.*\(gave up after 2 attempts\)"):
        route.transcribe(_clip(), "en")


def test_retry_after_is_honoured_like_the_engines(server: FakeServer) -> None:
    """One retry policy for engines and routes: a wait longer than retry_max_wait_s fails at once."""
    server.replies.append((429, {"error": {"message": "rate limited"}}, {"Retry-After": "3600"}))
    with pytest.raises(AsrError, match=r"HTTP 429: rate limited \(the provider asked to wait 3600 s"):
        _route(server, max_retries=3).transcribe(_clip(), "en")
    assert len(server.received) == 1


def test_not_implemented_is_not_retried(server: FakeServer) -> None:
    server.replies += [(501, {"error": {"message": "no such model"}})] * 2
    with pytest.raises(AsrError, match="HTTP 501: no such model"):
        _route(server, max_retries=3).transcribe(_clip(), "en")
    assert len(server.received) == 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"base_url": "ftp://x"}, "base_url must be an http"),
        ({"modle": "typo"}, "unknown field"),
    ],
)
def test_bad_specs(spec: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_route({"type": "openai", **spec})


KEY = "sk-SECRET-CANARY-1-abcdefgh"


def _leaks(text: str, width: int = 8) -> bool:
    return any(KEY[i : i + width] in text for i in range(len(KEY) - width + 1))


@pytest.mark.parametrize(
    "reply",
    [
        (401, "x" * 270 + f" Bearer {KEY} refused"),
        (200, {"detail": "x" * 170 + KEY}),
        (200, "y" * 180 + KEY),
    ],
)
def test_key_in_a_long_answer_is_redacted_before_it_is_shortened(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch, reply: tuple[int, dict | str]
) -> None:
    monkeypatch.setenv("ASR_TEST_KEY", KEY)
    server.replies.append(reply)
    with pytest.raises(AsrError) as caught:
        _route(server, api_key_env="ASR_TEST_KEY", max_retries=0).transcribe(_clip(), "en")
    assert not _leaks(str(caught.value)), str(caught.value)


def test_key_echoed_in_the_transcript_is_redacted(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASR_TEST_KEY", KEY)
    server.replies.append((200, {"text": f"you said {KEY}"}))
    heard = _route(server, api_key_env="ASR_TEST_KEY").transcribe(_clip(), "en")
    assert heard.text == "you said [REDACTED]"


def test_an_answer_larger_than_a_transcript_is_an_error(server: FakeServer) -> None:
    server.replies.append((200, "x" * (MAX_TRANSCRIPT_BYTES + 10)))
    with pytest.raises(AsrError, match="response larger than"):
        _route(server, max_retries=0).transcribe(_clip(), "en")


def test_extra_form_fields_arrive_with_the_upload(server: FakeServer) -> None:
    """FunASR's OpenAI-compatible server decodes as the benchmark did only with its own form fields."""
    server.replies.append((200, {"text": "歼二十"}))
    extra = {"use_itn": False, "hotword": "歼二十 运二十", "beam_size": 1}
    _route(server, model="paraformer-zh", extra_form=extra).transcribe(_clip(), "zh")
    assert server.received[0].fields == {
        "model": "paraformer-zh", "language": "zh", "response_format": "json",
        "use_itn": "false", "hotword": "歼二十 运二十", "beam_size": "1",
    }  # fmt: skip
    assert server.received[0].file_name == "clip.wav"


@pytest.mark.parametrize(
    ("spec", "reply", "heard"),
    [
        ({}, "language Chinese<asr_text>航展首日，歼二十亮相。", "航展首日，歼二十亮相。"),
        ({}, " language English<asr_text> In 2026.", "In 2026."),
        ({}, "In 2026, language English<asr_text> stays.", "In 2026, language English<asr_text> stays."),
        ({"strip_prefix": r"<\|[a-z]+\|>"}, "<|zh|>歼二十", "歼二十"),
        ({"strip_prefix": ""}, "language Chinese<asr_text>歼二十", "language Chinese<asr_text>歼二十"),
    ],
)
def test_strip_prefix(server: FakeServer, spec: dict, reply: str, heard: str) -> None:
    server.replies.append((200, {"text": reply}))
    transcription = _route(server, **spec).transcribe(_clip(), "zh")
    assert transcription.text == heard
    assert ("stripped_prefix" in transcription.details) == (heard != reply.strip())


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"extra_form": ["use_itn"]}, "extra_form must be a mapping"),
        ({"extra_form": {"options": {"a": 1}}}, "extra_form field 'options' must be a string"),
        ({"extra_form": {"file": "x"}}, "extra_form field 'file'"),
        ({"strip_prefix": "("}, "strip_prefix '\\(' is not a regular expression"),
    ],
)
def test_bad_new_fields(spec: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_route({"type": "openai", **spec})
