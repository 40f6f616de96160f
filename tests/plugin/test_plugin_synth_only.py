"""A synthesize-only split run: real eSpeak NG clips and their manifest, no ASR; the Whisper-free
duration control of the numeral forms on them; and the same clips scored later, through the
``audio-dir`` engine, by real faster-whisper."""

from __future__ import annotations

import json

import pytest
import yaml
from plugin_projects import read_jsonl, write_project

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.reader import gate_path


def _suite(name: str, language: str, items: list[tuple[str, str, str, str, list[str]]]) -> str:
    """A case file: (id, category, form or "", text, expected values) per item."""
    rows = [
        {"id": i, "category": c, **({"facets": {"form": f}} if f else {}), "text": t, "expect": {"values": v}}
        for i, c, f, t, v in items
    ]
    suite = {"suite": name, "language": language, "scorer": "numbers", "items": rows}
    return yaml.safe_dump(suite, allow_unicode=True, sort_keys=False)


# One sentence in three numeral forms, and a second whose spelled form lost its number, the way
# an engine that skips a number it cannot read would say it.
MUSEUM = "افتُتح المتحف الوطني الجديد عام {}."
BRIDGE = "عبر الجسر {}مسافر أمس."
ARABIC = _suite(
    "ar-forms",
    "ar",
    [
        ("museum-western", "years", "western", MUSEUM.format("2026"), ["2026"]),
        ("museum-arabic_indic", "years", "arabic_indic", MUSEUM.format("٢٠٢٦"), ["2026"]),
        ("museum-spelled", "years", "spelled", MUSEUM.format("ألفين وستة وعشرين"), ["2026"]),
        ("bridge-western", "counts", "western", BRIDGE.format("12500 "), ["12500"]),
        ("bridge-arabic_indic", "counts", "arabic_indic", BRIDGE.format("١٢٥٠٠ "), ["12500"]),
        ("bridge-spelled", "counts", "spelled", BRIDGE.format(""), ["12500"]),
    ],
)
ENGLISH = _suite(
    "split-en",
    "en",
    [
        ("bridge-2026", "years", "", "The new bridge over the river is scheduled to open in 2026.", ["2026"]),
        ("lease-date", "dates", "", "The lease runs until March 3rd, 2026.", ["3", "2026"]),
    ],
)


def test_synth_only_writes_clips_without_asr_and_the_duration_control_flags_a_skipped_number(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(pytester, cases={"ar.yaml": ARABIC}, config="engines: {}\n")
    result = pytester.runpytest("--tts-engine=espeak", "--tts-synth-only", "--tts-results=out/results.jsonl")
    result.assert_outcomes(skipped=6)
    result.stdout.fnmatch_lines(
        ["*ttsbench summary (synthesize-only: no ASR, no verdicts)*", "espeak: 6 clip(s) written, 0 failed"]
    )
    assert not gate_path(pytester.path / "out" / "results.jsonl").exists()  # clips, not verdicts: no gate
    rows = read_jsonl(pytester.path / "out" / "results.jsonl")
    assert len(rows) == 6
    for row in rows:
        assert row["evidence"]["synth_only"] is True and row["verdict"] == "unknown"
        assert row["transcripts"] == {} and row["asr_seconds"] is None  # no recognizer ran
        clip = pytester.path / "out" / row["audio_path"]  # relative to the run's folder
        assert clip.is_file() and row["audio_seconds"] > 1
    manifest = json.loads((pytester.path / "out" / "manifest.sha256.json").read_text(encoding="utf-8"))
    assert sum(1 for key in json.dumps(manifest).split('"') if key.endswith(".wav")) >= 6

    capsys.readouterr()
    assert main(["diagnostics", str(pytester.path / "out"), "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)["systems"]
    forms = report["numeral_forms"]
    assert forms["flagged"] == ["ar-forms/bridge-spelled"]
    groups = {g["item"]: g["forms"] for g in forms["groups"]}
    assert set(groups) == {"museum", "bridge"}
    assert all(not f["flagged"] and 0.8 < f["ratio"] < 1.25 for f in groups["museum"].values())
    assert groups["bridge"]["spelled"]["ratio"] < 0.8


def test_synth_only_clips_are_scored_later_through_the_audio_dir_engine(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"en.yaml": ENGLISH}, config="engines: {}\n")
    synth = pytester.runpytest("--tts-engine=espeak", "--tts-synth-only", "--tts-results=split/results.jsonl")
    synth.assert_outcomes(skipped=2)
    synth.stdout.fnmatch_lines(["score them later: an engine profile {type: audio-dir, path: *split}*"])
    clips = {r["id"]: r for r in read_jsonl(pytester.path / "split" / "results.jsonl")}

    (pytester.path / "ttsbench.yaml").write_text(
        "engines:\n  later: {type: audio-dir, path: split}\n", encoding="utf-8"
    )
    scored = pytester.runpytest("--tts-engine=later", "--tts-results=scored/results.jsonl")
    scored.assert_outcomes(passed=2)
    rows = read_jsonl(pytester.path / "scored" / "results.jsonl")
    for row in rows:
        assert row["verdict"] == "correct" and next(iter(row["transcripts"])).startswith("whisper:")
        assert row["audio_sha256"] == clips[row["id"]]["audio_sha256"]  # the very clip synthesized before

    # a clip changed after the synthesize-only run is refused, never scored
    (pytester.path / "split" / clips["split-en/lease-date"]["audio_path"]).write_bytes(b"RIFF" + b"\0" * 64)
    tampered = pytester.runpytest("--tts-engine=later", "--tts-results=again.jsonl", "-k", "lease")
    tampered.assert_outcomes(failed=2)  # the item, and the gate: an error is not a measurement
    tampered.stdout.fnmatch_lines(["*--tts-max-error-rate*"])
    (row,) = read_jsonl(pytester.path / "again.jsonl")
    assert row["verdict"] == "error" and "changed since it was synthesized" in row["error"]
