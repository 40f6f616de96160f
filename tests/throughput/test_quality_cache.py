"""Quality figures are cached by the clip's bytes and the measures' identity (#28): a warm rerun
measures nothing again, its rows still carry every figure, and the cache says so.

Real eSpeak NG clips and the real ``signal`` measures; the recognizer is a command route that
hears a fixed line, so the runs are quick and Whisper plays no part.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugin_projects import read_jsonl, write_project

from pytest_ttsbench.quality.meter import QualityMeter
from pytest_ttsbench.support.cache import seal_entry

CASES = """\
suite: q-cache
language: en
scorer: numbers
items:
  - {id: plant, category: years, text: "The plant opened in 1984.", expect: {values: ["1984"]}}
  - {id: gate, category: numbers, text: "Flight 237 leaves from gate 14.", expect: {values: ["237", "14"]}}
"""


def _config() -> str:
    heard = [sys.executable, "-c", "print('The plant opened in 1984.')"]
    echo = f"{{type: command, name: echo, command: {json.dumps(heard)}}}"
    return f"engines:\n  voice: {{type: espeak, voice: en-us}}\nasr:\n  routes:\n    - {echo}\n"


def _run(pytester: pytest.Pytester, name: str, *options: str) -> tuple[pytest.RunResult, list[dict], dict]:
    run = pytester.runpytest(
        "--tts-engine=voice", "--tts-quality=signal", f"--tts-results={name}/results.jsonl", *options
    )
    rows = read_jsonl(pytester.path / name / "results.jsonl")
    gate = json.loads((pytester.path / name / "results.gate.json").read_text(encoding="utf-8"))
    return run, rows, gate


def _figures(rows: list[dict]) -> dict[str, dict]:
    return {row["id"]: row["quality"] for row in rows}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    return write_project(pytester, cases={"q.yaml": CASES}, config=_config())


def test_a_warm_rerun_measures_nothing_and_writes_every_figure(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cold_rows, cold_gate = _run(pytester, "cold")
    assert {row["cache"]["quality"] for row in cold_rows} == {"miss"}
    assert cold_gate["cache"]["quality"] == {"reused": 0, "total": 2}
    assert all(row["quality"]["speaking_rate"] is not None for row in cold_rows)

    def refuse(self: QualityMeter, clips: object) -> list:
        raise AssertionError("a clip was measured again on a warm rerun")

    monkeypatch.setattr(QualityMeter, "measure_many", refuse)
    warm, warm_rows, warm_gate = _run(pytester, "warm")
    assert {row["cache"]["quality"] for row in warm_rows} == {"hit"}
    assert [row["error"] for row in warm_rows] == [None, None]
    assert _figures(warm_rows) == _figures(cold_rows)  # the same figures, per item, in its own row
    assert [row["quality_models"] for row in warm_rows] == [row["quality_models"] for row in cold_rows]
    assert warm_gate["cache"]["quality"] == {"reused": 2, "total": 2}
    warm.stdout.fnmatch_lines(["cache: *quality figures of 2 of 2 clip(s) reused*"])


def test_figures_come_from_the_entry_of_these_very_bytes_and_measures(pytester: pytest.Pytester, project: Path) -> None:
    """An entry is found by its key alone: a (sealed) entry with other figures under the clip's key is
    what the rerun reports, so the figures were read, not measured again; ``--tts-cache=off`` measures."""
    _, cold_rows, _ = _run(pytester, "cold")
    entries = sorted((project / ".ttsbench" / "cache" / "quality").rglob("*.json"))
    assert len(entries) == 2
    for entry in entries:
        key = entry.name.removesuffix(".json")
        body = json.loads(entry.read_bytes().partition(b"\n")[2])
        body["figures"]["speaking_rate"] = 99.0
        entry.write_bytes(seal_entry("quality", key, json.dumps(body).encode()))
    _, warm_rows, _ = _run(pytester, "warm")
    assert [row["quality"]["speaking_rate"] for row in warm_rows] == [99.0, 99.0]
    _, off_rows, _ = _run(pytester, "off", "--tts-cache=off")
    assert _figures(off_rows) == _figures(cold_rows)
    assert {row["cache"]["quality"] for row in off_rows} == {"off"}


def test_a_damaged_quality_entry_is_a_counted_miss_measured_again(pytester: pytest.Pytester, project: Path) -> None:
    _, cold_rows, _ = _run(pytester, "cold")
    for entry in (project / ".ttsbench" / "cache" / "quality").rglob("*.json"):
        entry.write_bytes(entry.read_bytes().replace(b"speaking_rate", b"speaking_ratE"))  # no longer its seal
    run, rows, gate = _run(pytester, "again")
    assert {row["cache"]["quality"] for row in rows} == {"damaged"}
    assert _figures(rows) == _figures(cold_rows)
    assert gate["cache"]["damaged_entries"] == {"quality": 2}
    run.stdout.fnmatch_lines(["cache: *damaged cache entries ignored and made again: 2 quality*"])


def test_a_changed_measure_or_text_measures_afresh(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Figures are never carried over: another model version, another measuring code, or another
    text sent (the speaking rate counts its letters) is a new key, so the clip is measured again."""
    _run(pytester, "cold")
    identity = QualityMeter.cache_identity

    def newer_model(self: QualityMeter) -> dict[str, object]:
        found = identity(self)
        return {**found, "models": {"signal": "pyloudnorm 99.0 (a newer release)"}}

    with monkeypatch.context() as patched:
        patched.setattr(QualityMeter, "cache_identity", newer_model)
        _, rows, _ = _run(pytester, "newer")
    assert {row["cache"]["quality"] for row in rows} == {"miss"}
    (project / "cases" / "q.yaml").write_text(CASES.replace("Flight 237", "Flight  237"), encoding="utf-8")
    _, rows, _ = _run(pytester, "edited")
    sources = {row["id"]: row["cache"]["quality"] for row in rows}
    assert sources == {"q-cache/plant": "hit", "q-cache/gate": "miss"}
