"""Time to first playable audio on a streaming fake that delays its first chunk, and independent generations."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from engine_rig import SECRET, Rig
from listening_runs import run_prompts

from pytest_ttsbench.cli import main
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.run_model.results import read_results

PAUSE_S = 0.4


def _stream_profile(rig: Rig, **options):  # type: ignore[no-untyped-def]
    return rig.profile(stream=True, timeout_s=5.0, **options)


@pytest.mark.parametrize(("output_format", "lead_bytes"), [("wav_16000", 44), ("pcm_16000", 1)])
def test_first_playable_chunk_not_first_byte(eleven: Rig, output_format: str, lead_bytes: int) -> None:
    # The fake opens with a bare WAV header (or half a PCM sample), then pauses: a first byte with
    # nothing to hear yet. The playable moment is the first chunk that decodes to a sample.
    eleven.fake.lead_bytes = lead_bytes
    eleven.fake.lead_pause_s = PAUSE_S
    engine = eleven.engine(stream=True, output_format=output_format, timeout_s=5.0)
    synthesis = engine.synthesize(SynthesisRequest("Good morning.", "en", None, "demo/greeting"))
    engine.close()
    assert synthesis.streamed
    assert synthesis.first_byte_seconds is not None and synthesis.first_byte_seconds < PAUSE_S
    assert synthesis.first_audio_seconds is not None and synthesis.first_audio_seconds >= PAUSE_S


def test_playable_at_first_chunk_when_it_carries_audio(eleven: Rig) -> None:
    eleven.fake.first_byte_delay_s = PAUSE_S  # the whole reply is late, its first chunk already holds samples
    engine = eleven.engine(stream=True, output_format="wav_16000", timeout_s=5.0)
    synthesis = engine.synthesize(SynthesisRequest("Good morning.", "en", None, "demo/greeting"))
    engine.close()
    assert synthesis.first_audio_seconds is not None and synthesis.first_audio_seconds >= PAUSE_S
    assert synthesis.first_audio_seconds == pytest.approx(synthesis.first_byte_seconds, abs=0.05)


def test_workflow_over_three_attempts_says_which_measure(
    eleven: Rig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eleven.fake.lead_bytes = 44
    eleven.fake.lead_pause_s = PAUSE_S
    streamed = _stream_profile(eleven, output_format="wav_16000")
    whole = dataclasses.replace(eleven.profile(output_format="wav_16000"), name="eleven-whole")
    results = run_prompts({streamed.name: streamed, whole.name: whole}, tmp_path / "run")

    rows = read_results(results)
    for row in rows:
        if row.engine == streamed.name:
            assert row.first_audio_measure == "first_chunk"
            assert PAUSE_S <= row.first_audio_seconds <= row.synth_seconds
        else:
            assert row.first_audio_measure == "total"
            assert row.first_audio_seconds == row.synth_seconds

    assert main(["listening", "workflow", str(results), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    by_key = {(r["system"], r["prompt"]): r for r in report["first_audio"]}
    assert len(by_key) == 4  # two prompts × two systems
    row = by_key[(streamed.name, "demo-listen/greeting")]
    assert row["attempts"] == 3 and len(row["seconds"]) == 3
    assert row["measure"] == "first_chunk" and row["measure_label"].startswith("first playable chunk")
    assert all(s >= PAUSE_S for s in row["seconds"])
    assert row["median"] == sorted(row["seconds"])[1]
    assert by_key[("eleven-whole", "demo-listen/greeting")]["measure"] == "total"
    adapters = {a["system"]: a for a in report["adapters"]}
    assert adapters[streamed.name]["provider"] == "elevenlabs"
    assert "seed" in adapters[streamed.name]["controls"]
    assert {"pcm", "wav", "mp3"} <= set(adapters[streamed.name]["export_formats"])
    # No rating figures in the workflow report, and no workflow figures are computed from ratings.
    assert set(report) == {"first_audio", "adapters"}


def test_each_generation_gets_a_fresh_seed_recorded_in_the_results(eleven: Rig, tmp_path: Path) -> None:
    profile = eleven.profile(output_format="pcm_16000")
    results = run_prompts({profile.name: profile}, tmp_path / "run")
    sent = [r.parsed["seed"] for r in eleven.fake.requests]
    assert len(sent) == 6 and len(set(sent)) == 6  # no two generations share a seed
    rows = read_results(results)
    assert [r.generation["seed"] for r in rows] == sent
    for row in rows:
        assert row.generation["provider"] == "elevenlabs"
        assert row.generation["voice"] == "21m00Tcm4TlvDq8ikWAM"
        assert row.generation["model"] == "eleven_multilingual_v2"
        assert row.generation["settings"]["output_format"] == "pcm_16000"
        assert row.generation["date"] == row.started_at
        assert SECRET not in json.dumps(row.generation)


def test_a_profile_seed_makes_generations_reproducible_but_distinct(eleven: Rig, tmp_path: Path) -> None:
    profile = eleven.profile(output_format="pcm_16000", seed=4242)
    run_prompts({profile.name: profile}, tmp_path / "run")
    sent = [r.parsed["seed"] for r in eleven.fake.requests]
    assert sent == [4242, 4243, 4244, 4242, 4243, 4244]  # generation r sends seed + r, per prompt
