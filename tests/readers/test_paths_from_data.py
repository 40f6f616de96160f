"""Clip paths read from results files never lead outside their folder (issue 22, failure 11).

Before, an ``audio-dir`` folder's ``results.jsonl`` whose ``audio_path`` pointed outside the folder
had that outside file read, scored, and copied byte for byte into ``results-audio/`` and
``report_files/audio/``, the artifacts a CI job uploads. The clips here are real eSpeak NG
synthesis (a synthesize-only run); the recognizer is a command route that prints a fixed text,
so no Whisper model is needed: what is tested is which file is read.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, read_jsonl, write_project

# Imported before any in-process pytester run writes an HTML report: pytester drops the modules a
# run imported when it ends, and matplotlib imported twice in one process breaks its caches.
import pytest_ttsbench.reporting.plots  # noqa: F401
from pytest_ttsbench.cli import main as ttsbench
from pytest_ttsbench.cli.baseline import BaselineError, save_baseline
from pytest_ttsbench.listening.kit import collect_clips
from pytest_ttsbench.reporting.html import ClipStore
from pytest_ttsbench.run_model.results import read_results

ONE_ITEM = """\
suite: split-en
language: en
scorer: numbers
items:
  - id: bridge-2026
    category: years
    text: "The bridge opens in 2026."
    expect: {values: ["2026"]}
"""


def _config(audio_dir: str) -> str:
    echo = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('The bridge opens in 2026.')"]}
    return json.dumps({"asr": {"routes": [echo]}, "engines": {"later": {"type": "audio-dir", "path": audio_dir}}})


@pytest.fixture
def split_run(pytester: pytest.Pytester) -> Path:
    """A synthesize-only run of one item in ``split/``, by real eSpeak NG."""
    write_project(pytester, cases={"en.yaml": ONE_ITEM}, config="engines: {}\n")
    synth = pytester.runpytest("--tts-engine=espeak", "--tts-synth-only", "--tts-results=split/results.jsonl")
    synth.assert_outcomes(skipped=1)
    return pytester.path / "split"


def _point_row_at(results: Path, path: str, sha256: str) -> None:
    """Rewrite the row's clip path (and its checksum, which whoever edits the file controls too)."""
    (row,) = read_jsonl(results)
    row.update(audio_path=path, audio_sha256=sha256)
    results.write_text(json.dumps(row) + "\n", encoding="utf-8")


def _outside_secret(pytester: pytest.Pytester, split: Path) -> tuple[Path, str]:
    """A WAV outside the run folder (a real clip, so only where it lies makes it wrong); its sha256."""
    (row,) = read_jsonl(split / "results.jsonl")
    clip = split / row["audio_path"]
    secret = pytester.path / "elsewhere" / "secret.wav"
    secret.parent.mkdir()
    shutil.move(clip, secret)  # nothing of that name is left inside the folder to fall back on
    return secret, hashlib.sha256(secret.read_bytes()).hexdigest()


def _copies_of(data: bytes, folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and p.read_bytes() == data] if folder.is_dir() else []


@pytest.mark.parametrize("way_out", ["absolute", "dotdot", "symlink"])
def test_audio_dir_row_pointing_outside_is_an_error_and_nothing_outside_is_copied(
    pytester: pytest.Pytester, split_run: Path, way_out: str
) -> None:
    secret, digest = _outside_secret(pytester, split_run)
    if way_out == "symlink":
        (split_run / "link.wav").symlink_to(secret)
    recorded = {"absolute": str(secret), "dotdot": "../elsewhere/secret.wav", "symlink": "link.wav"}[way_out]
    _point_row_at(split_run / "results.jsonl", recorded, digest)
    (pytester.path / "ttsbench.yaml").write_text(_config("split"), encoding="utf-8")

    scored = pytester.runpytest("--tts-engine=later", "--tts-results=results.jsonl", "--html=report.html")

    scored.assert_outcomes(failed=2)  # the item, and the gate: an error is not a measurement
    scored.stdout.fnmatch_lines(["*--tts-max-error-rate*"])
    (row,) = read_jsonl(pytester.path / "results.jsonl")
    assert row["verdict"] == "error" and row["audio_path"] is None
    assert recorded in row["error"] and "inside" in row["error"]
    data = secret.read_bytes()
    assert _copies_of(data, pytester.path / "results-audio") == []
    assert _copies_of(data, pytester.path / "report_files") == []


