"""The shared HTTP machinery: Retry-After parsing, body checks, redaction, concurrency and rate limits."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from datetime import datetime, timezone

import pytest
from engine_rig import SECRET
from tts_providers import pcm_bytes, wav_bytes

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, SynthesisRequest
from pytest_ttsbench.engines.http import HttpOptions, ensure_audio, wav_shortfall
from pytest_ttsbench.engines.openai import OpenAIEngine
from pytest_ttsbench.engines.secrets import read_api_key
from pytest_ttsbench.support.httpclient import (
    HttpClient,
    ProviderPolicy,
    html_summary,
    json_error_message,
    parse_retry_after,
)
from pytest_ttsbench.support.redaction import REDACTED, Redactor, redact

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"Retry-After": "Sun, 01 Mar 2026 12:00:30 GMT"}, 30.0),
        ({"Retry-After": "Sun, 01 Mar 2026 11:59:00 GMT"}, 0.0),  # a date in the past: go now
        ({"retry-after-ms": "250", "Retry-After": "3"}, 0.25),  # OpenAI's finer header wins
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers, seconds):
    assert parse_retry_after(headers, now=NOW) == seconds


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"error": {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"}},
         "invalid_api_key: Incorrect API key"),
        ({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}},
         "RESOURCE_EXHAUSTED: Quota exceeded"),
        ({"detail": {"status": "voice_not_found", "message": "No such voice"}}, "voice_not_found: No such voice"),
        ({"detail": [{"loc": ["body", "text"], "msg": "Field required", "type": "missing"}]},
         "body.text: Field required"),
        ({"detail": "Model not installed"}, "Model not installed"),
        ({"status": 402, "message": "Insufficient credits"}, "Insufficient credits"),
        ({"Message": "Rate exceeded"}, "Rate exceeded"),
        ({"error": "Unauthorized"}, "Unauthorized"),
        ({"audio": "nothing wrong here"}, None),
        (["not", "a", "mapping"], None),
    ],
)  # fmt: skip
def test_json_error_message_reads_each_providers_shape(document, message):
    assert json_error_message(document) == message


def test_html_summary_prefers_title_and_heading():
    page = b"<html><head><title>Sign in &amp; continue</title></head><body><h1>Welcome</h1></body></html>"
    assert html_summary(page) == "Sign in & continue: Welcome"
    assert html_summary(b"<html><body><p>Service <b>down</b></p><script>x()</script></body></html>") == ("Service down")


def test_wav_shortfall():
    full = wav_bytes(16000)
    assert wav_shortfall(full) is None
    cut = full[: len(full) // 2]
    declared, present = wav_shortfall(cut)
    assert declared == len(full) - 44 and present == len(cut) - 44
    assert wav_shortfall(wav_bytes(16000, placeholder_sizes=True)[:1000]) is None  # streaming placeholder
    assert wav_shortfall(b"ID3\x03 mp3 data") is None


def _client(redactor: Redactor | None = None) -> HttpClient:
    return HttpClient(
        HttpOptions(base_url="http://127.0.0.1:9"),
        ProviderPolicy("t"),
        redactor or Redactor(),
        label="t profile 'x'",
        error_type=EngineError,
    )


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b"", "audio/wav", "empty body"),
        (b"<!doctype html><title>Login</title>", "audio/mpeg", "HTML page instead of audio: Login"),
        (b'{"error": {"message": "model overloaded"}}', "application/json", "model overloaded"),
        (b"upstream connect error", "text/plain", "text/plain instead of audio: upstream connect error"),
    ],
)
def test_ensure_audio_refuses_bodies_that_are_not_audio(body, content_type, expected):
    with pytest.raises(EngineError, match=expected):
        ensure_audio(body, content_type, _client())


def test_ensure_audio_accepts_pcm_that_happens_to_start_like_json():
    body = b"{" + pcm_bytes(16000)[1:]
    ensure_audio(body, "audio/pcm", _client())  # no exception: it is not a JSON document


def test_redactor_scrubs_values_and_their_quoted_forms():
    secret = "ab+cd/ef=gh"
    text = f"key={secret} url=https://x/?key=ab%2Bcd%2Fef%3Dgh header=ab%2Bcd%2Fef%3Dgh"
    scrubbed = redact(text, [secret])
    assert "ab+cd" not in scrubbed and "ab%2B" not in scrubbed
    assert scrubbed.count(REDACTED) == 3
    assert redact("short abc stays", ["abc", None]) == "short abc stays"  # too short to be a credential


def test_client_errors_are_redacted():
    client = _client(Redactor([SECRET]))
    assert str(client.error(f"bad key {SECRET}")) == f"t profile 'x': bad key {REDACTED}"


def test_read_api_key(monkeypatch, tmp_path):
    profile = EngineProfile(name="p", type="google", api_key_env="TTSBENCH_NOT_SET_ANYWHERE", base_dir=tmp_path)
    monkeypatch.delenv("TTSBENCH_NOT_SET_ANYWHERE", raising=False)
    with pytest.raises(EngineUnavailable, match="TTSBENCH_NOT_SET_ANYWHERE is not set"):
        read_api_key(profile)
    monkeypatch.setenv("TTSBENCH_NOT_SET_ANYWHERE", "  value-123  ")
    assert read_api_key(profile) == "value-123"
    bare = EngineProfile(name="p", type="google", base_dir=tmp_path)
    with pytest.raises(EngineUnavailable, match="api_key_env"):
        read_api_key(bare)
    assert read_api_key(bare, required=False) is None


def _run_parallel(engine, count: int) -> list[BaseException]:
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            engine.synthesize(SynthesisRequest(text=str(i), language="en"))
        except BaseException as exc:  # collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_concurrency_limit_serialises_requests(rig_factory):
    rig = rig_factory("openai")
    rig.fake.first_byte_delay_s = 0.15
    engine = rig.engine(concurrency=1)
    assert _run_parallel(engine, 3) == []
    engine.close()
    arrivals = sorted(r.at for r in rig.fake.requests)
    assert all(b - a >= 0.14 for a, b in itertools.pairwise(arrivals))


def test_concurrency_allows_parallel_requests(rig_factory):
    rig = rig_factory("openai")
    rig.fake.first_byte_delay_s = 0.3
    engine = rig.engine(concurrency=3)
    assert _run_parallel(engine, 3) == []
    engine.close()
    arrivals = sorted(r.at for r in rig.fake.requests)
    assert arrivals[-1] - arrivals[0] < 0.25  # one at a time would take at least 0.6 s


def test_request_rate_limit_spaces_request_starts(rig_factory):
    rig = rig_factory("openai")
    engine = rig.engine(requests_per_second=8, concurrency=4)
    started = time.monotonic()
    assert _run_parallel(engine, 4) == []
    engine.close()
    arrivals = sorted(r.at for r in rig.fake.requests)
    # The limiter lets the k-th request start no sooner than k/8 s after the first; a busy machine
    # can only delay an arrival, never bring it forward, so the k-th arrival is at least k × 0.125 s
    # (0.1 s, leaving room for the clock's resolution) after the run started. Gaps between arrivals
    # are no measure: a late arrival shrinks the gap to the next one.
    assert len(arrivals) == 4
    assert all(at - started >= k * 0.1 for k, at in enumerate(arrivals)), [at - started for at in arrivals]


def test_connection_refused_is_retried_then_reported(secret_env, tmp_path):
    sock = socket.socket()  # a port nobody listens on
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    profile = EngineProfile(
        name="gone", type="openai", api_key_env="TTSBENCH_TEST_TTS_KEY", base_dir=tmp_path,
        options={"base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 2, "retry_min_wait_s": 0.01},
    )  # fmt: skip
    engine = OpenAIEngine(profile)
    start = time.perf_counter()
    with pytest.raises(EngineError, match=r"connection failed.*gave up after 3 attempts"):
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    assert time.perf_counter() - start < 2
    engine.close()
