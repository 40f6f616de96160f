"""The `command` ASR route: a program given {audio} and {lang}, run without a shell, read from stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from pytest_ttsbench.asr.base import AsrError
from pytest_ttsbench.asr.command_route import CommandRoute
from pytest_ttsbench.asr.registry import create_route
from pytest_ttsbench.audio.decoding import DecodedAudio

# A stand-in recognizer: reports what it was given, after checking the clip is a readable WAV.
RECOGNIZER = """\
import json, sys, wave
path, lang, *rest = sys.argv[1:]
with wave.open(path, "rb") as clip:
    info = {"rate": clip.getframerate(), "channels": clip.getnchannels(), "frames": clip.getnframes()}
print(json.dumps({"lang": lang, "rest": rest, "wav": info, "path": path}))
"""


def _clip(seconds: float = 0.25) -> DecodedAudio:
    samples = np.zeros(int(16000 * seconds), dtype=np.float32)
    samples[::50] = 0.2
    return DecodedAudio(samples, 16000, 16000, 1, "wav", 2)


@pytest.fixture
def recognizer(tmp_path: Path) -> Path:
    script = tmp_path / "recognizer.py"
    script.write_text(RECOGNIZER, encoding="utf-8")
    return script


def test_placeholders_and_wav(recognizer: Path) -> None:
    route = create_route({"type": "command", "command": [sys.executable, str(recognizer), "{audio}", "{lang}"]})
    assert isinstance(route, CommandRoute) and route.name.startswith("command:python")
    heard = json.loads(route.transcribe(_clip(), "zh-CN").text)
    assert heard["lang"] == "zh-CN"
    assert heard["wav"] == {"rate": 16000, "channels": 1, "frames": 4000}
    assert not Path(heard["path"]).exists()  # the temporary clip is gone once the route is done


def test_no_shell_is_involved(recognizer: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    command = f"{sys.executable} {recognizer} {{audio}} {{lang}} '$(touch {marker})' '; touch {marker}' $HOME"
    route = create_route({"type": "command", "command": command, "name": "mine"})
    heard = json.loads(route.transcribe(_clip(), "en").text)
    # string commands are split like a shell would, but nothing is substituted or run
    assert heard["rest"] == [f"$(touch {marker})", f"; touch {marker}", "$HOME"]
    assert not marker.exists()
    assert route.name == "mine"


def test_stdout_is_the_transcript_stripped(tmp_path: Path) -> None:
    script = tmp_path / "say.py"
    script.write_text("print('  In 2026, the bridge opened.  ')\n", encoding="utf-8")
    route = create_route({"type": "command", "command": [sys.executable, str(script)]})
    assert route.transcribe(_clip(), "en").text == "In 2026, the bridge opened."


def test_failure_carries_stderr(tmp_path: Path) -> None:
    script = tmp_path / "fail.py"
    script.write_text("import sys\nsys.stderr.write('model not loaded\\n')\nsys.exit(3)\n", encoding="utf-8")
    route = create_route({"type": "command", "command": [sys.executable, str(script)], "name": "broken"})
    with pytest.raises(AsrError, match=r"'broken': .* exited with status 3: model not loaded"):
        route.transcribe(_clip(), "en")


def test_timeout_and_missing_program(tmp_path: Path) -> None:
    script = tmp_path / "slow.py"
    script.write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    slow = create_route({"type": "command", "command": [sys.executable, str(script)], "timeout_s": 0.5})
    with pytest.raises(AsrError, match=r"no answer within 0.5 s"):
        slow.transcribe(_clip(), "en")
    missing = create_route({"type": "command", "command": [str(tmp_path / "no-such-asr"), "{audio}"]})
    with pytest.raises(AsrError, match="program not found"):
        missing.transcribe(_clip(), "en")


def test_extra_environment(tmp_path: Path) -> None:
    script = tmp_path / "env.py"
    script.write_text("import os\nprint(os.environ['ASR_MODE'], 'PATH' in os.environ)\n", encoding="utf-8")
    route = create_route({"type": "command", "command": [sys.executable, str(script)], "env": {"ASR_MODE": "fast"}})
    assert route.transcribe(_clip(), "en").text == "fast True"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({}, "'command' is required"),
        ({"command": []}, "must name a program"),
        ({"command": "x", "shell": True}, "unknown field"),
    ],
)
def test_bad_specs(spec: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_route({"type": "command", **spec})
