"""DNSMOS inside a real run: each row carries the figures of its kept clip, under the chosen windowing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("speechmos", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')
# Imported here, before any in-process pytest run: pytester forgets modules a run imported, and
# onnx's compiled part cannot be imported a second time in one process.
pytest.importorskip("onnx", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')

from plugin_projects import write_project

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.quality.dnsmos import shared_dnsmos
from pytest_ttsbench.run_model.results import read_results

CASES = """\
suite: q-dnsmos
language: en
scorer: numbers
items:
  - id: plant-1984
    category: years
    text: "The plant opened in 1984."
    expect: {values: ["1984"]}
  - id: bridge-2026
    category: years
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2026"]}
  - id: gate-14
    category: numbers
    text: "Flight 237 leaves from gate 14."
    expect: {values: ["237", "14"]}
"""


def _config(extra: str = "") -> str:
    # Whisper plays no part here: a command route "hears" a fixed line, so the run is quick.
    heard = [sys.executable, "-c", "print('The plant opened in 1984.')"]
    echo = f"{{type: command, name: echo, command: {json.dumps(heard)}}}"
    return f"engines:\n  voice: {{type: espeak, voice: en-us}}\nasr:\n  routes:\n    - {echo}\n{extra}"


def _rows_and_clips(results: Path) -> list[tuple[dict[str, float | None], str, object]]:
    found = []
    for row in read_results(results):
        clip = decode_audio((results.parent / str(row.audio_path)).read_bytes()).samples
        found.append((row.quality, row.quality_models["dnsmos"], clip))
    return found


@pytest.mark.parametrize(
    ("options", "config", "windowing"),
    [
        ([], "", "clip"),
        (["--tts-dnsmos-windowing=reference"], "", "reference"),
        ([], "quality:\n  dnsmos_windowing: reference\n", "reference"),
        (["--tts-dnsmos-windowing=clip"], "quality:\n  dnsmos_windowing: reference\n", "clip"),
    ],
)
def test_rows_carry_the_figures_of_their_kept_clips(
    pytester: pytest.Pytester, options: list[str], config: str, windowing: str
) -> None:
    root = write_project(pytester, cases={"q.yaml": CASES}, config=_config(config))
    run = pytester.runpytest(
        "--tts-engine=voice", "--tts-quality=dnsmos,signal", "--tts-results=run/results.jsonl", *options
    )
    assert run.ret == 1  # the echo route hears 1984 for every item: two of the three are wrong
    found = _rows_and_clips(root / "run" / "results.jsonl")
    assert len(found) == 3
    dnsmos = shared_dnsmos(windowing)
    for quality, provenance, clip in found:
        assert f"; {windowing} windowing;" in provenance
        # Measured ahead, in the prefetch pool, yet the figures are those of the very clip kept.
        (expected,) = dnsmos.score([clip])
        assert {name: quality[name] for name in expected} == pytest.approx(expected, abs=1e-3)
        assert quality["speaking_rate"] is not None


def test_an_unknown_windowing_is_refused(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"q.yaml": CASES}, config=_config("quality:\n  dnsmos_windowing: hops\n"))
    run = pytester.runpytest("--tts-engine=voice", "--tts-quality=dnsmos")
    assert run.ret not in (0, 1)
    assert "dnsmos_windowing" in run.stderr.str() + run.stdout.str()
    run = pytester.runpytest("--tts-engine=voice", "--tts-dnsmos-windowing=hops")
    run.stderr.fnmatch_lines(["*--tts-dnsmos-windowing: invalid choice: 'hops'*"])
