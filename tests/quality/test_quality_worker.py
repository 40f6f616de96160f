"""DNSMOS off the critical path and cached (#28 item 4): the worker gives the figures the inline
path gives, a rerun served from the cache never loads the models, a damaged entry is a counted
miss measured again, and an interrupt mid-run leaves no row without its figures.

Real eSpeak NG clips and the real DNSMOS models; the recognizer is a command route that hears a
fixed line, so Whisper plays no part.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("speechmos", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')
# Imported before any in-process pytest run: pytester forgets modules a run imported, and onnx's
# compiled part cannot be imported a second time in one process.
pytest.importorskip("onnx", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')

from plugin_projects import read_jsonl, write_project

from pytest_ttsbench.quality.dnsmos import Dnsmos, dnsmos_provenance
from pytest_ttsbench.quality.measures import QualityUnavailable, measure_names
from pytest_ttsbench.quality.meter import ClipToMeasure, QualityMeter
from pytest_ttsbench.quality.worker import WORKER_KINDS, _lower_priority, measure_later

CASES = """\
suite: q-worker
language: en
scorer: numbers
items:
  - {id: plant, category: years, text: "The plant opened in 1984.", expect: {values: ["1984"]}}
  - {id: gate, category: numbers, text: "Flight 237 leaves from gate 14.", expect: {values: ["237", "14"]}}
  - {id: bridge, category: years, text: "The bridge opens in 2026.", expect: {values: ["2026"]}}
"""
SETS = ("dnsmos", "signal")
NAMES = measure_names(SETS)


def _config() -> str:
    heard = [sys.executable, "-c", "print('The plant opened in 1984.')"]
    echo = f"{{type: command, name: echo, command: {json.dumps(heard)}}}"
    return f"engines:\n  voice: {{type: espeak, voice: en-us}}\nasr:\n  routes:\n    - {echo}\n"


# Written by the run itself as it ends: whether it imported onnxruntime or built a DNSMOS model pair.
REPORTING_CONFTEST = """
import json, sys
from pathlib import Path

def pytest_unconfigure(config):
    dnsmos = sys.modules.get("pytest_ttsbench.quality.dnsmos")
    built = dnsmos.shared_dnsmos.cache_info().currsize if dnsmos is not None else 0
    report = {"onnxruntime": "onnxruntime" in sys.modules, "models_built": built}
    Path(config.rootpath, "imported.json").write_text(json.dumps(report))
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    monkeypatch.delenv("TTSBENCH_QUALITY_WORKER", raising=False)
    return write_project(pytester, cases={"q.yaml": CASES}, config=_config())


def _options(name: str) -> list[str]:
    return ["--tts-engine=voice", "--tts-quality=dnsmos,signal", f"--tts-results={name}/results.jsonl"]


def _figures(rows: list[dict]) -> dict[str, dict]:
    return {row["id"]: row["quality"] for row in rows}


