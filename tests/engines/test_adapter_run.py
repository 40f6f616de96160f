"""End to end: ``pytest --tts-engine=<profile>`` over a case file, against a faulty OpenAI-style server.

The fake speaks each item's text with eSpeak NG, so the clean items go through real ASR and
scoring; other items hit a transient 500, an HTML page, a JSON error that echoes the key, or a
body cut short. Every item must get a results line with the right verdict, the run must fail,
and the key must appear nowhere: not in the results, the audio folder, or the terminal.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from tts_providers import FakeOpenAI, Fault

KEY_ENV = "TTSBENCH_E2E_OPENAI_KEY"
KEY = "sk-e2e-7c1f0a9d-never-print-me"

CASES = """\
suite: faulty-numerals
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
  - id: proxy-page
    category: years
    text: "The gateway closed in 1998."
    expect: {values: ["1998"]}
  - id: key-echo
    category: years
    text: "The quota was raised in 2021."
    expect: {values: ["2021"]}
  - id: cut-short
    category: years
    text: "The cable was cut in 2005."
    expect: {values: ["2005"]}
"""


@pytest.fixture
def speaking_fake(monkeypatch: pytest.MonkeyPatch, espeak_speaker):
    """An OpenAI-style fake that answers with eSpeak NG speech of the request's input."""
    monkeypatch.setenv(KEY_ENV, KEY)
    fake = FakeOpenAI(key=KEY, speak=espeak_speaker).start()
    fake.text_faults = {
        "bridge": [Fault("server_error")],  # once: the retry succeeds
        "gateway": [Fault("html")] * 5,
        "quota": [Fault("error", status=403, message="Key {key} lacks access to model tts-1")] * 5,
        "cable": [Fault("truncate")] * 5,
    }
    yield fake
    fake.stop()


def test_faulty_server_run_records_every_item_and_leaks_no_key(pytester: pytest.Pytester, speaking_fake) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "faulty.yaml").write_text(CASES, encoding="utf-8")
    (pytester.path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            f"""\
            engines:
              faulty:
                type: openai
                base_url: {speaking_fake.url}/v1
                model: tts-1
                voice: alloy
                api_key_env: {KEY_ENV}
                response_format: wav
                timeout_s: 5
                max_retries: 1
                retry_min_wait_s: 0.01
                retry_max_wait_s: 1
            """
        ),
        encoding="utf-8",
    )
    result = pytester.runpytest("--tts-engine=faulty", "--tts-results=out/results.jsonl", "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=5)  # four items, and the gate: errors are not measurements
    lines = (pytester.path / "out" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    rows = {row["id"]: row for row in map(json.loads, lines)}
    assert len(lines) == 5
    assert {k: r["verdict"] for k, r in rows.items()} == {
        "faulty-numerals/year-2026": "correct",
        "faulty-numerals/wrong-on-purpose": "wrong",
        "faulty-numerals/proxy-page": "error",
        "faulty-numerals/key-echo": "error",
        "faulty-numerals/cut-short": "error",
    }
    assert "502 Bad Gateway - Corporate Proxy" in rows["faulty-numerals/proxy-page"]["error"]
    echoed = rows["faulty-numerals/key-echo"]["error"]
    assert "lacks access to model tts-1" in echoed and "[REDACTED]" in echoed  # echoed, then scrubbed
    assert "cut short" in rows["faulty-numerals/cut-short"]["error"]
    ok = rows["faulty-numerals/year-2026"]
    assert "2026" in ok["transcript"]
    assert ok["first_byte_seconds"] is not None and ok["synth_seconds"] >= ok["first_byte_seconds"]
    # the 500, then success, then the same request again: the determinism probe of a one-generation run
    assert sum("bridge" in r.body.decode() for r in speaking_fake.requests) == 3

    # The key reached the server on every request, and nothing we wrote or printed holds it.
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in speaking_fake.requests)
    terminal = result.stdout.str() + result.stderr.str()
    assert "lacks access to model tts-1" in terminal
    assert KEY not in terminal
    written = [p for p in Path(pytester.path).rglob("*") if p.is_file()]
    assert any(p.suffix == ".wav" for p in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
