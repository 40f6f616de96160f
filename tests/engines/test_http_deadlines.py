"""``timeout_s`` is a deadline for the whole request, not a bound on each read.

Real servers on 127.0.0.1 keep the connection alive without finishing (``tests/fakes/
misbehaving_http.py``): each would go on for a minute; the request must end within about its
deadline, as an error that names it. The elapsed-time bounds are far above the deadline and
far below the minute: they check that the request was cut, not how fast.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from misbehaving_http import PLAY_SECONDS, PLAYS, MisbehavingServer
from plugin_projects import read_jsonl, write_cloud_echo_project
from tts_providers import FakeOpenAI, Fault

from pytest_ttsbench.asr.base import AsrError
from pytest_ttsbench.asr.registry import create_route
from pytest_ttsbench.audio.decoding import DecodedAudio
from pytest_ttsbench.engines.base import EngineError
from pytest_ttsbench.support import httpclient
from pytest_ttsbench.support.httpclient import ClientOptions, HttpClient, ProviderPolicy
from pytest_ttsbench.support.redaction import Redactor

# Well below PLAY_SECONDS: a request that got here was not cut by its deadline.
WELL_BEFORE_THE_PLAY_ENDS = PLAY_SECONDS / 3


def client(url: str, **options: float) -> HttpClient:
    merged = {"timeout_s": 0.5, "connect_timeout_s": 0.5, "max_retries": 0, "retry_min_wait_s": 0.01, **options}
    return HttpClient(
        ClientOptions(base_url=url, **merged),  # type: ignore[arg-type]
        ProviderPolicy("test"),
        Redactor(),
        label="test profile",
        error_type=EngineError,
    )


@pytest.fixture(scope="module")
def server() -> Iterator[MisbehavingServer]:
    """One server for every play: the request path names the play, its pace and its step."""
    running = MisbehavingServer().start()
    yield running
    running.stop()


@pytest.mark.parametrize("play", sorted(PLAYS))
def test_a_server_that_never_finishes_is_cut_at_the_deadline(server: MisbehavingServer, play: str) -> None:
    http = client(server.url)
    started = time.monotonic()
    with pytest.raises(EngineError, match=r"deadline.*timeout_s") as info:
        http.request("GET", f"/{play}/0.05/1")
    elapsed = time.monotonic() - started
    http.close()
    assert "0.5 s deadline" in str(info.value)
    assert elapsed < WELL_BEFORE_THE_PLAY_ENDS


def test_a_server_that_stops_reading_the_upload_is_cut_at_the_deadline(server: MisbehavingServer) -> None:
    """The deadline covers sending too: 20 MB to a server that reads only the headers fills the socket."""
    http = client(server.url)
    started = time.monotonic()
    with pytest.raises(EngineError, match="deadline"):
        http.request("POST", "/silent/0.05/1", content=bytes(20 * 1024 * 1024))
    http.close()
    assert time.monotonic() - started < WELL_BEFORE_THE_PLAY_ENDS


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    play=st.sampled_from(["slow_headers", "trickle_body", "endless_chunked", "slow_status"]),
    interval=st.floats(min_value=0.005, max_value=0.2),
    step=st.integers(min_value=1, max_value=512),
)
def test_no_trickle_pattern_outlives_the_deadline(
    server: MisbehavingServer, play: str, interval: float, step: int
) -> None:
    http = client(server.url, timeout_s=0.3, connect_timeout_s=0.3)
    started = time.monotonic()
    with pytest.raises(EngineError, match="deadline"):
        http.request("GET", f"/{play}/{interval}/{step}")
    elapsed = time.monotonic() - started
    http.close()
    assert elapsed < WELL_BEFORE_THE_PLAY_ENDS


def test_retries_of_a_trickle_each_get_their_own_deadline(server: MisbehavingServer) -> None:
    before = server.connections
    http = client(server.url, timeout_s=0.3, max_retries=2)
    started = time.monotonic()
    with pytest.raises(EngineError, match=r"deadline.*gave up after 3 attempts"):
        http.request("GET", "/trickle_body/0.05/1")
    elapsed = time.monotonic() - started
    http.close()
    assert server.connections - before == 3  # each timed-out connection is dropped, not reused
    assert elapsed < WELL_BEFORE_THE_PLAY_ENDS


def test_a_retry_whose_wait_would_end_past_the_overall_deadline_is_not_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The request and its retries end by overall_deadline_s: (max_retries + 1) x timeout_s + waits."""
    fake = FakeOpenAI(key=None).start()
    # The jitter at its largest: each wait is the provider's 0.5 s plus 0.5 s, more than the bound
    # allows for it (retry_max_wait_s), so the waits eat into the attempts' share. The bound is
    # 5 x 0.2 + 4 x 0.5 = 3 s: two waits fit, a third would end past it.
    monkeypatch.setattr(httpclient.random, "uniform", lambda low, high: high)
    fake.enqueue(*[Fault("rate_limit", retry_after="0.5")] * 5)
    http = client(fake.url, timeout_s=0.2, max_retries=4, retry_min_wait_s=0.5, retry_max_wait_s=0.5)
    try:
        with pytest.raises(EngineError, match=r"HTTP 429.*gave up after 3 attempts; another would end past") as info:
            http.request("POST", "/v1/audio/speech", content=b"{}")
    finally:
        http.close()
        fake.stop()
    assert f"overall deadline of {http.options.overall_deadline_s:g} s" in str(info.value)
    assert len(fake.requests) == 3


