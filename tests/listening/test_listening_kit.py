"""`ttsbench listening export` on a real run: eSpeak NG and piper clips, three generations each."""

from __future__ import annotations

import json
import os
import shutil
import sys
import wave
from pathlib import Path

import pytest
from listening_runs import PROMPTS
from processes import run, shown, written_by

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.results import ItemResult, read_results

ENGINES = ("espeak", "piper")
LISTENERS = 3


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pytest --tts-engine=espeak,piper --tts-repeats 3` on two short English listening prompts."""
    project = tmp_path_factory.mktemp("project")
    (project / "cases").mkdir()
    (project / "cases" / "demo-listen.yaml").write_text(json.dumps(PROMPTS, ensure_ascii=False), encoding="utf-8")
    (project / "ttsbench.yaml").write_text("cases: [cases]\n", encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--tts-engine=espeak,piper"]
    command += ["--tts-repeats", "3", "--tts-results", "run/results.jsonl"]
    done = run(command, cwd=project, timeout=600, env=dict(os.environ), expect=None)
    written_by(done, project / "run" / "results.jsonl")
    # Listening items are recorded, never judged: skipped tests, and a run that passes.
    assert done.returncode == 0, shown(done)
    assert "12 skipped" in done.stdout, shown(done)
    return project / "run"


def _export(run: Path, out: Path, *extra: str) -> dict:
    assert main(["listening", "export", str(run), "-o", str(out), "--listeners", str(LISTENERS), *extra]) == 0
    return json.loads((out / "private" / "key.json").read_text(encoding="utf-8"))


def _identity(key: dict) -> dict[str, tuple[str, str, int]]:
    return {cid: (c["system"], c["prompt"], c["generation"]) for cid, c in key["clips"].items()}


def test_results_carry_each_generations_provenance(real_run: Path) -> None:
    rows = read_results(real_run / "results.jsonl")
    assert len(rows) == 2 * 2 * 3
    for row in rows:
        assert row.verdict == "unknown" and not row.auto_evaluable and row.transcript is None
        gen = row.generation
        assert gen["provider"] == row.engine
        assert gen["voice"] and gen["settings"] and gen["date"] == row.started_at
        assert gen["seed"] is None  # neither eSpeak NG nor piper takes a seed
        assert row.first_audio_measure == "total" and row.first_audio_seconds == row.synth_seconds
    espeak = next(r for r in rows if r.engine == "espeak")
    assert {"rate_wpm", "pitch"} <= set(espeak.generation["settings"])
    piper = next(r for r in rows if r.engine == "piper")
    assert {"noise_scale", "length_scale"} <= set(piper.generation["settings"])


def test_kit_holds_every_system_prompt_generation(real_run: Path, tmp_path: Path) -> None:
    key = _export(real_run, tmp_path / "kit", "--seed", "11")
    kit = tmp_path / "kit"
    expected = {(e, f"demo-listen/{i['id']}", g) for e in ENGINES for i in PROMPTS["items"] for g in (1, 2, 3)}
    assert set(_identity(key).values()) == expected
    for clip in key["clips"].values():
        assert (kit / clip["file"]).is_file()
        assert {"provider", "voice", "settings", "date", "seed"} <= set(clip)
    assert len(key["groups"]) == 4 and all(len(g["clips"]) == 3 for g in key["groups"].values())
    for group in key["groups"].values():
        assert {key["clips"][c]["system"] for c in group["clips"]} == {group["system"]}
    orders = [key["listeners"][f"L{n:02d}"]["clips"] for n in range(1, LISTENERS + 1)]
    assert all(sorted(order) == sorted(key["clips"]) for order in orders)
    assert len({tuple(order) for order in orders}) == LISTENERS  # each listener has an order of their own
    for n in range(1, LISTENERS + 1):
        assert (kit / "listeners" / f"L{n:02d}.html").is_file()
        assert (kit / "listeners" / f"L{n:02d}-consistency.html").is_file()
    assert json.loads((kit / "private" / "missing.json").read_text()) == []
    notes = (kit / "README.txt").read_text(encoding="utf-8")
    assert "demo-listen/greeting: native-speaker review pending" in notes
    assert key["prompts"]["demo-listen/greeting"]["review"] == "native-speaker"


def test_nothing_a_listener_receives_names_a_system(real_run: Path, tmp_path: Path) -> None:
    key = _export(real_run, tmp_path / "kit")
    rows = read_results(real_run / "results.jsonl")
    forbidden = {"espeak", "piper", "joe", "en-us", "en_us-", "onnx", str(real_run), str(real_run.parent.name)}
    for row in rows:
        forbidden |= {row.generation["voice"], Path(row.audio_path).name, Path(row.audio_path).stem}
        forbidden.add(row.audio_sha256[:12])
        forbidden |= {str(v) for v in row.generation["settings"].values() if isinstance(v, str) and len(v) > 3}
    forbidden.discard("")
    received = sorted(p for p in (tmp_path / "kit" / "listeners").rglob("*") if p.is_file())
    assert len(received) == 12 + 2 * LISTENERS
    for path in received:
        data = path.read_bytes().lower()
        name = path.name.lower()
        for word in forbidden:
            assert word.lower().encode() not in data, f"{word!r} leaks into {path}"
            assert word.lower() not in name, f"{word!r} leaks into the name {path.name}"
    # The ids are drawn at random: none is a piece of a file name or content hash of its clip.
    for cid, clip in key["clips"].items():
        source = Path(clip["source_audio"])
        assert cid not in source.name and cid not in clip["system"]


def test_clip_copies_keep_the_audio_unchanged(real_run: Path, tmp_path: Path) -> None:
    key = _export(real_run, tmp_path / "kit")
    for clip in key["clips"].values():
        with wave.open(clip["source_audio"]) as source, wave.open(str(tmp_path / "kit" / clip["file"])) as copy:
            assert copy.getparams() == source.getparams()
            assert copy.readframes(copy.getnframes()) == source.readframes(source.getnframes())


def test_ids_and_orders_stable_only_under_the_same_seed(real_run: Path, tmp_path: Path) -> None:
    first = _export(real_run, tmp_path / "a", "--seed", "7")
    again = _export(real_run, tmp_path / "b", "--seed", "7")
    other = _export(real_run, tmp_path / "c", "--seed", "8")
    unseeded = [_export(real_run, tmp_path / f"u{n}") for n in range(2)]
    assert _identity(first) == _identity(again)
    assert first["listeners"] == again["listeners"] and first["groups"] == again["groups"]
    page = Path("listeners") / "L01.html"
    assert (tmp_path / "a" / page).read_text() == (tmp_path / "b" / page).read_text()
    assert not set(first["clips"]) & set(other["clips"])
    assert not set(unseeded[0]["clips"]) & set(unseeded[1]["clips"])


def test_failed_and_missing_clips_are_listed_with_their_reason(real_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(real_run, run)
    rows = read_results(run / "results.jsonl")
    lost = rows[0]
    Path(lost.audio_path).unlink()
    failed = ItemResult.from_dict(
        {**rows[1].__dict__, "repeat": 3, "audio_path": None, "verdict": "error", "error": "synthesis failed: HTTP 500"}
    )
    with (run / "results.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(failed.to_json() + "\n")
    key = _export(run, tmp_path / "kit", "--allow-unverified")  # a row appended after the run
    missing = json.loads((tmp_path / "kit" / "private" / "missing.json").read_text())
    reasons = {(m["system"], m["prompt"], m["generation"]): m["reason"] for m in missing}
    assert reasons[(lost.engine, lost.id, lost.repeat + 1)].startswith("audio file missing:")
    assert reasons[(failed.engine, failed.id, 4)] == "synthesis failed: HTTP 500"
    assert len(key["clips"]) == 11 and key["missing"] == missing


def test_export_refuses_a_folder_in_use(real_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "notes.txt").write_text("earlier round")
    assert main(["listening", "export", str(real_run), "-o", str(tmp_path / "kit"), "--listeners", "2"]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert (tmp_path / "kit" / "notes.txt").read_text() == "earlier round"
