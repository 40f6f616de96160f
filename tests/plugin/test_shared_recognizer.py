"""Shards of one CI job sharing one recognizer: every ``--tts-shard I/N`` job sends its clips to the
same OpenAI-format ASR server, and ``ttsbench merge`` + ``ttsbench gate`` judge them as one run.

The server is real HTTP on 127.0.0.1 in OpenAI's multipart format (``tests/fakes/transcription_server.py``)
and hears with real faster-whisper ``tiny.en`` (the plugin's own decoding); the clips are real eSpeak NG.
The two shards run at the same time, as two processes, against the one server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from plugin_projects import read_jsonl
from transcription_server import TranscriptionServer, whisper_hearing

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.provenance import header_path

ITEMS = [
    ("y2026", "years", "The new bridge is scheduled to open in 2026.", ["2026"]),
    ("y1905", "years", "The observatory on the hill was built in 1905.", ["1905"]),
    ("p45", "percentages", "Turnout reached 45% this year.", ["45"]),
    ("t0630", "times", "The train leaves at 6:30.", ["6", "30"]),
    ("c17", "counts", "There were 17 boats in the harbour.", ["17"]),
    ("c300", "counts", "About 300 people came to the meeting.", ["300"]),
]
GATE_OPTIONS = ["--tts-threshold=default=0.5", "--tts-min-n=1"]


@pytest.fixture(scope="module")
def server() -> Iterator[TranscriptionServer]:
    with TranscriptionServer(whisper_hearing("tiny.en", beam_size=5)) as running:
        yield running


def _write(project: Path, asr: dict[str, Any]) -> None:
    items = "".join(
        f'  - {{id: {ident}, category: {category}, text: "{text}", expect: {{values: {json.dumps(values)}}}}}\n'
        for ident, category, text, values in ITEMS
    )
    (project / "cases").mkdir(exist_ok=True)
    (project / "cases" / "numerals.yaml").write_text(
        f"suite: numerals\nlanguage: en\nscorer: numbers\nitems:\n{items}", encoding="utf-8"
    )
    config = {"cases": ["cases"], "asr": asr, "engines": {"espeak": {"type": "espeak", "voice": "en-us"}}}
    (project / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")


def _shared(url: str) -> dict[str, Any]:
    route = {"type": "openai", "base_url": url, "model": "tiny.en", "name": "shared", "concurrency": 2}
    return {"routes": [route]}


def _gate(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_shards_sharing_one_server_merge_and_gate_as_one_run(
    pytester: pytest.Pytester, server: TranscriptionServer
) -> None:
    project = pytester.path
    _write(project, _shared(server.url))
    # Each run with a cache of its own, as each CI job starts with none.
    whole = pytester.runpytest(
        "--tts-engine=espeak", "--tts-results=whole/results.jsonl", "--tts-cache-dir=cache-whole", *GATE_OPTIONS
    )
    assert whole.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    heard_whole = len(server.requests)
    assert heard_whole == len(ITEMS)

    # Both shards at once, two processes, one recognizer.
    logs = {index: project / f"shard{index}.log" for index in (1, 2)}
    shards = {
        index: pytester.popen(
            [
                *(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tts-engine=espeak"),
                *(f"--tts-shard={index}/2", f"--tts-results=shard{index}/results.jsonl"),
                f"--tts-cache-dir=cache{index}",
                *GATE_OPTIONS,
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        for index, log in logs.items()
    }
    for index, shard in shards.items():
        assert shard.wait(timeout=600) in (0, 1), logs[index].read_text(errors="replace")
    assert len(server.requests) == heard_whole + len(ITEMS)  # each clip sent once, by its own shard

    assert main(["merge", str(project / "shard1"), str(project / "shard2"), "-o", str(project / "merged")]) == 0
    status = main(["gate", str(project / "merged"), "--rootdir", str(project), *GATE_OPTIONS])
    assert status == whole.ret
    assert _gate(project / "merged" / "results.gate.json") == _gate(project / "whole" / "results.gate.json")

    merged = json.loads(header_path(project / "merged" / "results.jsonl").read_text(encoding="utf-8"))
    assert merged["shards"] == ["1/2", "2/2"]
    (route,) = merged["asr"]["espeak"]
    assert route["name"] == "shared" and route["type"] == "openai" and route["concurrency"] == 2
    rows = read_jsonl(project / "merged" / "results.jsonl")
    assert sorted(row["id"] for row in rows) == sorted(f"numerals/{ident}" for ident, *_ in ITEMS)
    assert all(set(row["transcripts"]) == {"shared"} for row in rows)


def test_a_shared_server_run_is_gated_like_a_local_whisper_run(
    pytester: pytest.Pytester, server: TranscriptionServer
) -> None:
    """The same items, categories and gate as a local faster-whisper run; only the route's name differs.

    The server hears the clip as the 16-bit WAV it was sent, a hair away from the samples a local
    route decodes, and a test must not count on Whisper reading two inputs alike on every CPU. So
    the gate files must be equal whenever the two recognizers heard every clip alike (as they do
    on this project's machine), and the items judged must be the same in any case.
    """
    project = pytester.path
    _write(project, {"model": "tiny.en", "beam_size": 5})
    local = pytester.runpytest(
        "--tts-engine=espeak", "--tts-results=local/results.jsonl", "--tts-cache-dir=cache-local", *GATE_OPTIONS
    )
    _write(project, _shared(server.url))
    remote = pytester.runpytest(
        "--tts-engine=espeak", "--tts-results=remote/results.jsonl", "--tts-cache-dir=cache-remote", *GATE_OPTIONS
    )
    local_rows = read_jsonl(project / "local" / "results.jsonl")
    remote_rows = read_jsonl(project / "remote" / "results.jsonl")
    assert [set(row["transcripts"]) for row in local_rows] == [{"whisper:tiny.en"}] * len(ITEMS)
    assert [set(row["transcripts"]) for row in remote_rows] == [{"shared"}] * len(ITEMS)

    def judged(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return sorted((row["id"], row["category"]) for row in rows if row["verdict"] in ("correct", "wrong"))

    assert judged(remote_rows) == judged(local_rows) == sorted((f"numerals/{i}", c) for i, c, *_ in ITEMS)
    local_gate, remote_gate = (
        _gate(project / "local" / "results.gate.json"),
        _gate(project / "remote" / "results.gate.json"),
    )
    assert set(remote_gate) == set(local_gate)
    heard_alike = [row["transcript"] for row in remote_rows] == [row["transcript"] for row in local_rows]
    if heard_alike:
        assert remote_gate == local_gate and remote.ret == local.ret
