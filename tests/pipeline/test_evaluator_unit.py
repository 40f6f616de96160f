"""``Evaluator`` in plain unit tests: a fake engine and fake ASR routes, no pytest run, no models."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from pytest_ttsbench.asr.base import AsrError, AsrRoute, Transcription
from pytest_ttsbench.audio.decoding import DecodedAudio
from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.cases.model import CaseItem, Target
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import EngineError, Synthesis, SynthesisRequest
from pytest_ttsbench.pipeline.evaluator import Evaluator, RunOptions

RATE = 16_000


def tone(seconds: float = 1.5) -> bytes:
    """A WAV of a 220 Hz tone: audio enough to pass the checks that need no ASR."""
    t = np.arange(int(RATE * seconds)) / RATE
    return pcm16_wav((0.3 * 32767 * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes(), RATE)


@dataclass
class FakeEngine:
    name: str = "fake"
    fail: str | None = None
    requests: list[SynthesisRequest] = field(default_factory=list)
    closed: bool = False

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        self.requests.append(request)
        if self.fail:
            raise EngineError(self.fail)
        return Synthesis(audio=tone(), media_type="audio/wav", metadata={"voice": request.voice})

    def close(self) -> None:
        self.closed = True


@dataclass
class FakeRoute:
    name: str
    heard: str | None  # None: the route fails
    calls: list[float] = field(default_factory=list)

    def transcribe(self, audio: DecodedAudio, language: str) -> Transcription:
        self.calls.append(audio.seconds)
        if self.heard is None:
            raise AsrError(f"{self.name} is down")
        return Transcription(text=self.heard, seconds=0.01)


def item(*targets: Target, expect: dict | None = None) -> CaseItem:
    return CaseItem(
        suite="s",
        id="year",
        language="en",
        scorer="numbers",
        category="years",
        text="The match is in 2026.",
        expect=expect or {"values": ["2026"]},
        targets=targets or (Target(None, "years", expect or {"values": ["2026"]}),),
    )


def evaluator(engine: FakeEngine, routes: list[AsrRoute], tmp_path=None) -> Evaluator:
    profiles = {engine.name: EngineProfile(name=engine.name, type="fake", voice="v1")}
    options = RunOptions(audio_dir=tmp_path)
    return Evaluator(profiles, lambda profile: list(routes), options, engines={engine.name: engine})


def test_a_heard_number_is_correct_and_the_clip_is_kept(tmp_path) -> None:
    engine = FakeEngine()
    result = evaluator(engine, [FakeRoute("r1", "The match is in 2026.")], tmp_path).evaluate(
        item(), item().targets[0], "fake"
    )
    assert (result.verdict, result.transcript, result.route_verdicts) == (
        "correct",
        "The match is in 2026.",
        {"r1": "correct"},
    )
    assert engine.requests[0].voice == "v1" and engine.requests[0].text == "The match is in 2026."
    assert result.audio_path is not None and result.audio_path.startswith(str(tmp_path))
    assert result.audio_seconds == pytest.approx(1.5, abs=0.01)


def test_routes_vote_and_a_failed_route_counts_as_error() -> None:
    routes = [FakeRoute("r1", "in 2026"), FakeRoute("r2", "in 2025"), FakeRoute("r3", "in 2026")]
    result = evaluator(FakeEngine(), routes).evaluate(item(), item().targets[0], "fake")
    assert result.route_verdicts == {"r1": "correct", "r2": "wrong", "r3": "correct"}
    assert result.verdict == "correct"
    down = evaluator(FakeEngine(), [FakeRoute("r1", "in 2026"), FakeRoute("r2", None)])
    split = down.evaluate(item(), item().targets[0], "fake")
    assert split.route_verdicts == {"r1": "correct", "r2": "error"}
    assert split.verdict != "correct"  # one of two routes is not a majority


def test_targets_of_one_item_share_one_synthesis_and_one_transcription() -> None:
    engine, route = FakeEngine(), FakeRoute("r1", "in 2026 and 2027")
    first, second = Target("2026", "years", {"values": ["2026"]}), Target("2028", "years", {"values": ["2028"]})
    case = item(first, second)
    run = evaluator(engine, [route])
    verdicts = [run.evaluate(case, target, "fake").verdict for target in (first, second)]
    assert verdicts == ["correct", "wrong"]
    assert len(engine.requests) == 1 and len(route.calls) == 1
    run.evaluate(case, first, "fake", repeat=1)  # another generation is another synthesis
    assert len(engine.requests) == 2


def test_a_failed_synthesis_is_an_error_with_its_reason() -> None:
    result = evaluator(FakeEngine(fail="HTTP 500: overloaded"), [FakeRoute("r1", "x")]).evaluate(
        item(), item().targets[0], "fake"
    )
    assert result.verdict == "error"
    assert (result.error, result.error_stage) == ("synthesis failed: HTTP 500: overloaded", "synthesis")
    assert result.evidence == {"reason": "synthesis failed: HTTP 500: overloaded"}


def test_close_closes_the_engines_it_was_given() -> None:
    engine = FakeEngine()
    run = evaluator(engine, [FakeRoute("r1", "in 2026")])
    run.evaluate(item(), item().targets[0], "fake")
    run.close()
    assert engine.closed
