"""The cache never stands in for a measurement of a release, and never serves an entry edited behind its back.

* A remote voice that changed behind an unchanged request (a real 127.0.0.1 server speaking
  OpenAI's format, its voice switched between two runs): by default the second run is judged on
  the new audio, not on the first run's clips; only an explicit ``--tts-cache-reuse=all`` reads
  them, and never in a run gated against a baseline. eSpeak NG, reproducible, keeps full reuse.
* A parsed case file edited in the cache (1776 → 1076) or a transcript edited by one byte is a
  counted ``damaged`` miss: the case file and the clip decide, the terminal and the gate file say so.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

import pytest
from plugin_projects import read_jsonl, write_cloud_echo_project, write_project
from tts_providers import FakeOpenAI

from pytest_ttsbench.cli import main
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.registry import create_engine

KEY_ENV = "TTSBENCH_CACHE_TRUST_KEY"
KEY = "sk-cache-trust-3c2b1a-never-store-me"

YEARS = """\
suite: vendor-years
language: en
scorer: numbers
items:
  - {id: y1, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
  - {id: y2, category: years, text: "It closed in 1999.", expect: {values: ["1999"]}}
"""


class SwitchableVoice:
    """Real eSpeak NG speech for the fake server; ``release`` 2 speaks faster and lower, a changed voice."""

    def __init__(self) -> None:
        self.release = 1
        changed = {"rate": 330, "pitch": 10}
        self._voices = {
            1: create_engine(EngineProfile(name="v1", type="espeak", voice="en-us")),
            2: create_engine(EngineProfile(name="v2", type="espeak", voice="en-us", options=changed)),
        }

    def __call__(self, text: str) -> bytes:
        return self._voices[self.release].synthesize(SynthesisRequest(text=text, language="en")).audio

    def close(self) -> None:
        for engine in self._voices.values():
            engine.close()


@pytest.fixture
def vendor(monkeypatch: pytest.MonkeyPatch):
    voice = SwitchableVoice()
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    fake = FakeOpenAI(key=KEY, speak=voice).start()
    yield fake, voice
    fake.stop()
    voice.close()


def _rows(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in read_jsonl(path)}


def _run(pytester: pytest.Pytester, folder: str, *options: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--tts-engine=cloud", f"--tts-results={folder}/results.jsonl", "-p", "no:cacheprovider", *options
    )


def test_a_remote_voice_changed_behind_an_unchanged_request_is_heard_by_default(
    pytester: pytest.Pytester, vendor: tuple[FakeOpenAI, SwitchableVoice]
) -> None:
    fake, voice = vendor
    write_cloud_echo_project(pytester, {"years.yaml": YEARS}, fake.url, KEY_ENV)
    _run(pytester, "release1")
    old = _rows(pytester.path / "release1" / "results.jsonl")
    asked = len(fake.requests)

    voice.release = 2  # the vendor ships a new voice: same endpoint, model, voice name and text
    second = _run(pytester, "release2")
    new = _rows(pytester.path / "release2" / "results.jsonl")
    assert len(fake.requests) > asked  # the server was asked again
    for item, row in new.items():
        spoken = hashlib.sha256(voice(row["text"])).hexdigest()
        assert row["audio_sha256"] == spoken != old[item]["audio_sha256"]  # judged on release 2's audio
        assert row["cache"]["audio"] == "fresh"
        assert row["synth_seconds"] is not None  # a measured request
    second.stdout.fnmatch_lines(["cache: 0 of 2 clip(s) reused from an earlier run*2 clip(s) of engines*afresh*"])
    gate = json.loads((pytester.path / "release2" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["cache"]["clips"] == {
        "reused": 0,
        "total": 2,
        "engines": {"cloud": {"reused": 0, "made_now": 2, "not_read_by_policy": 2, "off": 0}},
    }


def test_reusing_remote_clips_is_asked_for_and_said_and_never_against_a_baseline(
    pytester: pytest.Pytester, vendor: tuple[FakeOpenAI, SwitchableVoice]
) -> None:
    fake, voice = vendor
    write_cloud_echo_project(pytester, {"years.yaml": YEARS}, fake.url, KEY_ENV)
    _run(pytester, "release1")
    old = _rows(pytester.path / "release1" / "results.jsonl")
    voice.release = 2
    asked = len(fake.requests)

    # Asked for explicitly: the old clips are read, and the terminal and gate file say so.
    reused = _run(pytester, "reused", "--tts-cache-reuse=all")
    assert len(fake.requests) == asked
    rows = _rows(pytester.path / "reused" / "results.jsonl")
    assert {item: row["audio_sha256"] for item, row in rows.items()} == {
        item: row["audio_sha256"] for item, row in old.items()
    }
    reused.stdout.fnmatch_lines(["cache: 2 of 2 clip(s) reused from an earlier run (cloud 2)*--tts-cache=off*"])
    gate = json.loads((pytester.path / "reused" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["cache"]["clips"]["reused"] == 2

    # Against a baseline the candidate is always measured, even when reuse is asked for (here in the
    # configuration): the clips made before this run are not read.
    config = pytester.path / "ttsbench.yaml"
    config.write_text(json.dumps({**json.loads(config.read_text(encoding="utf-8")), "cache_reuse": "all"}), "utf-8")
    gated = _run(pytester, "candidate", "--tts-baseline", str(pytester.path / "release1"))
    assert len(fake.requests) > asked
    for item, row in _rows(pytester.path / "candidate" / "results.jsonl").items():
        assert row["audio_sha256"] == hashlib.sha256(voice(row["text"])).hexdigest() != old[item]["audio_sha256"]
        assert row["cache"]["audio"] == "fresh"
    gated.stdout.fnmatch_lines(["cache: 0 of 2 clip(s) reused*"])


def test_a_bad_reuse_setting_is_a_usage_error_naming_it(pytester: pytest.Pytester) -> None:
    config = "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\ncache_reuse: most\n"
    write_project(pytester, config=config)
    result = pytester.runpytest("--tts-engine=replay", "-p", "no:cacheprovider")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*ttsbench.yaml*cache_reuse*"])


AMERICA = """\
suite: founding
language: en
scorer: numbers
items:
  - {id: declaration, category: years, text: "Independence was declared in 1776.", expect: {values: ["1776"]}}
"""


def test_a_parsed_case_file_edited_in_the_cache_is_a_counted_miss(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    write_project(pytester, {"founding.yaml": AMERICA}, {"founding/declaration": "Independence was declared in 1776."})
    assert pytester.runpytest("--tts-engine=replay", "--tts-results=r1/results.jsonl").ret == 0
    (entry,) = (pytester.path / ".ttsbench" / "cache" / "parsed").rglob("*.json")
    entry.write_bytes(entry.read_bytes().replace(b"1776", b"1076"))  # one digit, behind the cache's back

    second = pytester.runpytest("--tts-engine=replay", "--tts-results=r2/results.jsonl")
    (row,) = read_jsonl(pytester.path / "r2" / "results.jsonl")
    assert row["text"] == "Independence was declared in 1776."  # the case file decides, not the cache
    assert (row["verdict"], second.ret) == ("correct", 0)
    second.stdout.fnmatch_lines(["cache: *damaged cache entries ignored and made again: 1 parsed*"])
    gate = json.loads((pytester.path / "r2" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["cache"]["damaged_entries"] == {"parsed": 1}
    assert main(["verify", str(pytester.path / "r2" / "results.jsonl")]) == 0  # and OK is now true: 1776 was sent
    assert main(["cache", "check", "--dir", str(pytester.path / ".ttsbench" / "cache")]) == 0  # stored again


def test_a_transcript_edited_by_one_byte_is_transcribed_again(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "years.yaml").write_text(YEARS, encoding="utf-8")
    (pytester.path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            """\
            asr: {model: tiny.en}
            engines:
              espeak: {type: espeak, voice: en-us}
            """
        ),
        encoding="utf-8",
    )
    pytester.runpytest("--tts-engine=espeak", "--tts-results=r1/results.jsonl", "-p", "no:cacheprovider")
    first = _rows(pytester.path / "r1" / "results.jsonl")
    heard = {item: row["transcript"] for item, row in first.items()}
    for path in (pytester.path / ".ttsbench" / "cache" / "transcripts").rglob("*.json"):
        data = bytearray(path.read_bytes())
        at = data.index(b'"text": "') + len(b'"text": "')
        data[at] = ord("Q") if data[at] != ord("Q") else ord("Z")  # one byte of what was heard
        path.write_bytes(bytes(data))

    second = pytester.runpytest("--tts-engine=espeak", "--tts-results=r2/results.jsonl", "-p", "no:cacheprovider")
    rows = _rows(pytester.path / "r2" / "results.jsonl")
    for item, row in rows.items():
        assert row["transcript"] == heard[item]  # heard again, not the edited text
        assert row["verdict"] == first[item]["verdict"]
        assert row["cache"]["audio"] == "hit"  # eSpeak NG is reproducible: its clips are reused
        assert row["cache"]["asr:whisper:tiny.en"] == "damaged"
    second.stdout.fnmatch_lines(["cache: 2 of 2 clip(s) reused*damaged cache entries ignored*2 transcripts*"])
    gate = json.loads((pytester.path / "r2" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["cache"]["damaged_entries"] == {"transcripts": 2}


def test_under_xdist_the_workers_damaged_entries_reach_the_gate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    write_project(pytester, {"founding.yaml": AMERICA}, {"founding/declaration": "Independence was declared in 1776."})
    pytester.runpytest("--tts-engine=replay", "--tts-results=r1/results.jsonl")
    (entry,) = (pytester.path / ".ttsbench" / "cache" / "parsed").rglob("*.json")
    entry.write_bytes(entry.read_bytes().replace(b"1776", b"1076"))
    second = pytester.runpytest_subprocess("--tts-engine=replay", "-n", "2", "--tts-results=r2/results.jsonl")
    (row,) = read_jsonl(pytester.path / "r2" / "results.jsonl")
    assert (row["text"], row["verdict"]) == ("Independence was declared in 1776.", "correct")
    gate = json.loads((pytester.path / "r2" / "results.gate.json").read_text(encoding="utf-8"))
    # each worker parses the case file; the one that reads first finds the damage (both may)
    assert gate["cache"]["damaged_entries"]["parsed"] in (1, 2)
    second.stdout.fnmatch_lines(["cache: *damaged cache entries ignored and made again: * parsed*"])
