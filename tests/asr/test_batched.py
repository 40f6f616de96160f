"""Batched transcription (faster-whisper's BatchedInferencePipeline) as a recorded decoding mode.

The end-to-end check runs a few items of the shipped en-numerals pack through real eSpeak NG
and real Whisper tiny.en twice, sequential and batched: the verdicts must agree, every row and
the run header must say which mode heard it, and comparing the two runs must name the change.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest
import yaml
from processes import run, written_by
from shipped_packs import pack_file

from pytest_ttsbench.asr.registry import create_route
from pytest_ttsbench.asr.whisper import (
    CPU_BATCH_SIZE,
    GPU_BATCH_SIZE,
    WhisperRoute,
    batching_mode,
    clip_windows,
    resolve_batch_size,
)
from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.provenance import RunHeader, read_header, recognizer_changes

ROOT = Path(__file__).resolve().parents[2]
SUBSET = 4  # items of the en-numerals pack: enough to disagree, cheap on two shared cores


@pytest.mark.parametrize(
    ("setting", "device", "size"),
    [("auto", "cpu", CPU_BATCH_SIZE), ("AUTO", "cuda", GPU_BATCH_SIZE), ("auto", "cuda:1", GPU_BATCH_SIZE)],
)
def test_auto_picks_per_device(setting: str, device: str, size: int) -> None:
    assert resolve_batch_size(setting, device) == size


@pytest.mark.parametrize(("setting", "size"), [(1, 1), (8, 8), ("16", 16), (" 4 ", 4)])
def test_explicit_batch_sizes(setting: int | str, size: int) -> None:
    assert resolve_batch_size(setting, "cpu") == size


@pytest.mark.parametrize("setting", [0, -2, "0", "many", "2.5", True, None, 1.5])
def test_bad_batch_size_names_the_field(setting: object) -> None:
    with pytest.raises(ValueError, match="asr field 'batch_size': expected 'auto' or an integer"):
        resolve_batch_size(setting, "cpu")  # type: ignore[arg-type]


def test_the_mode_is_named_and_the_route_spec_takes_it() -> None:
    assert batching_mode(1) == "sequential" and batching_mode(16) == "batched:16"
    route = create_route({"type": "whisper", "model": "tiny.en", "batch_size": 8})
    assert isinstance(route, WhisperRoute) and route.batching == "batched:8"
    with pytest.raises(ValueError, match="batch_size"):
        create_route({"type": "whisper", "batch_size": "lots"})


def test_windows_cover_the_clip_in_30_second_steps() -> None:
    assert clip_windows(4.2) == [{"start": 0.0, "end": 4.2}]
    assert clip_windows(65.0) == [
        {"start": 0.0, "end": 30.0},
        {"start": 30.0, "end": 60.0},
        {"start": 60.0, "end": 65.0},
    ]


def test_the_transcript_cache_key_holds_the_mode() -> None:
    try:
        sequential = WhisperRoute("tiny.en", batch_size=1).cache_identity("en")
    except Exception as exc:
        pytest.skip(f"tiny.en is not installed here: {exc}")
    batched = WhisperRoute("tiny.en", batch_size=4).cache_identity("en")
    assert sequential["batching"] == "sequential" and batched["batching"] == "batched:4"
    assert {k for k in sequential if sequential[k] != batched[k]} == {"batching"}


def _header(batching: str) -> RunHeader:
    route = {"name": "whisper:tiny.en", "type": "whisper", "model": "tiny.en", "beam_size": 5, "batching": batching}
    return RunHeader(asr={"espeak": [route]})


def test_a_batching_change_is_a_decoding_change() -> None:
    changes = recognizer_changes(_header("sequential"), _header("batched:16"))
    assert changes == ["ASR decoding differs (espeak, whisper:tiny.en, batching): sequential → batched:16"]
    # Headers written before the batched mode existed named the sequential mode in words.
    assert recognizer_changes(_header("one clip per call, sequential"), _header("sequential")) == []
    assert recognizer_changes(_header("one clip per call, sequential"), _header("batched:4"))


def _subset_project(folder: Path) -> None:
    pack = yaml.safe_load(pack_file("en-numerals").read_text(encoding="utf-8"))
    pack["items"] = pack["items"][:SUBSET]
    # Only the floors of the categories kept: a floor on a category the file no longer has is refused.
    kept = {item["category"] for item in pack["items"]} | {"default"}
    pack["thresholds"] = {key: floor for key, floor in pack.get("thresholds", {}).items() if key in kept}
    (folder / "cases").mkdir(parents=True)
    (folder / "cases" / "en-numerals.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    (folder / "ttsbench.yaml").write_text("asr: {model: tiny.en, beam_size: 5}\nengines: {}\n", encoding="utf-8")


def _run(folder: Path, batch_size: str, results: str) -> list[dict]:
    done = run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--tts-engine=espeak",
            "--tts-cache=off",
            f"--tts-asr-batch-size={batch_size}",
            f"--tts-results={results}",
        ],
        cwd=folder,
        timeout=600,
        expect=None,
    )
    path = written_by(done, folder / results)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_sequential_and_batched_agree_on_real_numerals_and_say_which_they_were(tmp_path: Path) -> None:
    try:
        WhisperRoute("tiny.en").load("en")
    except Exception as exc:
        pytest.skip(f"tiny.en is not installed here: {exc}")
    _subset_project(tmp_path)
    sequential = _run(tmp_path, "1", "seq/results.jsonl")
    batched = _run(tmp_path, "4", "batched/results.jsonl")

    assert len(sequential) == len(batched) == SUBSET
    route = "whisper:tiny.en"
    assert {row["asr_decoding"][route] for row in sequential} == {"sequential"}
    assert {row["asr_decoding"][route] for row in batched} == {"batched:4"}
    assert {row["id"]: row["verdict"] for row in sequential} == {row["id"]: row["verdict"] for row in batched}
    assert all(row["verdict"] in ("correct", "incorrect") for row in sequential), sequential

    headers = [read_header(tmp_path / run / "results.jsonl") for run in ("seq", "batched")]
    assert [h.asr["espeak"][0]["batching"] for h in headers if h] == ["sequential", "batched:4"]

    # Comparing the two runs names the decoding change (a verdict change may be the recognizer's).
    report = tmp_path / "compare.json"
    with report.open("w", encoding="utf-8") as out, contextlib.redirect_stdout(out):
        code = main(["compare", str(tmp_path / "seq"), str(tmp_path / "batched"), "--json"])
    assert code == 0
    changes = json.loads(report.read_text(encoding="utf-8"))["recognizer_changes"]
    assert any("batching" in change and "batched:4" in change for change in changes), changes


@pytest.mark.parametrize("clip_name", ["espeak-mandarin", "noise"])
def test_a_looping_batched_decode_keeps_its_token_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clip_name: str
) -> None:
    # The decoder is made to loop (tests/support/forced_decoder.py; which audio loops by itself
    # depends on the CPU): batched, the same budget bounds it and the same flags say the text is
    # not to be trusted.
    from forced_decoder import assert_a_bounded_loop, transcribe_a_forced_loop

    from pytest_ttsbench.asr import models
    from pytest_ttsbench.config import BUILTIN_PROFILES, EngineProfile
    from pytest_ttsbench.engines.espeak import EspeakEngine

    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path))
    espeak = EspeakEngine(EngineProfile(name="espeak", type="espeak", voice=BUILTIN_PROFILES["espeak"]["voice"]))
    heard, decoder, clip = transcribe_a_forced_loop(monkeypatch, espeak, clip_name, batch_size=4)
    assert heard.details["batching"] == "batched:4"
    assert_a_bounded_loop(heard, decoder, clip)
