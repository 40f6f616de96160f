"""A disk that refuses writes ends a run cleanly (session/output_failures.py, support/cache.py, issue 36).

- the run's own outputs (results, header, gate, manifest): refused before the run, a usage error
  (exit 4); refused once it started, exit 3 and one line naming the path and the error; never 1,
  never a traceback;
- the cache: every failed read or write counted, the run goes on without it, verdicts unchanged;
- the audio dir: each clip that cannot be kept fails its item, with the reason; the run goes on;
- SIGTERM: rows kept, gate file written with passed: false, persistent command workers stopped.

Real refusals from a small or read-only tmpfs where root may mount; everywhere, a full disk injected
at the two calls every writer goes through (tests/support/disk_faults.py).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from boundary_invariants import assert_outputs_clean, assert_terminal_clean
from disk_faults import FULL_DISK_CONFTEST, fill, small_tmpfs
from plugin_projects import PASSING_TRANSCRIPTS, PAUSE_AFTER_FIRST_ITEM, read_jsonl, start_paused_run, write_project

ECHO = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
SPOKEN = """\
suite: spoken
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, text: "The plant opened in 2026.", expect: {values: ["2026"]}}
  - {id: c, category: years, text: "It finally opened in 2026.", expect: {values: ["2026"]}}
"""


def _output(result: pytest.RunResult) -> str:
    return result.stdout.str() + "\n" + result.stderr.str()


def write_spoken_project(root: Path) -> None:
    """eSpeak NG says each item (a reproducible engine, so its clips are cached); an echo route hears it."""
    (root / "cases").mkdir(exist_ok=True)
    (root / "cases" / "spoken.yaml").write_text(SPOKEN, encoding="utf-8")
    config = {"asr": {"routes": [ECHO]}, "engines": {"espeak": {"type": "espeak", "voice": "en-us"}}}
    (root / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")


def test_outputs_refused_mid_run_end_with_status_3_and_one_line(pytester: pytest.Pytester, monkeypatch) -> None:
    write_project(pytester, transcripts=PASSING_TRANSCRIPTS)
    (pytester.path / "conftest.py").write_text(FULL_DISK_CONFTEST, encoding="utf-8")
    monkeypatch.setenv("TTSBENCH_TEST_FULL_DIR", str(pytester.path / "out"))
    monkeypatch.setenv("TTSBENCH_TEST_FULL_AFTER", "2500")  # the header fits, the rows do not
    result = pytester.runpytest_subprocess("--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-cache=off")
    output = _output(result)
    assert result.ret == 3, output[-3000:]
    assert_terminal_clean(output)
    told = [line for line in output.splitlines() if line.startswith("ttsbench: internal error:")]
    assert len(told) == 1 and "out/r.jsonl" in told[0] and "[Errno 28]" in told[0], told
    for path in (pytester.path / "out").glob("*.json"):  # whatever was written whole is strict JSON
        assert_outputs_clean(path.parent)


def test_a_full_results_disk_mid_run_is_status_3_never_1(pytester: pytest.Pytester) -> None:
    write_project(pytester, transcripts=PASSING_TRANSCRIPTS)
    with small_tmpfs(pytester.path / "full", size_kb=16) as full:
        fill(full, 6_000)
        result = pytester.runpytest_subprocess("--tts-engine=replay", f"--tts-results={full}/out/r.jsonl")
        output = _output(result)
        assert result.ret == 3, output[-3000:]
        assert_terminal_clean(output)
        assert "[Errno 28] No space left on device" in output


def test_a_results_folder_refused_before_the_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_project(pytester, transcripts=PASSING_TRANSCRIPTS)
    with small_tmpfs(pytester.path / "ro", read_only=True) as folder:
        result = pytester.runpytest_subprocess("--tts-engine=replay", f"--tts-results={folder}/r.jsonl")
        assert result.ret == 4
        assert_terminal_clean(_output(result))
        assert str(folder) in _output(result)


@pytest.mark.parametrize("kind", ["read-only", "full"])
def test_a_cache_that_refuses_writes_costs_nothing_but_the_cache(pytester: pytest.Pytester, kind: str) -> None:
    write_spoken_project(pytester.path)
    with small_tmpfs(pytester.path / "cache", size_kb=16, read_only=kind == "read-only") as cache:
        if kind == "full":
            fill(cache, 0)
        result = pytester.runpytest_subprocess(
            "--tts-engine=espeak", "--tts-results=out/r.jsonl", f"--tts-cache-dir={cache}"
        )
    output = _output(result)
    assert result.ret == 0, output[-3000:]
    assert_terminal_clean(output)
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert sorted(row["verdict"] for row in rows) == ["correct"] * 3 or {r["verdict"] for r in rows} <= {
        "correct",
        "wrong",
    }
    assert [row["verdict"] for row in rows] == ["correct"] * 3
    assert "cache write(s) failed" in output
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    assert sum(gate["cache"]["failed"].values()) >= 3


def test_a_full_cache_costs_nothing_but_the_cache_without_root(pytester: pytest.Pytester, monkeypatch) -> None:
    """The same family where no tmpfs can be mounted: the cache folder full from its first byte."""
    write_spoken_project(pytester.path)
    (pytester.path / "conftest.py").write_text(FULL_DISK_CONFTEST, encoding="utf-8")
    monkeypatch.setenv("TTSBENCH_TEST_FULL_DIR", str(pytester.path / "cache"))
    result = pytester.runpytest_subprocess("--tts-engine=espeak", "--tts-results=out/r.jsonl", "--tts-cache-dir=cache")
    output = _output(result)
    assert_terminal_clean(output)
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert result.ret == 0 and [row["verdict"] for row in rows] == ["correct"] * 3, output[-3000:]
    assert "cache write(s) failed" in output


def test_an_audio_dir_that_refuses_a_clip_fails_that_item_and_the_run_goes_on(pytester: pytest.Pytester) -> None:
    write_spoken_project(pytester.path)
    with small_tmpfs(pytester.path / "clips", read_only=True) as clips:
        result = pytester.runpytest_subprocess(
            "--tts-engine=espeak", "--tts-results=out/r.jsonl", f"--tts-audio-dir={clips}", "--tts-cache=off"
        )
    output = _output(result)
    assert result.ret == 1
    assert_terminal_clean(output)
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert len(rows) == 3
    for row in rows:
        assert row["verdict"] == "error" and "could not be kept in the audio directory" in row["error"]
        assert "[Errno 30]" in row["error"]


# --- SIGTERM ---------------------------------------------------------------------------------------

WORKER = """\
import json, os, subprocess, sys, time, wave
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(os.path.join(sys.argv[1], "child.pid"), "w").write(str(child.pid))
for line in sys.stdin:
    request = json.loads(line)
    with wave.open(request["out"], "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
        w.writeframes((b"\\x40\\x1f" * 20 + b"\\xc0\\xe0" * 20) * 400)
    print(json.dumps({"id": request["id"], "out": request["out"]}), flush=True)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_ends_the_run_as_an_interrupt_does(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "spoken.yaml").write_text(SPOKEN, encoding="utf-8")
    (pytester.path / "worker.py").write_text(WORKER, encoding="utf-8")
    (pytester.path / "conftest.py").write_text(PAUSE_AFTER_FIRST_ITEM, encoding="utf-8")
    engine = {"type": "command", "command": [sys.executable, "worker.py", "."], "persistent": True, "timeout_s": 20}
    config = {"asr": {"routes": [ECHO]}, "engines": {"local": engine}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    run, _go = start_paused_run(pytester.path, "--tts-engine=local", "--tts-results=out/r.jsonl", "--tts-cache=off")
    child = int((pytester.path / "child.pid").read_text())
    assert _alive(child)
    run.send_signal(signal.SIGTERM)
    output, _ = run.communicate(timeout=120)
    assert run.returncode == 2, output[-3000:]
    assert_terminal_clean(output)
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert len(rows) == 1  # the row written before the signal is kept
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["passed"] is False
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the persistent worker's process group outlived the run"


def test_sigterm_to_the_process_group_stops_every_xdist_workers_engines(pytester: pytest.Pytester) -> None:
    """A cancelled CI job signals the run's whole process group: the xdist workers get SIGTERM too, and
    each ends as on Ctrl-C, closing its engines, so no persistent engine process (each in a process
    group of its own) outlives the run."""
    pytest.importorskip("xdist")
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "spoken.yaml").write_text(SPOKEN, encoding="utf-8")
    # each engine process names its child in a file of its own (one engine per worker)
    worker = WORKER.replace('"child.pid"', 'f"child-{child.pid}.pid"')
    (pytester.path / "worker.py").write_text(worker, encoding="utf-8")
    (pytester.path / "conftest.py").write_text(PAUSE_AFTER_FIRST_ITEM, encoding="utf-8")
    engine = {"type": "command", "command": [sys.executable, "worker.py", "."], "persistent": True, "timeout_s": 20}
    config = {"asr": {"routes": [ECHO]}, "engines": {"local": engine}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")
    args = ("--tts-engine=local", "--tts-results=out/r.jsonl", "--tts-cache=off", "-n", "2")
    run, _go = start_paused_run(pytester.path, *args, own_group=True)
    children = [int(path.read_text()) for path in pytester.path.glob("child-*.pid")]
    assert children and all(_alive(child) for child in children)  # the paused worker's engine at least
    os.killpg(run.pid, signal.SIGTERM)
    output, _ = run.communicate(timeout=120)
    assert run.returncode == 2, output[-3000:]
    deadline = time.monotonic() + 10
    while any(_alive(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [child for child in children if _alive(child)]
    for child in left:
        os.kill(child, signal.SIGKILL)
    assert not left, f"persistent engine processes outlived the run: {left}\n{output[-3000:]}"
