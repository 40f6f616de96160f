"""CommandEngine with a real program: placeholders, no shell, stdout or file output, failures, timeouts."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tts_providers import TONE_SECONDS

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError, EngineProfile
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, SynthesisRequest
from pytest_ttsbench.engines.command import CommandEngine, substitute
from pytest_ttsbench.support.bounded_process import run_bounded

# A stand-in TTS program: logs what it received, then writes a WAV (or PCM) to --out or stdout.
SCRIPT = textwrap.dedent(
    """
    import argparse, io, json, os, subprocess, sys, time, wave
    import numpy as np

    p = argparse.ArgumentParser()
    p.add_argument("--text-file"); p.add_argument("--text"); p.add_argument("--out")
    p.add_argument("--lang"); p.add_argument("--voice"); p.add_argument("--log")
    p.add_argument("--mode", default="ok"); p.add_argument("--pcm", action="store_true")
    a = p.parse_args()
    if a.log:
        with open(a.log, "w", encoding="utf-8") as f:
            json.dump({"argv": sys.argv[1:], "file_text": open(a.text_file, encoding="utf-8").read()
                       if a.text_file else None, "cwd": os.getcwd(), "pid": os.getpid()}, f)
    if a.mode == "fail":
        sys.stderr.write("loading voice...\\n" * 50 + "fatal: voice model missing; key=" +
                         os.environ.get("TTSBENCH_TEST_TTS_KEY", "") + "\\n")
        sys.exit(3)
    if a.mode == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        with open(a.log + ".child", "w") as f:
            f.write(str(child.pid))
        time.sleep(30)
    if a.mode == "nothing":
        sys.exit(0)
    rate = 22050
    t = np.arange(int(rate * 0.6)) / rate
    samples = (0.3 * np.sin(2 * np.pi * 330 * t) * 32767).astype("<i2").tobytes()
    if a.pcm:
        data = samples
    else:
        buf = io.BytesIO()
        with wave.open(buf, "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate); w.writeframes(samples)
        data = buf.getvalue()
    if a.out:
        open(a.out, "wb").write(data)
    else:
        out = sys.stdout.buffer
        for i in range(0, len(data), 8192):
            out.write(data[i:i + 8192]); out.flush(); time.sleep(0.03)
    """
)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "fake_tts.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def make(tmp_path: Path, argv: list[str], **options) -> CommandEngine:
    voice = options.pop("voice", {"en": "alice", "th": "somchai"})
    api_key_env = options.pop("api_key_env", None)
    profile = EngineProfile(
        name="cmd", type="command", voice=voice, api_key_env=api_key_env,
        options={"command": argv, **options}, base_dir=tmp_path,
    )  # fmt: skip
    return CommandEngine(profile)


def test_placeholders_and_file_output(tmp_path, script):
    log = tmp_path / "log.json"
    argv = [sys.executable, str(script), "--text-file", "{text_file}", "--out", "{out}", "--lang", "{lang}",
            "--voice", "{voice}", "--text", "{text}", "--log", str(log)]  # fmt: skip
    engine = make(tmp_path, argv)
    text = "ผมติดตั้งแอป LINE เมื่อ 12/3"
    result = engine.synthesize(SynthesisRequest(text=text, language="th"))
    seen = json.loads(log.read_text(encoding="utf-8"))
    assert seen["file_text"] == text
    assert seen["argv"][seen["argv"].index("--text") + 1] == text
    assert seen["argv"][seen["argv"].index("--lang") + 1] == "th"
    assert seen["argv"][seen["argv"].index("--voice") + 1] == "somchai"
    assert seen["argv"][seen["argv"].index("--out") + 1].endswith("out.wav")
    assert Path(seen["cwd"]) == tmp_path  # runs from the configuration folder
    assert decode_audio(result.audio).seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    # From a file, the first byte is there only when the program has finished.
    assert result.first_byte_seconds == pytest.approx(result.metadata["total_seconds"], abs=1e-5)


def test_text_cannot_inject_commands(tmp_path, script):
    log = tmp_path / "log.json"
    text = '"; touch PWNED1; echo $(touch PWNED2) `touch PWNED3` | touch PWNED4 {out} {lang}'
    argv = [sys.executable, str(script), "--text", "{text}", "--out", "{out}", "--log", str(log)]
    make(tmp_path, argv).synthesize(SynthesisRequest(text=text, language="en"))
    seen = json.loads(log.read_text(encoding="utf-8"))
    assert seen["argv"][1] == text  # one argument, verbatim, its own "{out}" left alone
    assert not list(tmp_path.glob("PWNED*"))
    assert not list(Path(seen["cwd"]).glob("PWNED*"))


def test_substitute_is_single_pass_and_per_argument():
    values = {"text": "{voice}", "voice": "v", "out": "o", "lang": "l", "text_file": "f"}
    assert substitute(["--x={text}/{voice}", "{json: 1}", "{out}{out}"], values) == ["--x={voice}/v", "{json: 1}", "oo"]


def test_stdout_output_measures_first_byte(tmp_path, script):
    engine = make(tmp_path, [sys.executable, str(script), "--text", "{text}"])
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    assert decode_audio(result.audio).seconds == pytest.approx(TONE_SECONDS, abs=0.02)
    assert result.first_byte_seconds is not None
    assert result.metadata["total_seconds"] - result.first_byte_seconds >= 0.1  # later chunks came later


def test_headerless_pcm_output(tmp_path, script):
    engine = make(tmp_path, [sys.executable, str(script), "--pcm", "--out", "{out}"], pcm_sample_rate=22050)
    result = engine.synthesize(SynthesisRequest(text="1", language="en"))
    assert (result.media_type, result.pcm_sample_rate) == ("audio/pcm", 22050)
    assert decode_audio(result.audio, result.pcm_sample_rate).seconds == pytest.approx(TONE_SECONDS, abs=0.02)


def test_failure_reports_the_stderr_tail_without_secrets(tmp_path, script, monkeypatch):
    secret = "cmd-secret-value-991"
    monkeypatch.setenv("TTSBENCH_TEST_TTS_KEY", secret)
    engine = make(tmp_path, [sys.executable, str(script), "--mode", "fail"], api_key_env="TTSBENCH_TEST_TTS_KEY")
    with pytest.raises(EngineError) as info:
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    message = str(info.value)
    assert "exited with status 3" in message
    assert "fatal: voice model missing" in message
    assert secret not in message and "[REDACTED]" in message
    assert len(message) < 2300  # the tail, not the whole log


def test_timeout_kills_the_program_and_its_children(tmp_path, script):
    log = tmp_path / "log.json"
    engine = make(tmp_path, [sys.executable, str(script), "--mode", "hang", "--log", str(log)], timeout_s=1.5)
    start = time.perf_counter()
    with pytest.raises(EngineError, match=r"timed out after 1.5 s"):
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    assert time.perf_counter() - start < 4
    for pid_text in (str(json.loads(log.read_text())["pid"]), (tmp_path / "log.json.child").read_text()):
        assert _dies_soon(Path(f"/proc/{pid_text}/status"))


def _dies_soon(status: Path, within_s: float = 10.0) -> bool:
    # SIGKILL reaches a process on a busy machine a moment after killpg returns: poll until it is
    # gone or a zombie (an unreaped zombie is dead too), for at most within_s.
    due = time.monotonic() + within_s
    while time.monotonic() < due:
        try:
            if "State:\tZ" in status.read_text():
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


# Exits at once, leaving a child in a session of its own (out of reach of the group kill) that
# holds standard output and error open for a minute.
ESCAPED_CHILD = textwrap.dedent(
    """
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        with open(sys.argv[1], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(60)
        os._exit(0)
    sys.stdout.write("RIFF")
    sys.stdout.flush()
    """
)


@pytest.fixture
def escaped_child(tmp_path: Path):
    """(argv, pid file) of a program whose child keeps its pipes; the child is ended afterwards."""
    script, pid_file = tmp_path / "escape.py", tmp_path / "child.pid"
    script.write_text(ESCAPED_CHILD, encoding="utf-8")
    yield [sys.executable, str(script), str(pid_file)]
    for _ in range(100):
        if pid_file.is_file() and pid_file.read_text():
            break
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, ValueError, FileNotFoundError):
        os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_child_holding_the_output_open_does_not_outlive_the_deadline(tmp_path, escaped_child):
    """The deadline is for the whole run, output closed included, not just the program's own exit."""
    engine = make(tmp_path, escaped_child, timeout_s=1.5)
    start = time.perf_counter()
    with pytest.raises(EngineError, match=r"timed out after 1.5 s \(timeout_s: the deadline"):
        engine.synthesize(SynthesisRequest(text="1", language="en"))
    assert time.perf_counter() - start < 20  # the child holds the pipe for 60 s


@pytest.mark.parametrize(("mode", "argv_tail"), [("nothing", ["--out", "{out}"]), ("nothing", [])])
def test_no_audio_is_an_engine_error(tmp_path, script, mode, argv_tail):
    engine = make(tmp_path, [sys.executable, str(script), "--mode", mode, *argv_tail])
    with pytest.raises(EngineError, match=r"no (file|audio)"):
        engine.synthesize(SynthesisRequest(text="1", language="en"))


def test_missing_program_is_unavailable(tmp_path):
    with pytest.raises(EngineUnavailable, match="not on PATH"):
        make(tmp_path, ["ttsbench-no-such-program-xyz", "{text}"])
    (tmp_path / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(tmp_path / "tool.sh", 0o644)
    with pytest.raises(EngineUnavailable, match="not an executable"):
        make(tmp_path, ["./tool.sh", "{text}"])


@pytest.mark.parametrize("options", [{"command": "say {text}"}, {"command": []}, {"command": ["x"], "timeout_s": 0}])
def test_bad_command_options_are_config_errors(tmp_path, options):
    profile = EngineProfile(name="cmd", type="command", options=options, base_dir=tmp_path)
    with pytest.raises(ConfigError):
        CommandEngine(profile)


@pytest.mark.parametrize(
    "program",
    [
        "import sys, time\nwhile True:\n    sys.stdout.write('x'); sys.stdout.flush(); time.sleep(0.1)",
        "import sys\nwhile True:\n    sys.stderr.write('loading...' * 1000)",
        "import time\ntime.sleep(60)",
        "import os, sys, time\nos.close(1); os.close(2)\ntime.sleep(60)",
    ],
    ids=["trickles-stdout", "floods-stderr", "sleeps", "closes-output-then-sleeps"],
)
def test_no_program_outlives_its_deadline(program: str) -> None:
    """Whatever a program does with its pipes, run_bounded returns by the deadline with timed_out set."""
    start = time.perf_counter()
    ran = run_bounded([sys.executable, "-c", program], timeout_s=1.0, max_stdout_bytes=1 << 20)
    assert ran.timed_out and ran.code is None
    assert time.perf_counter() - start < 20  # each would go on for a minute or forever
