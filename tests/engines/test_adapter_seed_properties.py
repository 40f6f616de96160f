"""Properties over the two families of replies that end in error with HTTP 200.

* A Volcengine stream is audio only when it reaches its final ``20000000`` object before any
  other code: whatever the chunking, the sentence objects in between, and wherever an error
  object or the end of the body falls, the result is the joined PCM or an error in the
  provider's words, never a clip cut short.
* A MiniMax ``base_resp`` with any status code other than 0 is never audio: throttling codes are
  retried and then succeed, every other code is one request and an error carrying ``status_msg``.
"""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tts_providers import Fault

from pytest_ttsbench.engines.base import EngineError, SynthesisRequest
from pytest_ttsbench.engines.minimax import THROTTLING_CODES
from pytest_ttsbench.engines.volcengine import FINISHED, StreamError, read_stream

chunks = st.lists(st.binary(min_size=2, max_size=64).map(lambda b: b[: len(b) // 2 * 2]), min_size=0, max_size=8)
codes = st.integers(min_value=1, max_value=99_999_999).filter(lambda c: c != FINISHED)
messages = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(str.strip)


def line(document: dict) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode() + b"\n"


@given(
    pcm=chunks,
    sentences=st.lists(st.booleans(), max_size=8),
    error=st.none() | st.tuples(st.integers(min_value=0, max_value=8), codes, messages),
    final=st.booleans(),
    trailing=st.booleans(),
)
def test_a_stream_is_audio_only_when_it_reaches_its_final_object_first(pcm, sentences, error, final, trailing):
    body = b""
    error_at = error[0] if error else None
    for index, piece in enumerate(pcm):
        if error_at == index:
            body += line({"code": error[1], "message": error[2], "data": None})
        if index < len(sentences) and sentences[index]:
            body += line({"code": 0, "message": "", "data": None, "sentence": {"text": "x"}})
        body += line({"code": 0, "message": "", "data": base64.b64encode(piece).decode()})
    if error is not None and error_at >= len(pcm):
        body += line({"code": error[1], "message": error[2], "data": None})
    if final:
        body += line({"code": FINISHED, "message": "OK", "data": None})
    if trailing:
        body += line({"code": 0, "message": "", "data": base64.b64encode(b"late").decode()})  # after the end

    audio = b"".join(pcm)
    if error is not None:
        with pytest.raises(StreamError) as info:
            read_stream(body, bytes.decode)
        assert f"Volcengine code {error[1]}: {error[2]}" in str(info.value)
    elif not final:
        with pytest.raises(StreamError, match=f"without its final code {FINISHED}"):
            read_stream(body, bytes.decode)
    elif not audio:
        with pytest.raises(StreamError, match="without any audio"):
            read_stream(body, bytes.decode)
    else:
        stream = read_stream(body, bytes.decode)
        assert stream.pcm == audio  # nothing after the final object, nothing lost before it
        first = next(i for i, p in enumerate(pcm) if p)
        assert body[: stream.first_data_end].count(base64.b64encode(pcm[first])) == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(code=st.sampled_from(sorted(THROTTLING_CODES)) | st.integers(min_value=1, max_value=99_999), message=messages)
def test_every_nonzero_base_resp_is_retried_or_an_error(rig_factory, code, message):
    rig = rig_factory("minimax")
    body = {"data": None, "trace_id": "t", "base_resp": {"status_code": code, "status_msg": message}}
    rig.fake.enqueue(
        Fault("raw", status=200, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    )
    engine = rig.engine()
    try:
        if code in THROTTLING_CODES:
            result = engine.synthesize(SynthesisRequest(text="1", language="en"))
            assert len(rig.fake.requests) == 2 and result.audio[:4] == b"RIFF"
        else:
            with pytest.raises(EngineError) as info:
                engine.synthesize(SynthesisRequest(text="1", language="en"))
            assert f"status_code {code}: {message}" in str(info.value)
            assert len(rig.fake.requests) == 1
    finally:
        engine.close()
        rig.fake.stop()
