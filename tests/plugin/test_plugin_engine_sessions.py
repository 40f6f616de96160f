"""Every built-in engine type through a whole pytest session without xdist: set up, run, torn down.

A ``command`` engine once crashed every non-xdist run at teardown (it had no ``close``), so a run
that passed exited 1 and wrote no manifest. Each session here must pass, exit 0, and leave its
results, gate file and manifest. Recognition is a command route that prints the item's text, so the
test is about the engine's life in a session, not about ASR.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from engine_rig import AWS_KEY_ID, AWS_KEY_ID_ENV, KEY_ENV, SECRET, Rig
from plugin_projects import read_jsonl
from seed_providers import ALL_FAKES as FAKES
from tts_providers import wav_bytes

from pytest_ttsbench.engines.registry import available_engine_types
from pytest_ttsbench.run_model.manifest import manifest_path

CASE = """\
suite: life
language: en
scorer: numbers
items:
  - id: year-2026
    category: years
    text: "The plant opened in 2026."
    expect: {values: ["2026"]}
"""
HEARD = "The plant opened in 2026."

SPEAKER = """\
import sys, wave
import numpy as np
rate = 16000
t = np.arange(int(rate * 0.8)) / rate
samples = (0.3 * np.sin(2 * np.pi * 440 * t) * 32767).astype("<i2")
with wave.open(sys.argv[1], "wb") as out:
    out.setnchannels(1); out.setsampwidth(2); out.setframerate(rate); out.writeframes(samples.tobytes())
"""

LOCAL_TYPES = ("espeak", "piper", "command", "transcripts", "audio-dir")


def _profile(engine_type: str, project: Path, started: list[Any]) -> dict[str, Any]:
    if engine_type == "command":
        (project / "speak.py").write_text(SPEAKER, encoding="utf-8")
        return {"type": "command", "command": [sys.executable, "speak.py", "{out}"]}
    if engine_type == "transcripts":
        (project / "heard.jsonl").write_text(json.dumps({"id": "life/year-2026", "text": HEARD}) + "\n")
        return {"type": "transcripts", "path": "heard.jsonl"}
    if engine_type == "audio-dir":
        (project / "clips").mkdir()
        (project / "clips" / "year-2026.wav").write_bytes(wav_bytes(16000, 0.8))
        return {"type": "audio-dir", "path": "clips"}
    if engine_type in FAKES:
        fake = FAKES[engine_type](key=SECRET, **({"key_id": AWS_KEY_ID} if engine_type == "polly" else {})).start()
        started.append(fake)
        profile = Rig(engine_type, fake, project).profile()
        written = {"type": profile.type, "api_key_env": profile.api_key_env, **dict(profile.options)}
        if profile.voice is not None:
            written["voice"] = profile.voice
        return written
    return {"type": engine_type}


@pytest.fixture
def fakes():  # type: ignore[no-untyped-def]
    started: list[Any] = []
    yield started
    for fake in started:
        fake.stop()


def test_every_builtin_type_is_covered() -> None:
    assert set(available_engine_types()) >= set(LOCAL_TYPES) | set(FAKES)


@pytest.mark.parametrize("engine_type", [*LOCAL_TYPES, *sorted(FAKES)])
def test_a_whole_session_without_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fakes: list[Any], engine_type: str
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv(AWS_KEY_ID_ENV, AWS_KEY_ID)
    project = pytester.path
    (project / "cases").mkdir()
    (project / "cases" / "life.yaml").write_text(CASE, encoding="utf-8")
    config = {
        "asr": {
            "routes": [{"type": "command", "name": "echo", "command": [sys.executable, "-c", f"print({HEARD!r})"]}]
        },
        "engines": {"under-test": _profile(engine_type, project, fakes)},
    }
    (project / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)
    assert [row["verdict"] for row in read_jsonl(project / "out" / "results.jsonl")] == ["correct"]
    assert json.loads((project / "out" / "results.gate.json").read_text())["passed"] is True
    assert manifest_path(project / "out" / "results.jsonl").is_file()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