@pytest.mark.parametrize("kind", WORKER_KINDS)
def test_the_worker_gives_the_inline_figures(
    kind: str, espeak_clips, piper_clips, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTSBENCH_QUALITY_WORKER", kind)
    meter = QualityMeter(SETS)
    clips = [
        ClipToMeasure(espeak_clips[0], "The new bridge"),
        ClipToMeasure(piper_clips[1], "Call me at nine"),
        ClipToMeasure(espeak_clips[2][:8000], "short"),  # repeated to 3 s by the clip windowing
    ]
    pending = [measure_later(meter, clip) for clip in clips]
    measured = [p.result(timeout=300) for p in pending]
    assert measured == [meter.measure(clip) for clip in clips]
    assert all(list(figures) == NAMES and figures["dnsmos_ovrl"] is not None for figures in measured)


def test_a_warm_rerun_loads_no_model_and_a_damaged_entry_is_measured_again(
    pytester: pytest.Pytester, project: Path
) -> None:
    cold = pytester.runpytest(*_options("cold"))
    assert cold.ret == 1  # the echo route hears 1984 for every item: two of the three are wrong
    cold_rows = read_jsonl(project / "cold" / "results.jsonl")
    assert {row["cache"]["quality"] for row in cold_rows} == {"miss"}
    assert all(list(row["quality"]) == NAMES and row["quality"]["dnsmos_ovrl"] is not None for row in cold_rows)

    # The rerun in a process of its own, so what it imported is its own doing.
    (project / "conftest.py").write_text(REPORTING_CONFTEST, encoding="utf-8")
    warm = pytester.runpytest_subprocess(*_options("warm"))
    assert warm.ret == 1
    warm_rows = read_jsonl(project / "warm" / "results.jsonl")
    assert {row["cache"]["quality"] for row in warm_rows} == {"hit"}
    assert _figures(warm_rows) == _figures(cold_rows)
    assert [row["quality_models"] for row in warm_rows] == [row["quality_models"] for row in cold_rows]
    assert json.loads((project / "imported.json").read_text()) == {"onnxruntime": False, "models_built": 0}

    # One entry no longer matching its seal: counted, measured again with the models, the same figures.
    entries = sorted((project / ".ttsbench" / "cache" / "quality").rglob("*.json"))
    assert len(entries) == 3
    entries[0].write_bytes(entries[0].read_bytes().replace(b"dnsmos_ovrl", b"dnsmos_ovrL"))
    again = pytester.runpytest_subprocess(*_options("again"))
    again_rows = read_jsonl(project / "again" / "results.jsonl")
    assert sorted(row["cache"]["quality"] for row in again_rows) == ["damaged", "hit", "hit"]
    assert _figures(again_rows) == _figures(cold_rows)
    gate = json.loads((project / "again" / "results.gate.json").read_text(encoding="utf-8"))
    assert gate["cache"]["damaged_entries"] == {"quality": 1}
    again.stdout.fnmatch_lines(["cache: *damaged cache entries ignored and made again: 1 quality*"])
    assert json.loads((project / "imported.json").read_text()) == {"onnxruntime": True, "models_built": 1}


# Ctrl-C while the second item's test runs and its clip is being measured: the interrupt lands in
# the test thread (as a terminal's does) at the moment the worker is busy with that clip.
INTERRUPTING_CONFTEST = """
import _thread, signal, threading
from pytest_ttsbench.quality.meter import QualityMeter

# interrupt_main() does nothing where SIGINT is ignored, as it is in the children of a runner
# started in the background (nohup, '&'): Python's own Ctrl-C handler first, as in a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

second_test_started = threading.Event()
measured = []
measure = QualityMeter.measure

def interrupting(self, clip):
    measured.append(clip)
    if len(measured) == 2:
        second_test_started.wait(timeout=120)
        _thread.interrupt_main()
    return measure(self, clip)

QualityMeter.measure = interrupting

def pytest_runtest_setup(item):
    if item.name.endswith("[numbers/gate]"):
        second_test_started.set()
"""


def test_an_interrupt_mid_run_leaves_no_row_without_its_figures(pytester: pytest.Pytester, project: Path) -> None:
    (project / "conftest.py").write_text(INTERRUPTING_CONFTEST, encoding="utf-8")
    run = pytester.runpytest_subprocess(*_options("stopped"))
    assert run.ret == pytest.ExitCode.INTERRUPTED
    rows = read_jsonl(project / "stopped" / "results.jsonl")
    # The first item's row went out whole; the interrupted one went out not at all, rather than without figures.
    assert [row["id"] for row in rows] == ["q-worker/plant"]
    for row in rows:
        assert list(row["quality"]) == NAMES
        assert all(row["quality"][name] is not None for name in NAMES if name.startswith("dnsmos"))
        assert row["cache"]["quality"] == "miss"
    # What the run did finish is kept: a rerun reuses the first clip's figures and measures the rest.
    (project / "conftest.py").unlink()
    pytester.runpytest_subprocess(*_options("resumed"))
    resumed = {row["id"]: row["cache"]["quality"] for row in read_jsonl(project / "resumed" / "results.jsonl")}
    assert resumed["q-worker/plant"] == "hit"
    assert resumed["q-worker/bridge"] == "miss"


@pytest.mark.parametrize("windowing", ["clip", "reference"])
def test_the_provenance_read_without_the_models_is_the_loaded_models(windowing: str) -> None:
    # The cache key and the rows name the models by this string; computing it must load nothing.
    assert dnsmos_provenance(windowing) == Dnsmos(windowing=windowing).provenance


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="thread priorities are a POSIX feature")
@pytest.mark.parametrize("nice", [0, 10])
def test_a_nice_value_lowers_the_worker_thread_alone(nice: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTSBENCH_QUALITY_NICE", str(nice))

    def priority() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    own, seen = priority(), []

    def initialize() -> None:
        _lower_priority()
        seen.append(priority())

    worker = threading.Thread(target=initialize)
    worker.start()
    worker.join()
    assert seen == [min(own + nice, 19)]
    assert priority() == own  # the test thread keeps its priority


def test_the_start_up_check_and_the_cache_key_load_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []

    def counting(self: Dnsmos, threads: int | None = 1, windowing: str = "clip") -> None:
        built.append(windowing)
        raise AssertionError("a DNSMOS model pair was built")

    monkeypatch.setattr(Dnsmos, "__init__", counting)
    meter = QualityMeter(SETS)
    meter.check_available()
    identity = meter.cache_identity()  # what every clip's cache key is made of
    assert "sig_bak_ovr.onnx sha256:" in str(identity["models"])
    assert meter.provenance()["dnsmos"] == dnsmos_provenance("clip")
    assert built == []
    for missing, windowing in (("onnxruntime", "clip"), ("onnx", "clip"), ("speechmos", "reference")):
        with monkeypatch.context() as absent:
            absent.setitem(sys.modules, missing, None)
            with pytest.raises(QualityUnavailable, match=rf'needs {missing}: pip install "pytest-ttsbench\[quality\]"'):
                QualityMeter(SETS, windowing).check_available()
    assert built == []
