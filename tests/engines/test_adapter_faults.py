"""Every HTTP adapter against its fake: valid audio, and the same faults handled the same way.

Each test runs once per provider, so a fault one adapter mishandles shows up by name. The
fakes answer in each provider's own error shape; the assertions look for the provider's
message in the raised EngineError and never for the secret key.
"""

from __future__ import annotations

import time

import pytest
from engine_rig import NO_RETRY_AFTER, PROVIDERS, REFUSED_KEY_MARK, SECRET, THROTTLED_MARK, leaked_fragment
from tts_providers import TONE_SECONDS, Fault

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.engines.base import EngineError, Synthesis, SynthesisRequest

REQUEST = SynthesisRequest(text="The plant opened in 2026.", language="en", item_id="year-2026")


def chain_text(exc: BaseException) -> str:
    """The exception and everything chained to it, as a traceback printer could show them."""
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        parts.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


def decoded_seconds(result: Synthesis) -> float:
    return decode_audio(result.audio, result.pcm_sample_rate).seconds


@pytest.fixture(params=PROVIDERS)
def rig(request, rig_factory):
    return rig_factory(request.param)


def test_clean_request_returns_decodable_audio_with_timings(rig):
    engine = rig.engine()
    try:
        result = engine.synthesize(REQUEST)
    finally:
        engine.close()
    assert decoded_seconds(result) == pytest.approx(TONE_SECONDS, abs=0.08)
    assert result.first_byte_seconds is not None
    assert 0 <= result.first_byte_seconds <= result.metadata["total_seconds"]
    assert result.metadata["attempts"] == 1 and result.metadata["http_status"] == 200
    assert len(rig.fake.requests) == 1
    assert SECRET not in repr(result.metadata)


def test_rate_limit_is_retried_then_succeeds(rig):
    rig.fake.enqueue(Fault("rate_limit"))
    engine = rig.engine()
    result = engine.synthesize(REQUEST)
    engine.close()
    assert len(rig.fake.requests) == 2
    assert result.metadata["retries"] == 1
    assert THROTTLED_MARK.get(rig.provider, "429") in result.metadata["retry_reasons"][0]
    assert decoded_seconds(result) > 0.5


def test_server_error_then_success(rig):
    rig.fake.enqueue(Fault("server_error"))
    engine = rig.engine()
    result = engine.synthesize(REQUEST)
    engine.close()
    assert len(rig.fake.requests) == 2 and result.metadata["attempts"] == 2
    assert decoded_seconds(result) > 0.5


def test_persistent_server_errors_give_up_after_max_retries(rig):
    rig.fake.enqueue(*[Fault("server_error")] * 5)
    engine = rig.engine(max_retries=2)
    with pytest.raises(EngineError, match="gave up after 3 attempts") as info:
        engine.synthesize(REQUEST)
    engine.close()
    assert len(rig.fake.requests) == 3
    assert "HTTP 5" in str(info.value)


def test_hang_past_timeout_is_retried_then_fails(rig):
    rig.fake.enqueue(*[Fault("hang", seconds=3)] * 2)
    engine = rig.engine(timeout_s=0.3, max_retries=1)
    start = time.perf_counter()
    with pytest.raises(EngineError, match=r"timeout_s.*gave up after 2 attempts"):
        engine.synthesize(REQUEST)
    elapsed = time.perf_counter() - start
    engine.close()
    assert len(rig.fake.requests) == 2
    assert 0.55 < elapsed < 3.5


def test_hang_once_then_success(rig):
    rig.fake.enqueue(Fault("hang", seconds=3))
    engine = rig.engine(timeout_s=0.3)
    result = engine.synthesize(REQUEST)
    engine.close()
    assert result.metadata["retries"] == 1
    assert "timeout_s" in result.metadata["retry_reasons"][0]


def test_stalled_body_counts_as_timeout(rig):
    rig.fake.enqueue(*[Fault("stall", seconds=3)] * 2)
    engine = rig.engine(timeout_s=0.3, max_retries=1)
    with pytest.raises(EngineError, match=r"body unfinished.*deadline.*timeout_s"):
        engine.synthesize(REQUEST)
    engine.close()


