"""End to end on the embedded default: real eSpeak NG audio, real faster-whisper transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_projects import read_jsonl, write_project

from pytest_ttsbench.audio.decoding import decode_audio

CASES = """\
suite: e2e-numerals
language: en
scorer: numbers
items:
  - id: bridge-2026
    category: years
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2026"]}
  - id: lease-date
    category: dates
    text: "The lease runs until March 3rd, 2026."
    expect: {values: ["3", "2026"]}
  - id: wrong-on-purpose
    category: years
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2027"]}
"""


def test_espeak_whisper_round_trip(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"e2e.yaml": CASES}, config="engines: {}\n")
    result = pytester.runpytest("--tts-engine=espeak", "--tts-results=out/r.jsonl", "-k", "numerals")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "wrong on espeak: missing: 2027; parsed: 2026*",
            "  text:     The new bridge over the river is scheduled to open in 2026.",
            "  expected: values 2027",
            "  heard:    *2026*",
            # relative to where pytest was started, as a person would type it
            "  audio:    out/r-audio/espeak/e2e-numerals/wrong-on-purpose-*.wav",
        ]
    )
    result.stdout.fnmatch_lines(["*ttsbench summary*", "espeak  e2e-numerals  (all) *3 *2 *1 *0 *0 *66.7%*"])
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert len(rows) == 3
    for row in rows:
        assert row["transcripts"] and next(iter(row["transcripts"])).startswith("whisper:")
        assert not Path(row["audio_path"]).is_absolute()  # relative to the results file's folder
        path = pytester.path / "out" / row["audio_path"]
        assert path.is_file()
        clip = decode_audio(path.read_bytes())
        assert 0.5 < clip.seconds < 10
        assert row["audio_seconds"] == pytest.approx(clip.seconds, abs=0.05)
        # The same text twice in a run is one request: the later item may find the clip already
        # cached (timing decides), and a reused clip has no latency figure.
        if row["cache"]["audio"] == "hit":
            assert row["synth_seconds"] is None and row["text"].startswith("The new bridge")
        else:
            assert row["synth_seconds"] > 0
        assert row["asr_seconds"] > 0
        assert row["audio_sha256"] and len(row["audio_sha256"]) == 64
    assert sum(row["cache"]["audio"] == "miss" for row in rows) >= 2
    # the two items with the same text share one clip, each with its own verdict
    same = [r for r in rows if r["text"].startswith("The new bridge")]
    assert {r["verdict"] for r in same} == {"correct", "wrong"}