def test_the_asr_openai_route_has_the_same_deadline() -> None:
    """A recognizer behind the OpenAI transcription API that trickles its answer fails the route in time."""
    server = MisbehavingServer(PLAYS["trickle_body"], interval=0.1).start()
    route = create_route({"type": "openai", "base_url": server.url + "/v1", "timeout_s": 0.5, "max_retries": 0})
    clip = DecodedAudio(np.zeros(16_000, np.float32), 16_000, 16_000, 1, "wav", 2)
    started = time.monotonic()
    try:
        with pytest.raises(AsrError, match=r"0.5 s deadline.*timeout_s"):
            route.transcribe(clip, "en")
    finally:
        route.close()
        server.stop()
    assert time.monotonic() - started < WELL_BEFORE_THE_PLAY_ENDS


def test_the_overall_deadline_is_every_attempt_and_every_wait() -> None:
    options = ClientOptions(base_url="http://x", timeout_s=3, max_retries=2, retry_max_wait_s=5)
    assert options.overall_deadline_s == 3 * 3 + 2 * 5


CASES = """\
suite: dl
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
"""


def test_a_trickling_server_is_an_error_row_naming_the_deadline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, failure 9: headers, then one byte every 0.5 s, held an item for 45 s with timeout_s: 3."""
    server = MisbehavingServer(PLAYS["trickle_body"], interval=0.5).start()
    monkeypatch.setenv("TTSBENCH_DEADLINE_KEY", "deadline-test-key")
    write_cloud_echo_project(
        pytester, {"dl.yaml": CASES}, server.url, "TTSBENCH_DEADLINE_KEY", timeout_s=3, max_retries=0
    )
    started = time.monotonic()
    try:
        result = pytester.runpytest("--tts-engine=cloud", "--tts-results=run/results.jsonl")
    finally:
        elapsed = time.monotonic() - started
        server.stop()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (row,) = read_jsonl(Path(pytester.path, "run", "results.jsonl"))
    assert row["verdict"] == "error" and row["error_stage"] == "synthesis"
    assert "3 s deadline" in row["error"] and "timeout_s" in row["error"]
    assert elapsed < WELL_BEFORE_THE_PLAY_ENDS
    result.stdout.fnmatch_lines(["*deadline*"])
    assert json.dumps(row)  # the row is plain JSON