def test_truncated_body_is_an_engine_error(rig):
    rig.fake.enqueue(*[Fault("truncate")] * 3)
    engine = rig.engine(max_retries=2)
    with pytest.raises(EngineError, match="cut short"):
        engine.synthesize(REQUEST)
    engine.close()
    assert len(rig.fake.requests) == 3


def test_html_page_with_200_names_the_page(rig):
    rig.fake.enqueue(Fault("html"))
    engine = rig.engine()
    with pytest.raises(EngineError, match="HTML page") as info:
        engine.synthesize(REQUEST)
    engine.close()
    assert "502 Bad Gateway - Corporate Proxy" in str(info.value)
    assert len(rig.fake.requests) == 1  # a 200 is final: no retry


def test_json_error_carries_the_providers_message_without_the_key(rig):
    rig.fake.enqueue(Fault("error", status=400, message="Your key {key} cannot use voice 'zz'"))
    engine = rig.engine()
    with pytest.raises(EngineError) as info:
        engine.synthesize(REQUEST)
    engine.close()
    message = str(info.value)
    assert "cannot use voice 'zz'" in message and "HTTP 400" in message
    assert SECRET not in chain_text(info.value) and "[REDACTED]" in message
    assert len(rig.fake.requests) == 1  # a 400 is not retried


def test_key_echoed_by_retried_errors_is_scrubbed_from_the_final_error(rig):
    rig.fake.enqueue(*[Fault("error", status=503, message="backend saw key {key} and fell over")] * 3)
    engine = rig.engine(max_retries=2)
    with pytest.raises(EngineError, match=r"fell over.*gave up after 3 attempts") as info:
        engine.synthesize(REQUEST)
    engine.close()
    assert SECRET not in chain_text(info.value)


def test_json_error_sent_with_200_is_not_audio(rig):
    rig.fake.enqueue(Fault("json200", message="quota for {key} is used up"))
    engine = rig.engine()
    with pytest.raises(EngineError, match=r"quota for .* is used up") as info:
        engine.synthesize(REQUEST)
    engine.close()
    assert SECRET not in str(info.value)


def test_wrong_key_is_reported_without_echoing_it(rig_factory):
    for provider in PROVIDERS:
        rig = rig_factory(provider, key="the-key-the-server-wants")
        engine = rig.engine()
        with pytest.raises(EngineError) as info:
            engine.synthesize(REQUEST)
        engine.close()
        message = str(info.value)
        assert SECRET not in chain_text(info.value), provider
        assert REFUSED_KEY_MARK.get(provider, "HTTP 40") in message, provider
        assert len(rig.fake.requests) == 1, provider


# Polly and MiniMax send no Retry-After (they throttle with a 400 and a 200), so they have no such case.
@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p not in NO_RETRY_AFTER])
def test_long_retry_after_fails_fast_instead_of_waiting(provider, rig_factory):
    rig = rig_factory(provider)
    rig.fake.enqueue(Fault("rate_limit", retry_after="3600"))
    engine = rig.engine(retry_max_wait_s=2)
    start = time.perf_counter()
    with pytest.raises(EngineError, match="asked to wait 3600 s"):
        engine.synthesize(REQUEST)
    engine.close()
    assert time.perf_counter() - start < 1.0
    assert len(rig.fake.requests) == 1


@pytest.mark.parametrize(
    "fault",
    [
        Fault("raw", status=401, body=b"x" * 270 + f" Bearer {SECRET} was refused".encode(),
              headers={"Content-Type": "text/plain"}),
        Fault("raw", status=200, body=b"x" * 270 + f" Bearer {SECRET} was refused".encode(),
              headers={"Content-Type": "text/plain"}),
        Fault("error", status=401, message="x" * 270 + " Bearer {key} was refused"),
    ],
    ids=["text-401", "text-200", "json-401"],
)  # fmt: skip
def test_a_key_after_long_padding_is_redacted_before_the_message_is_shortened(rig, fault):
    # A plain-text body is quoted cut at 300 characters; the key starts just before the cut.
    rig.fake.enqueue(fault)
    engine = rig.engine()
    with pytest.raises(EngineError) as info:
        engine.synthesize(REQUEST)
    engine.close()
    assert leaked_fragment(chain_text(info.value)) is None, chain_text(info.value)
