"""The command engine's ``{item_id}``/``{seed}`` placeholders and its persistent mode: a worker that
loads once, answers a JSON line per request, and whose crash or hang becomes an error row."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from plugin_projects import read_jsonl
from test_adapter_command import make, script  # noqa: F401  (the fixture)

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, SynthesisRequest

# A local "model" server: logs its start (the load) per pid, then answers one line per request.
# Text with CRASH or HANG misbehaves once (a marker file remembers it did), STDOUT-NOISE prints a
# log line before its answer, REFUSE answers an error, and OUT-OF-STEP answers for another item.
WORKER = textwrap.dedent(
    """
    import json, os, sys, time, wave
    import numpy as np

    folder = sys.argv[1]
    with open(os.path.join(folder, f"{os.getpid()}.loads"), "a") as f:
        f.write("loaded\\n")
    print("model loaded, 1.5B parameters", flush=True)  # a log line on stdout: skipped

    def once(name):
        marker = os.path.join(folder, name)
        if os.path.exists(marker):
            return False
        open(marker, "w").close()
        return True

    for line in sys.stdin:
        request = json.loads(line)
        with open(os.path.join(folder, f"{os.getpid()}.items"), "a") as f:
            f.write(json.dumps(request) + "\\n")
        text = request["text"]
        if "CRASH" in text and once("crashed"):
            token = os.environ.get("TTSBENCH_TEST_TTS_KEY", "")
            sys.stderr.write("Segmentation fault in the vocoder; token=" + token + "\\n")
            sys.stderr.flush()
            os._exit(3)
        if "HANG" in text and once("hung"):
            time.sleep(3600)
        if "REFUSE" in text:
            print(json.dumps({"id": request["id"], "error": "text too long for this voice"}), flush=True)
            continue
        if "OUT-OF-STEP" in text:
            print(json.dumps({"id": "someone/else", "out": request["out"]}), flush=True)
            continue
        if "STDOUT-NOISE" in text:
            print("step 1/40 ...", flush=True)
        rate = 16000
        t = np.arange(int(rate * 0.6)) / rate
        samples = (0.3 * np.sin(2 * np.pi * 330 * t) * 32767).astype("<i2").tobytes()
        with wave.open(request["out"], "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate); w.writeframes(samples)
        print(json.dumps({"id": request["id"], "out": request["out"], "metadata": {"model": "fake-v3"}}), flush=True)
    """
)


@pytest.fixture
def worker(tmp_path: Path) -> Path:
    path = tmp_path / "worker.py"
    path.write_text(WORKER, encoding="utf-8")
    (tmp_path / "log").mkdir()
    return path


def ask(engine, text: str, item: str, seed: int = 42):
    return engine.synthesize(SynthesisRequest(text, "en", "alice", item, seed=seed))


def loads(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.loads"))


def test_item_id_and_seed_placeholders(tmp_path, script):  # noqa: F811
    log = tmp_path / "log.json"
    engine = make(tmp_path, [sys.executable, str(script), "--text", "{item_id}|{seed}", "--log", str(log)])
    made = ask(engine, "Hello.", "demo/y-1", seed=1234)
    assert json.loads(log.read_text())["argv"][:2] == ["--text", "demo/y-1|1234"]
    assert made.metadata["seed"] == 1234  # sent to the program, so recorded
    without = make(tmp_path, [sys.executable, str(script), "--log", str(log)])
    assert "seed" not in ask(without, "Hello.", "demo/y-1").metadata  # never sent: not recorded


def test_the_worker_loads_once_and_survives_a_crash_and_a_hang(tmp_path, worker, monkeypatch):
    monkeypatch.setenv("TTSBENCH_TEST_TTS_KEY", "sk-worker-secret-0192")
    folder = tmp_path / "log"
    engine = make(
        tmp_path, [sys.executable, str(worker), str(folder)], persistent=True, timeout_s=5,
        api_key_env="TTSBENCH_TEST_TTS_KEY",
    )  # fmt: skip
    first = ask(engine, "The plant opened in 2026.", "s/a", seed=7)
    assert decode_audio(first.audio).seconds == pytest.approx(0.6, abs=0.01)
    assert first.metadata["model"] == "fake-v3" and first.metadata["seed"] == 7
    ask(engine, "STDOUT-NOISE then the answer.", "s/b")
    assert len(loads(folder)) == 1  # one load for both items

    with pytest.raises(EngineError) as crashed:
        ask(engine, "CRASH here.", "s/crash")
    message = str(crashed.value)
    assert "exited (status 3) before answering" in message and "Segmentation fault" in message
    assert "sk-worker-secret-0192" not in message and "[REDACTED]" in message

    assert ask(engine, "After the crash.", "s/c").audio  # a fresh worker answers the next item
    assert len(loads(folder)) == 2

    with pytest.raises(EngineError, match=r"no answer within the deadline \(5 s, timeout_s\).*restarts"):
        ask(engine, "HANG here.", "s/hang")
    assert ask(engine, "After the hang.", "s/d").audio
    assert len(loads(folder)) == 3

    with pytest.raises(EngineError, match="reported an error for item 's/refuse': text too long for this voice"):
        ask(engine, "REFUSE this one.", "s/refuse")
    assert ask(engine, "Still the same worker.", "s/e").audio
    assert len(loads(folder)) == 3  # an error answer does not restart anything

    requests = [json.loads(line) for p in folder.glob("*.items") for line in p.read_text().splitlines()]
    first_request = next(r for r in requests if r["id"] == "s/a")
    assert first_request["text"] == "The plant opened in 2026." and first_request["seed"] == 7
    assert first_request["voice"] == "alice" and first_request["language"] == "en"
    pids = [int(p) for p in loads(folder)]
    engine.close()
    for pid in pids:  # every worker, the hung one included, is gone
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_an_answer_for_another_item_stops_the_worker(tmp_path, worker):
    folder = tmp_path / "log"
    engine = make(tmp_path, [sys.executable, str(worker), str(folder)], persistent=True, timeout_s=5)
    with pytest.raises(EngineError, match="answered for item 'someone/else' while asked for 's/x'"):
        ask(engine, "OUT-OF-STEP", "s/x")
    assert ask(engine, "Fine now.", "s/y").audio
    assert len(loads(folder)) == 2
    engine.close()


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"persistent": "yes"}, "persistent must be true or false"),
        (
            {"persistent": True, "startup_timeout_s": -1},
            "option startup_timeout_s must be a number of at least 0, got -1",
        ),
    ],
)
def test_bad_persistent_options(tmp_path, worker, options, match):
    with pytest.raises(ConfigError, match=match):
        make(tmp_path, [sys.executable, str(worker), "x"], **options)


def test_a_persistent_command_takes_no_placeholders(tmp_path, worker):
    with pytest.raises(ConfigError, match="its arguments take no placeholders"):
        make(tmp_path, [sys.executable, str(worker), "{text}"], persistent=True)


CASES = """\
suite: worker-numerals
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
  - {id: crash, category: years, text: "CRASH in 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, text: "It opened in 2026 again.", expect: {values: ["2026"]}}
  - {id: hang, category: years, text: "HANG in 2026.", expect: {values: ["2026"]}}
  - {id: c, category: years, text: "And once more in 2026.", expect: {values: ["2026"]}}
"""


def test_a_run_records_the_crash_and_the_hang_as_errors_and_goes_on(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "worker.yaml").write_text(CASES, encoding="utf-8")
    (pytester.path / "worker.py").write_text(WORKER, encoding="utf-8")
    (pytester.path / "log").mkdir()
    route = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
    engine = {"type": "command", "command": [sys.executable, "worker.py", "log"], "persistent": True, "timeout_s": 5}
    config = {"asr": {"routes": [route]}, "engines": {"local": engine}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    pytester.runpytest_subprocess("--tts-engine=local", "--tts-results=r.jsonl")
    rows = {row["id"].split("/")[1]: row for row in read_jsonl(pytester.path / "r.jsonl")}
    assert {name: row["verdict"] for name, row in rows.items()} == {
        "a": "correct", "crash": "error", "b": "correct", "hang": "error", "c": "correct",
    }  # fmt: skip
    assert "exited (status 3)" in rows["crash"]["error"] and "no answer within" in rows["hang"]["error"]
    assert len(loads(pytester.path / "log")) == 3  # the first start, and one restart after each failure
