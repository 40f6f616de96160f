"""What an engine returns is checked the same way for every engine, and kept out of trouble.

Over-size output and truncated WAVs become ``error`` rows (written, with their reason) instead of
a crash or a scored clip; a secret the engine or a server echoes never reaches the terminal, the
logs, the HTML report or the results file.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
import yaml
from engine_rig import KEY_ENV, SECRET, Rig, leaked_fragment
from plugin_projects import read_jsonl
from tts_providers import FAKES, Fault, wav_bytes

CASE = """\
suite: out
language: en
scorer: numbers
items:
  - id: year-2026
    category: years
    text: "The plant opened in 2026."
    expect: {values: ["2026"]}
"""
ECHO_ASR = {"routes": [{"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('beep beep')"]}]}


def _project(pytester: pytest.Pytester, engine: dict[str, Any], **extra: Any) -> Path:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "out.yaml").write_text(CASE, encoding="utf-8")
    config = {"asr": ECHO_ASR, "engines": {"under-test": engine}, **extra}
    (pytester.path / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return pytester.path


def _program(pytester: pytest.Pytester, body: str) -> list[str]:
    (pytester.path / "speak.py").write_text(body, encoding="utf-8")
    return [sys.executable, "speak.py"]


def _only_row(project: Path) -> dict[str, Any]:
    (row,) = read_jsonl(project / "out" / "results.jsonl")
    return row


def test_endless_stdout_is_an_error_row_not_a_memory_error(pytester: pytest.Pytester) -> None:
    endless = "import sys\nchunk = bytes(65536)\nwhile True:\n    sys.stdout.buffer.write(chunk)\n"
    command = _program(pytester, endless)
    project = _project(pytester, {"type": "command", "command": command, "max_audio_bytes": 2_000_000})
    result = pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    result.assert_outcomes(failed=2)  # the item, and the gate: an error is not a measurement
    result.stdout.fnmatch_lines(["*--tts-max-error-rate*"])
    row = _only_row(project)
    assert row["verdict"] == "error"
    assert "more than 2,000,000 bytes (max_audio_bytes)" in row["error"]


def test_a_huge_out_file_is_an_error_row(pytester: pytest.Pytester) -> None:
    command = _program(pytester, "import sys\nopen(sys.argv[1], 'wb').write(bytes(3_000_000))\n")
    project = _project(pytester, {"type": "command", "command": [*command, "{out}"], "max_audio_bytes": 1_000_000})
    pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    row = _only_row(project)
    assert row["verdict"] == "error" and "max_audio_bytes" in row["error"]


def test_the_project_audio_limit_applies_to_every_engine(pytester: pytest.Pytester) -> None:
    (pytester.path / "clips").mkdir()
    (pytester.path / "clips" / "year-2026.wav").write_bytes(wav_bytes(16000, 2.0))
    project = _project(pytester, {"type": "audio-dir", "path": "clips"}, limits={"max_audio_bytes": 10_000})
    pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    row = _only_row(project)
    assert row["verdict"] == "error" and "limits.max_audio_bytes" in row["error"]


def _long_silent_flac(seconds: int = 20 * 60) -> bytes:
    """A few kilobytes of FLAC that decode to ``seconds`` of silence (77 MB of samples for 20 min)."""
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", samplerate=8000, channels=1, format="FLAC", subtype="PCM_16") as out:
        for _ in range(seconds // 60):
            out.write(np.zeros(8000 * 60, dtype=np.float32))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("engine_extra", "config_extra"),
    [({"max_clip_seconds": 45}, {}), ({}, {"limits": {"max_clip_seconds": 45}})],
    ids=["profile-limit", "project-limit"],
)
def test_a_clip_decoding_past_max_clip_seconds_is_an_error_row(
    pytester: pytest.Pytester, engine_extra: dict[str, Any], config_extra: dict[str, Any]
) -> None:
    """Issue 22, failure 10: a small FLAC of long silence was decoded whole before its length was checked."""
    (pytester.path / "clips").mkdir()
    (pytester.path / "clips" / "year-2026.flac").write_bytes(_long_silent_flac())
    project = _project(pytester, {"type": "audio-dir", "path": "clips", **engine_extra}, **config_extra)
    result = pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    result.assert_outcomes(failed=2)  # the item, and the gate: an error is not a measurement
    result.stdout.fnmatch_lines(["*--tts-max-error-rate*"])
    row = _only_row(project)
    assert row["verdict"] == "error" and row["error_stage"] == "audio"
    assert "more than 45 s" in row["error"] and "max_clip_seconds" in row["error"]
    result.stdout.fnmatch_lines(["*max_clip_seconds*"])


@pytest.mark.parametrize("engine_type", ["command", "audio-dir"])
def test_a_truncated_wav_is_an_error_not_scored(pytester: pytest.Pytester, engine_type: str) -> None:
    whole = wav_bytes(16000, 1.0)
    cut = whole[: len(whole) // 2]
    (pytester.path / "clips").mkdir()
    (pytester.path / "clips" / "year-2026.wav").write_bytes(cut)
    if engine_type == "command":
        command = _program(pytester, "import sys\nsys.stdout.buffer.write(open('clips/year-2026.wav', 'rb').read())\n")
        engine: dict[str, Any] = {"type": "command", "command": command}
    else:
        engine = {"type": "audio-dir", "path": "clips"}
    project = _project(pytester, engine)
    pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    row = _only_row(project)
    assert row["verdict"] == "error", row
    assert "truncated WAV" in row["error"]
    assert row["transcript"] is None


@pytest.fixture
def openai_fake(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv(KEY_ENV, SECRET)
    fake = FAKES["openai"](key=SECRET).start()
    yield fake
    fake.stop()


def _openai_profile(fake: Any, project: Path) -> dict[str, Any]:
    profile = Rig("openai", fake, project).profile(max_retries=0)
    return {"type": "openai", "voice": profile.voice, "api_key_env": KEY_ENV, **dict(profile.options)}


def test_debug_logs_and_the_html_report_never_show_the_key(pytester: pytest.Pytester, openai_fake: Any) -> None:
    # A redirect whose Location echoes the key: httpcore logs response headers at DEBUG.
    openai_fake.enqueue(Fault("raw", status=307, headers={"Location": f"http://127.0.0.1:9/moved?key={SECRET}"}))
    project = _project(pytester, _openai_profile(openai_fake, pytester.path))
    result = pytester.runpytest(
        "-p",
        "no:xdist",
        "--tts-engine=under-test",
        "--tts-results=out/results.jsonl",
        "--log-level=DEBUG",
        "--log-file=debug.log",
        "--log-file-level=DEBUG",
        "--html=report.html",
        "--self-contained-html",
    )
    output = result.stdout.str() + result.stderr.str()
    log = (project / "debug.log").read_text(encoding="utf-8")
    assert "receive_response_headers" in log  # the DEBUG records are there...
    assert leaked_fragment(log) is None  # ...without the key
    assert leaked_fragment(output) is None
    assert leaked_fragment((project / "report.html").read_text(encoding="utf-8")) is None
    row = _only_row(project)
    assert row["verdict"] == "error" and leaked_fragment(json.dumps(row)) is None


def test_a_key_echoed_by_the_recognizer_is_not_in_the_results(pytester: pytest.Pytester, openai_fake: Any) -> None:
    project = _project(pytester, _openai_profile(openai_fake, pytester.path))
    config = yaml.safe_load((project / "ttsbench.yaml").read_text())
    echo = f"import os; print('heard ' + os.environ[{KEY_ENV!r}])"
    config["asr"] = {"routes": [{"type": "command", "name": "echo", "command": [sys.executable, "-c", echo]}]}
    (project / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = pytester.runpytest("-p", "no:xdist", "--tts-engine=under-test", "--tts-results=out/results.jsonl")
    assert leaked_fragment(result.stdout.str()) is None
    row = _only_row(project)
    assert row["transcript"] == "heard [REDACTED]"
    assert leaked_fragment((project / "out" / "results.jsonl").read_text(encoding="utf-8")) is None
