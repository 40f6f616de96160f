"""An `openai` route's ``concurrency``: how many of its requests one pytest process keeps in flight.

Measured by a real OpenAI-format server on 127.0.0.1 that counts the requests it holds at once
(``tests/fakes/transcription_server.py``) and keeps each waiting until the expected number is in
flight, so nothing here depends on timing: a client that never sends that many together leaves
the count short, and the assertions say so.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from plugin_projects import read_jsonl
from transcription_server import ServerFault, TranscriptionServer

from pytest_ttsbench.asr.base import AsrError
from pytest_ttsbench.asr.openai_route import MAX_CONCURRENCY, OpenAITranscriptionRoute
from pytest_ttsbench.asr.registry import create_route
from pytest_ttsbench.audio.decoding import DecodedAudio
from pytest_ttsbench.run_model.provenance import header_path


def _clip() -> DecodedAudio:
    t = np.arange(8000) / 16000
    return DecodedAudio((0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), 16000, 16000, 1, "wav", 2)


def _heard(audio: DecodedAudio, language: str) -> str:
    return "It opened in 2001."


@given(
    st.one_of(
        st.integers(min_value=-5, max_value=MAX_CONCURRENCY + 5),
        st.booleans(),
        st.floats(allow_nan=False, min_value=0, max_value=10),
        st.text(max_size=3),
        st.none(),
    )
)
def test_concurrency_is_a_whole_number_of_requests(value: Any) -> None:
    # a whole number as the one number check reads it (support/checked_numbers): 2 and 2.0 alike
    whole = isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
    valid = whole and 1 <= value <= MAX_CONCURRENCY
    for kind in ("openai", "chat"):
        spec = {"type": kind, "model": "whisper-1", "name": "shared", "concurrency": value}
        if value is None or valid:  # a field left empty is the default
            route = create_route(spec)
            assert isinstance(route, OpenAITranscriptionRoute)  # the chat route is one too
            assert route.concurrency == (1 if value is None else value)
        else:
            with pytest.raises(
                ValueError, match=rf"{kind} route 'shared': (field )?concurrency\b.* must be a whole number"
            ):
                create_route(spec)


@pytest.mark.parametrize(("concurrency", "clips"), [(1, 3), (2, 4), (3, 3), (4, 2), (3, 7)])
def test_clips_handed_over_together_keep_the_routes_concurrency_in_flight(concurrency: int, clips: int) -> None:
    """The pipeline's transcription across items hands the route several clips: min(concurrency, clips) at once."""
    expected = min(concurrency, clips)
    with TranscriptionServer(_heard, hold_until_in_flight=expected, hold_timeout_s=30) as server:
        route = create_route({"type": "openai", "base_url": server.url, "concurrency": concurrency})
        assert isinstance(route, OpenAITranscriptionRoute) and route.items_batch == concurrency
        outcomes = route.transcribe_together([_clip() for _ in range(clips)], "en")
        route.close()
    assert [getattr(outcome, "text", outcome) for outcome in outcomes] == ["It opened in 2001."] * clips
    assert server.most_in_flight == expected
    assert [fields["language"] for fields in server.requests] == ["en"] * clips


def test_a_failed_request_among_clips_handed_over_together_fails_only_its_clip() -> None:
    calls = itertools.count(1)

    def heard(audio: DecodedAudio, language: str) -> str:
        if next(calls) == 2:  # itertools.count is atomic: exactly one request is the second
            raise ServerFault(500, "model crashed on this clip")
        return "It opened in 2001."

    with TranscriptionServer(heard) as server:
        route = create_route({"type": "openai", "base_url": server.url, "concurrency": 3, "max_retries": 0})
        assert isinstance(route, OpenAITranscriptionRoute)
        outcomes = route.transcribe_together([_clip() for _ in range(3)], "en")
        route.close()
    errors = [outcome for outcome in outcomes if isinstance(outcome, AsrError)]
    assert len(errors) == 1 and "model crashed on this clip" in str(errors[0])
    assert sum(getattr(outcome, "text", None) == "It opened in 2001." for outcome in outcomes) == 2


YEARS = [2001, 2002, 2003, 2004, 2005, 2006, 2007]


def _project(pytester: pytest.Pytester, url: str, **route: Any) -> Path:
    items = "".join(
        f'  - {{id: y{year}, category: years, text: "It opened in {year}.", expect: {{values: ["{year}"]}}}}\n'
        for year in YEARS
    )
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "years.yaml").write_text(
        f"suite: years\nlanguage: en\nscorer: numbers\nitems:\n{items}", encoding="utf-8"
    )
    spec = {"type": "openai", "base_url": url, "model": "tiny.en", "name": "shared", "max_retries": 0, **route}
    espeak = {"type": "espeak", "voice": "en-us"}
    config = {"cases": ["cases"], "asr": {"routes": [spec]}, "engines": {"espeak": espeak}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    return pytester.path


@pytest.mark.parametrize("concurrency", [3, 4])
def test_a_run_never_has_more_than_the_routes_concurrency_in_flight(
    pytester: pytest.Pytester, concurrency: int
) -> None:
    """Later tests' clips go with this test's (how many are ready depends on the machine): never more
    than ``concurrency`` at once, each clip sent once, each row its own transcript."""
    with TranscriptionServer(_heard) as server:
        project = _project(pytester, server.url, concurrency=concurrency)
        run = pytester.runpytest("--tts-engine=espeak", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider")
    assert 1 <= server.most_in_flight <= concurrency
    assert len(server.requests) == len(YEARS)
    rows = read_jsonl(project / "run" / "results.jsonl")
    assert sorted(row["id"] for row in rows) == [f"years/y{year}" for year in YEARS]
    assert all(row["transcripts"] == {"shared": "It opened in 2001."} for row in rows)
    assert [row["verdict"] for row in rows].count("correct") == 1  # heard as sent: only y2001 is right
    run.assert_outcomes(passed=1, failed=len(YEARS) - 1)
    header = json.loads(header_path(project / "run" / "results.jsonl").read_text(encoding="utf-8"))
    assert header["asr"]["espeak"][0]["concurrency"] == concurrency


def test_by_default_a_run_sends_one_clip_at_a_time(pytester: pytest.Pytester) -> None:
    with TranscriptionServer(_heard) as server:
        project = _project(pytester, server.url)
        pytester.runpytest("--tts-engine=espeak", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider")
    assert server.most_in_flight == 1 and len(server.requests) == len(YEARS)
    header = json.loads(header_path(project / "run" / "results.jsonl").read_text(encoding="utf-8"))
    assert header["asr"]["espeak"][0]["concurrency"] == 1  # recorded though left at its default
