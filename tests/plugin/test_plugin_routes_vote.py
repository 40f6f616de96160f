"""Several ASR routes on one engine profile: every route's transcript and verdict is kept, and they vote.

Pre-rendered eSpeak NG clips are served by an `audio-dir` profile whose `asr.routes` hold a real
faster-whisper route and two `command` routes (a small script that prints a fixed transcript).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugin_projects import read_jsonl

from pytest_ttsbench.cli import main
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine

SENTENCE = "The new bridge over the river is scheduled to open in 2026."

CASES = f"""\
suite: vote
language: en
scorer: numbers
items:
  - {{id: says-2026, category: years, text: "{SENTENCE}", expect: {{values: ["2026"]}}}}
  - {{id: expects-1999, category: years, text: "{SENTENCE}", expect: {{values: ["1999"]}}}}
"""

# Prints its last argument after checking it was handed a real clip and the item's language.
ECHO = """\
import sys, wave
audio, lang, text = sys.argv[1:]
with wave.open(audio, "rb") as clip:
    assert clip.getnframes() > 0
assert lang == "en", lang
print(text)
"""

ROUTES = ["whisper:tiny.en", "agree", "dissent"]


def _project(pytester: pytest.Pytester, agree_script: str = "echo.py") -> Path:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "vote.yaml").write_text(CASES, encoding="utf-8")
    clips = pytester.path / "clips" / "vote"
    clips.mkdir(parents=True)
    engine = EspeakEngine(EngineProfile(name="espeak", type="espeak"))
    wav = engine.synthesize(SynthesisRequest(SENTENCE, "en", None, "vote/says-2026")).audio
    for item in ("says-2026", "expects-1999"):
        (clips / f"{item}.wav").write_bytes(wav)
    (pytester.path / "echo.py").write_text(ECHO, encoding="utf-8")
    echo = [sys.executable, str(pytester.path / "echo.py"), "{audio}", "{lang}"]
    agree = [sys.executable, str(pytester.path / agree_script), "{audio}", "{lang}"]
    config = {
        "engines": {
            "clips": {
                "type": "audio-dir",
                "path": "clips",
                "asr": {
                    "routes": [
                        {"type": "whisper", "model": "tiny.en"},
                        {"type": "command", "name": "agree", "command": [*agree, "The bridge opens in 2026."]},
                        {"type": "command", "name": "dissent", "command": [*echo, "The bridge opens in 1999."]},
                    ]
                },
            }
        }
    }
    # JSON is YAML: no quoting surprises for the interpreter's path
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    return pytester.path


def _rows(path: Path) -> dict[str, dict]:
    return {row["id"].split("/", 1)[1]: row for row in read_jsonl(path)}


def test_three_routes_vote_by_majority_and_quorum(pytester: pytest.Pytester) -> None:
    _project(pytester)
    majority = pytester.runpytest("--tts-engine=clips", "--tts-results=majority.jsonl")
    majority.assert_outcomes(passed=1, failed=1)
    rows = _rows(pytester.path / "majority.jsonl")
    for row in rows.values():
        assert list(row["transcripts"]) == ROUTES
        assert "2026" in row["transcripts"]["whisper:tiny.en"]
        assert row["transcripts"]["agree"] == "The bridge opens in 2026."
        assert row["transcripts"]["dissent"] == "The bridge opens in 1999."
        assert row["transcript"] == row["transcripts"]["whisper:tiny.en"]  # the first route is the primary
    # whisper and "agree" hear 2026, "dissent" hears 1999: two of three decide
    assert rows["says-2026"]["route_verdicts"] == {"whisper:tiny.en": "correct", "agree": "correct", "dissent": "wrong"}
    assert rows["says-2026"]["verdict"] == "correct"
    assert rows["expects-1999"]["route_verdicts"] == {
        "whisper:tiny.en": "wrong",
        "agree": "wrong",
        "dissent": "correct",
    }
    assert rows["expects-1999"]["verdict"] == "wrong"
    assert rows["says-2026"]["evidence"]["routes"]["dissent"]["verdict"] == "wrong"

    # all three must agree: neither target is unanimous, so both are unknown (and fail)
    unanimous = pytester.runpytest("--tts-engine=clips", "--tts-results=unanimous.jsonl", "--tts-quorum=3")
    unanimous.assert_outcomes(failed=2)
    strict = _rows(pytester.path / "unanimous.jsonl")
    assert {k: r["verdict"] for k, r in strict.items()} == {"says-2026": "unknown", "expects-1999": "unknown"}
    assert {k: r["route_verdicts"] for k, r in strict.items()} == {k: r["route_verdicts"] for k, r in rows.items()}


def test_a_failing_route_counts_as_unknown(pytester: pytest.Pytester) -> None:
    _project(pytester, agree_script="missing.py")  # "agree" errors; the two others split 1-1
    pytester.runpytest("--tts-engine=clips", "--tts-results=r.jsonl", "-k", "says").assert_outcomes(failed=1)
    (row,) = read_jsonl(pytester.path / "r.jsonl")
    assert row["route_verdicts"] == {"whisper:tiny.en": "correct", "dissent": "wrong", "agree": "error"}
    assert row["verdict"] == "unknown"
    assert "agree" not in row["transcripts"]


def test_manifest_covers_replayed_clips_and_kept_audio(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(pytester).resolve()
    pytester.runpytest("--tts-engine=clips", "--tts-results=out/r.jsonl", "-k", "says")
    manifest = json.loads((root / "out" / "r.manifest.sha256.json").read_text(encoding="utf-8"))
    roles = {key: entry["role"] for key, entry in manifest["files"].items()}
    assert roles["clips/vote/says-2026.wav"] == "input"  # relative to the project, marked so
    assert manifest["files"]["clips/vote/says-2026.wav"]["root"] == "project"
    kept = [key for key, role in roles.items() if key.startswith("r-audio/") and key.endswith(".wav")]
    assert len(kept) == 1 and roles[kept[0]] == "output"
    capsys.readouterr()
    assert main(["verify", str(root / "out" / "r.jsonl")]) == 0
    (root / "out" / kept[0]).write_bytes(b"RIFF")
    assert main(["verify", str(root / "out")]) == 1
    assert f"  modified: {kept[0]}" in capsys.readouterr().out
