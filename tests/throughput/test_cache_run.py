"""A pytest run twice over an OpenAI-style server that speaks with eSpeak NG, transcribed by Whisper.

A remote engine's clips are read from the cache only when the run asks (``--tts-cache-reuse=all``):
that rerun asks the server for nothing and runs no ASR; every row says so; the clips are still in
the new run's folder. A changed option is a new clip. Under xdist each worker synthesizes ahead
only its own tests, so no clip is asked for twice.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from tts_providers import FakeOpenAI

from pytest_ttsbench.cli import main
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.registry import create_engine

KEY_ENV = "TTSBENCH_CACHE_RUN_KEY"
KEY = "sk-cache-run-0f9e8d7c-never-store-me"

CASES = """\
suite: cached-numerals
language: en
scorer: numbers
items:
  - {id: year-2026, category: years, text: "The bridge opens in 2026.", expect: {values: ["2026"]}}
  - {id: pct-45, category: percentages, text: "Turnout reached 45 percent.", expect: {values: ["45"]}}
"""


@pytest.fixture
def speaking_fake(monkeypatch: pytest.MonkeyPatch):
    espeak = create_engine(EngineProfile(name="espeak", type="espeak", voice="en-us"))

    def speak(text: str) -> bytes:
        return espeak.synthesize(SynthesisRequest(text=text, language="en")).audio

    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    fake = FakeOpenAI(key=KEY, speak=speak).start()
    yield fake
    fake.stop()
    espeak.close()


def _project(pytester: pytest.Pytester, url: str, cases: str = CASES, speed: float = 1.0) -> None:
    (pytester.path / "cases").mkdir(exist_ok=True)
    (pytester.path / "cases" / "numerals.yaml").write_text(cases, encoding="utf-8")
    (pytester.path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            f"""\
            asr: {{model: tiny.en}}
            engines:
              vendor:
                type: openai
                base_url: {url}/v1
                model: tts-1
                voice: alloy
                speed: {speed}
                api_key_env: {KEY_ENV}
                response_format: wav
                concurrency: 2
            """
        ),
        encoding="utf-8",
    )


def _rows(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def test_a_rerun_synthesizes_and_transcribes_nothing(pytester: pytest.Pytester, speaking_fake: FakeOpenAI) -> None:
    _project(pytester, speaking_fake.url)
    first = pytester.runpytest("--tts-engine=vendor", "--tts-results=run1/results.jsonl", "-p", "no:cacheprovider")
    # two clips, and the determinism probe asking for the first one again (a run that synthesizes does)
    assert len(speaking_fake.requests) == 3
    cold = _rows(pytester.path / "run1" / "results.jsonl")
    assert {r["cache"]["audio"] for r in cold.values()} == {"fresh"}  # not read: the engine is remote
    assert {r["cache"]["asr:whisper:tiny.en"] for r in cold.values()} == {"miss"}

    second = pytester.runpytest(
        "--tts-engine=vendor", "--tts-cache-reuse=all", "--tts-results=run2/results.jsonl", "-p", "no:cacheprovider"
    )
    assert len(speaking_fake.requests) == 3  # not one request more
    warm = _rows(pytester.path / "run2" / "results.jsonl")
    assert {r["cache"]["audio"] for r in warm.values()} == {"hit"}
    assert {r["cache"]["asr:whisper:tiny.en"] for r in warm.values()} == {"hit"}
    assert first.ret == second.ret
    # The terminal says the verdicts rest on reused clips; the cold run said it read none.
    second.stdout.fnmatch_lines(["cache: 2 of 2 clip(s) reused from an earlier run (vendor 2), 2 of 2 transcript(s)*"])
    first.stdout.fnmatch_lines(["cache: 0 of 2 clip(s) reused*2 clip(s) of engines that are not reproducible*"])
    for item, row in warm.items():
        assert (row["verdict"], row["transcript"], row["audio_sha256"]) == (
            cold[item]["verdict"],
            cold[item]["transcript"],
            cold[item]["audio_sha256"],
        )
        assert not Path(row["audio_path"]).is_absolute()  # relative to its run folder
        assert (pytester.path / "run2" / row["audio_path"]).is_file()
        assert row["synth_seconds"] is None  # a cached clip cost no request
    assert main(["verify", str(pytester.path / "run2" / "results.jsonl")]) == 0  # the run stands on its own

    # --tts-cache=off asks again; a changed option is a new key, so it asks again too.
    pytester.runpytest("--tts-engine=vendor", "--tts-cache=off", "--tts-results=run3/results.jsonl")
    assert len(speaking_fake.requests) == 6  # two clips and the probe
    assert {r["cache"]["audio"] for r in _rows(pytester.path / "run3" / "results.jsonl").values()} == {"off"}
    _project(pytester, speaking_fake.url, speed=1.25)
    pytester.runpytest("--tts-engine=vendor", "--tts-results=run4/results.jsonl")
    assert len(speaking_fake.requests) == 9
    assert all(json.loads(r.body)["speed"] == 1.25 for r in speaking_fake.requests[6:])

    # No secret in the cache, and `ttsbench cache` sees it.
    cache_dir = pytester.path / ".ttsbench" / "cache"
    for path in cache_dir.rglob("*"):
        assert not path.is_file() or KEY.encode() not in path.read_bytes()
    assert main(["cache", "stats", "--dir", str(cache_dir), "--json"]) == 0
    assert main(["cache", "prune", "--dir", str(cache_dir), "--max-size", "0"]) == 0
    # Every entry pruned; the folder stays marked as a cache (its tag is no entry).
    assert [p.name for p in cache_dir.rglob("*") if p.is_file()] == ["CACHEDIR.TAG"]
    assert main(["cache", "prune", "--dir", str(cache_dir), "--max-size", "lots"]) == 2


def test_under_xdist_no_clip_is_asked_for_twice(pytester: pytest.Pytester, speaking_fake: FakeOpenAI) -> None:
    items = "\n".join(
        f'  - {{id: n{n}, category: years, text: "In {1990 + n}.", expect: {{values: ["{1990 + n}"]}}}}'
        for n in range(8)
    )
    _project(pytester, speaking_fake.url, cases=f"suite: many\nlanguage: en\nscorer: numbers\nitems:\n{items}\n")
    pytester.runpytest_subprocess("--tts-engine=vendor", "--tts-cache=off", "-n", "2", "--tts-results=r/results.jsonl")
    asked = [json.loads(r.body)["input"] for r in speaking_fake.requests]
    assert len(_rows(pytester.path / "r" / "results.jsonl")) == 8
    # each clip once, plus one per worker: its determinism probe asks for its first clip again
    probes = [text for text in set(asked) if asked.count(text) > 1]
    assert sorted(set(asked)) == sorted(f"In {1990 + n}." for n in range(8))
    assert len(asked) == 8 + len(probes) and len(probes) <= 2 and all(asked.count(t) == 2 for t in probes)