def test_report_of_a_results_file_does_not_copy_a_clip_from_outside(
    pytester: pytest.Pytester, split_run: Path, tmp_path: Path
) -> None:
    secret, digest = _outside_secret(pytester, split_run)
    _point_row_at(split_run / "results.jsonl", "../elsewhere/secret.wav", digest)
    (row,) = read_results(split_run / "results.jsonl")
    store = ClipStore(tmp_path / "site")
    player = store.player(row, split_run / "results.jsonl")
    assert store.href(row, split_run / "results.jsonl") is None
    assert "clip not read" in player and "../elsewhere/secret.wav" in player
    assert _copies_of(secret.read_bytes(), tmp_path / "site") == []
    # a clip inside the folder is still played
    shutil.copyfile(secret, split_run / "kept.wav")
    _point_row_at(split_run / "results.jsonl", "kept.wav", digest)
    (row,) = read_results(split_run / "results.jsonl")
    assert store.href(row, split_run / "results.jsonl") is not None


def test_listening_kit_lists_a_clip_from_outside_as_missing(pytester: pytest.Pytester, split_run: Path) -> None:
    secret, digest = _outside_secret(pytester, split_run)
    _point_row_at(split_run / "results.jsonl", str(secret), digest)
    clips, missing = collect_clips([split_run], allow_unverified=True)  # its rows were rewritten above
    assert clips == []
    (gone,) = missing
    assert "clip not read" in gone.reason and str(secret) in gone.reason


def test_baseline_with_audio_refuses_a_clip_from_outside_before_writing_anything(
    pytester: pytest.Pytester, split_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, digest = _outside_secret(pytester, split_run)
    _point_row_at(split_run / "results.jsonl", "../elsewhere/secret.wav", digest)
    # the manifest is made to match the edited file, as whoever edits a downloaded run would do
    manifest = split_run / "manifest.sha256.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    results = split_run / "results.jsonl"
    document["files"]["results.jsonl"].update(
        sha256=hashlib.sha256(results.read_bytes()).hexdigest(), bytes=results.stat().st_size
    )
    document["files"] = {k: v for k, v in document["files"].items() if not k.endswith(".wav")}
    manifest.write_text(json.dumps(document), encoding="utf-8")
    target = pytester.path / "baseline"
    with pytest.raises(BaselineError, match=r"not copied.*secret\.wav"):
        save_baseline(split_run, target, with_audio=True)
    assert not target.exists() or list(target.iterdir()) == []
    assert ttsbench(["baseline", "save", str(split_run), str(target), "--with-audio"]) == 1  # refused
    assert "secret.wav" in capsys.readouterr().err


def test_the_run_manifest_never_hashes_a_file_outside_named_by_an_earlier_row(pytester: pytest.Pytester) -> None:
    """``--tts-append`` reads the earlier session's rows: their clip paths and node ids are data too."""
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS})
    pytester.runpytest("--tts-engine=replay", "--tts-results=run/results.jsonl", "-k", "year")
    secret = pytester.path / "elsewhere" / "secret.wav"
    secret.parent.mkdir()
    secret.write_bytes(b"RIFF" + b"\0" * 64)
    (secret.parent / "secret.yaml").write_text(NUMERALS, encoding="utf-8")
    results = pytester.path / "run" / "results.jsonl"
    (row,) = read_jsonl(results)
    row.update(audio_path="../elsewhere/secret.wav", node_id="../elsewhere/secret.yaml::x")
    results.write_text(json.dumps(row) + "\n", encoding="utf-8")

    pytester.runpytest("--tts-engine=replay", "--tts-results=run/results.jsonl", "--tts-append", "-k", "pct")

    manifest = (pytester.path / "run" / "manifest.sha256.json").read_text(encoding="utf-8")
    assert "secret" not in manifest and "elsewhere" not in manifest
    assert "demo-numerals.yaml" in manifest  # the project's own case file is still listed


@pytest.mark.parametrize(
    ("key", "root"), [("../elsewhere/secret.wav", None), ("../../elsewhere/secret.yaml", "project")]
)
def test_verify_refuses_a_manifest_name_leading_out_of_the_run_or_project(
    pytester: pytest.Pytester, key: str, root: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS})
    pytester.runpytest("--tts-engine=replay", "--tts-results=run/results.jsonl", "-k", "year")
    manifest = pytester.path / "run" / "manifest.sha256.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    document["files"][key] = {"role": "input", "sha256": "0" * 64, "bytes": 1, **({"root": root} if root else {})}
    manifest.write_text(json.dumps(document), encoding="utf-8")
    assert ttsbench(["verify", str(pytester.path / "run")]) == 2
    err = capsys.readouterr().err
    assert key in err and "leads out" in err
