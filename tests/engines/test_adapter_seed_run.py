"""End to end: the seed providers' adapters in one pytest run, beside the local eSpeak NG engine.

Each fake answers with eSpeak NG's speech of the item, at eSpeak's own rate, so every adapter
hands the pipeline the very samples the local ``espeak`` engine makes; after a real Whisper
round trip each must then give the local engine's verdicts and transcripts, whatever wire format
carried the audio (hex in JSON, base64 stream chunks, a downloaded URL, base64 PCM). On top:
one item is throttled once (then succeeds), and one gets an HTTP-200 error that echoes the key.
The key must appear in no file the run writes and nowhere in its terminal output.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from seed_providers import FakeChatAudio, FakeDashScope, FakeGemini, FakeMiniMax, FakeVllmOmni, FakeVolcengine
from tts_providers import Fault

KEY_ENV = "TTSBENCH_E2E_SEED_KEY"
KEY = "sk-seed-e2e-5d3c9b1f-never-print-me"
ESPEAK_RATE = 22050

CASES = """\
suite: seed-providers
language: en
scorer: numbers
items:
  - id: year-2026
    category: years
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2026"]}
  - id: wrong-on-purpose
    category: years
    text: "The museum opened in 2019."
    expect: {values: ["2031"]}
  - id: key-echo
    category: years
    text: "The quota was raised in 2021."
    expect: {values: ["2021"]}
"""

PROFILES = """\
engines:
  minimax:
    {common}
    type: minimax
    base_url: {minimax}
    voice: English_Graceful_Lady
    sample_rate: {rate}
  doubao:
    {common}
    type: volcengine
    base_url: {volcengine}
    resource_id: seed-tts-1.0
    voice: en_male_adam_mars_bigtts
    sample_rate: {rate}
  cosyvoice:
    {common}
    type: dashscope
    base_url: {dashscope}
    model: cosyvoice-v2
    voice: longxiaochun_v2
    sample_rate: {rate}
  mimo:
    {common}
    type: chat-audio
    base_url: {chat}/v1
    auth_header: api-key
    voice: default_en
  gemini:
    {common}
    type: gemini
    base_url: {gemini}
    voice: Kore
  clone:
    type: openai
    base_url: {clone}/v1
    model: Qwen/Qwen3-TTS-12Hz-0.6B-Base
    voice: null
    reference_audio: refs/speaker.wav
    reference_text: "The plant opened in 2026."
    task_type: Base
    language: English
    timeout_s: 30
"""
CLOUD = ("minimax", "doubao", "cosyvoice", "mimo", "gemini", "clone")


@pytest.fixture
def speaking_fakes(monkeypatch: pytest.MonkeyPatch, espeak_speaker):
    """Every seed provider's fake, speaking with eSpeak NG; the throttling and key-echo items set up."""
    speak = espeak_speaker
    monkeypatch.setenv(KEY_ENV, KEY)
    fakes = {
        "minimax": FakeMiniMax(KEY, speak),
        "volcengine": FakeVolcengine(KEY, speak),
        "dashscope": FakeDashScope(KEY, speak),
        "chat": FakeChatAudio(KEY, speak),
        "gemini": FakeGemini(KEY, speak),
        "clone": FakeVllmOmni(None, speak),
    }
    fakes["gemini"].pcm_rate = ESPEAK_RATE
    for name, fake in fakes.items():
        fake.text_faults = {"bridge": [Fault("rate_limit")]}  # once: the retry succeeds
        if name != "clone":  # a local server has no key to echo
            fake.text_faults["quota"] = [Fault("json200", message="quota for key {key} is used up")] * 5
        fake.start()
    yield fakes
    for fake in fakes.values():
        fake.stop()


def test_each_adapter_gives_the_local_engines_verdicts_and_leaks_no_key(pytester: pytest.Pytester, speaking_fakes):
    project = pytester.path
    (project / "cases").mkdir()
    (project / "cases" / "seed.yaml").write_text(CASES, encoding="utf-8")
    (project / "refs").mkdir()
    (project / "refs" / "speaker.wav").write_bytes(speaking_fakes["clone"].speak("The plant opened in 2026."))
    common = f"api_key_env: {KEY_ENV}\n    timeout_s: 30\n    max_retries: 2\n    retry_min_wait_s: 0.01"
    urls = {name: fake.url for name, fake in speaking_fakes.items()}
    (project / "ttsbench.yaml").write_text(
        textwrap.dedent(PROFILES).format(common=common, rate=ESPEAK_RATE, **urls), encoding="utf-8"
    )
    engines = ",".join(("espeak", *CLOUD))
    result = pytester.runpytest(f"--tts-engine={engines}", "--tts-results=out/results.jsonl", "-p", "no:cacheprovider")

    lines = (project / "out" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    rows = {(row["engine"], row["id"].split("/")[-1]): row for row in map(json.loads, lines)}
    assert len(rows) == 3 * (1 + len(CLOUD)), sorted(rows)
    local = {item: rows[("espeak", item)] for item in ("year-2026", "wrong-on-purpose")}
    assert local["year-2026"]["verdict"] == "correct" and local["wrong-on-purpose"]["verdict"] == "wrong"
    for engine in CLOUD:
        for item, expected in local.items():
            row = rows[(engine, item)]
            assert (row["verdict"], row["transcript"]) == (expected["verdict"], expected["transcript"]), (engine, item)
        if engine != "clone":
            echoed = rows[(engine, "key-echo")]
            assert echoed["verdict"] == "error", engine
            assert "quota for key [REDACTED] is used up" in echoed["error"], (engine, echoed["error"])
        # the throttled request was retried: the item's generation records the retry
        assert rows[(engine, "year-2026")]["verdict"] == "correct"
    for name, fake in speaking_fakes.items():
        bridge = [r for r in fake.requests if b"bridge" in r.body]
        assert len(bridge) >= 2, name  # the throttled attempt, then the one that succeeded

    terminal = result.stdout.str() + result.stderr.str()
    assert "is used up" in terminal  # the provider's message reached the terminal, scrubbed
    assert KEY not in terminal and KEY[12:] not in terminal
    written = [p for p in Path(project).rglob("*") if p.is_file()]
    assert any(p.suffix == ".wav" for p in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
