"""Leaderboards on unequal item sets: ranked on the shared targets, own n and a note, never silently mixed."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from result_rows import make_result
from shipped_packs import pack_file

from pytest_ttsbench.cli import main
from pytest_ttsbench.reporting.leaderboard import entries_from_runs, ranked
from pytest_ttsbench.run_model.provenance import RunHeader, header_path, write_header
from pytest_ttsbench.run_model.reader import Run
from pytest_ttsbench.run_model.results import ItemResult, write_results


def _rows(
    engine: str,
    suite: str,
    language: str,
    verdicts: list[str],
    provider: str = "espeak",
    voice: str | None = None,
    **settings: object,
) -> list[ItemResult]:
    return [
        make_result(
            engine=engine,
            suite=suite,
            id=f"{suite}/i{i}",
            category=f"{suite}-cat",
            language=language,
            verdict=verdict,
            started_at=f"2026-03-0{1 + i % 2}T10:00:00+00:00",
            generation={
                "provider": provider,
                "voice": voice,
                "settings": dict(settings),
                "date": f"2026-03-0{1 + i % 2}T10:00:00+00:00",
            },
        )
        for i, verdict in enumerate(verdicts)
    ]


# "piper": three English targets, two right. "espeak": the same three, all right, plus six Chinese
# ones it mostly gets wrong, so over its own items it scores below piper.
PIPER = _rows("piper", "en", "en", ["correct", "correct", "wrong"], "piper", voice="en_US-joe", sample_rate=22050)
ESPEAK = _rows("espeak", "en", "en", ["correct"] * 3, voice="en-us", sample_rate=22050, provider="espeak-ng")
ESPEAK += _rows("espeak", "zh", "zh", ["correct"] + ["wrong"] * 5, voice="cmn", sample_rate=22050)


def _run(engine: str, rows: list[ItemResult]) -> Run:
    return Run(engine, Path(f"{engine}/results.jsonl"), engine, datetime(2026, 3, 2, tzinfo=timezone.utc), tuple(rows))


def test_systems_are_ranked_on_the_targets_they_share() -> None:
    entries = {e.system: e for e in entries_from_runs([_run("piper", PIPER), _run("espeak", ESPEAK)])}
    piper, espeak = entries["piper"], entries["espeak"]
    # Over its own items espeak is worse (4/9 < 2/3) but on the three shared targets it is better.
    assert (espeak.n, espeak.strict_accuracy) == (9, 4 / 9)
    assert (piper.n, piper.strict_accuracy) == (3, 2 / 3)
    assert (espeak.shared_n, espeak.shared_strict_accuracy) == (3, 1.0)
    assert [(rank, e.system) for rank, e in ranked(entries.values())] == [(1, "espeak"), (2, "piper")]
    assert espeak.note == "ran 9 targets, 6 not run by every system: ranked on the 3 shared"
    assert piper.note == ""  # it ran exactly the shared targets


def test_a_system_with_no_target_in_common_is_not_ranked() -> None:
    thai = _rows("thai-voice", "th", "th", ["correct", "correct"])
    entries = entries_from_runs([_run("piper", PIPER), _run("thai-voice", thai)])
    assert all(rank is None for rank, _ in ranked(entries))
    assert all("shares no target with the other systems: not ranked" in e.note for e in entries)


def test_equal_item_sets_rank_as_before_without_notes() -> None:
    entries = entries_from_runs([_run("a", PIPER), _run("b", _rows("b", "en", "en", ["correct"] * 3))])
    assert [(rank, e.system, e.note, e.shared_n) for rank, e in ranked(entries)] == [
        (1, "b", "", None),
        (2, "a", "", None),
    ]


def _write_run(folder: Path, rows: list[ItemResult], header: RunHeader | None) -> Path:
    results = folder / "results.jsonl"
    write_results(results, rows)
    if header is not None:
        write_header(header_path(results), header)
    return folder


def test_the_command_shows_own_n_the_note_and_what_was_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = RunHeader(
        engines={"espeak": {"type": "espeak", "voice": {"en": "en-us"}}},
        case_files={
            "en": {"path": "cases/en.yaml", "sha256": "0123456789abcdef"},
            "zh": {"sha256": "fedcba9876543210"},
        },
    )
    espeak = _write_run(tmp_path / "espeak", ESPEAK, header)
    piper = _write_run(tmp_path / "piper", PIPER, None)
    capsys.readouterr()
    assert main(["leaderboard", str(piper), str(espeak), "--format", "csv"]) == 0
    rows = {row["system"]: row for row in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["espeak"]["rank"] == "1" and rows["piper"]["rank"] == "2"
    assert (rows["espeak"]["n"], rows["espeak"]["shared_n"]) == ("9", "3")
    assert rows["espeak"]["note"].startswith("ran 9 targets")
    assert rows["espeak"]["provider"] == "espeak, espeak-ng"  # the rows' provider and the header's type
    assert rows["espeak"]["voice"] == "cmn, en-us" and rows["espeak"]["sample_rate"] == "22050"
    assert rows["espeak"]["categories"] == "en-cat, zh-cat"
    assert rows["espeak"]["synthesized"] == "2026-03-01"  # the first synthesis, not the day the board was made
    assert rows["espeak"]["data_release"] == "en@01234567, zh@fedcba98"
    assert rows["piper"]["data_release"] == "en (case files not recorded)"
    assert main(["leaderboard", str(piper), str(espeak), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "ranked on the 3 shared" in markdown and "| n | shared_n |" in markdown


def test_replayed_transcripts_have_no_synthesis_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replayed = _rows("replay", "en", "en", ["correct"], replayed=True)
    folder = _write_run(tmp_path / "replay", replayed, None)
    capsys.readouterr()
    assert main(["leaderboard", str(folder), "--format", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["entries"]
    assert entry["synthesized"] == "unknown (transcripts replayed)"


def test_a_rescored_run_records_its_case_files_and_transcripts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib

    root = Path(__file__).resolve().parents[2]
    cases, transcripts = pack_file("th-keywords"), root / "tests" / "data" / "th-transcripts.jsonl"
    out = tmp_path / "th" / "results.jsonl"
    assert (
        main(["rescore", str(cases), "--transcripts", str(transcripts), "--engine", "vendor", "--out", str(out)]) == 0
    )
    header = json.loads(header_path(out).read_text(encoding="utf-8"))
    digest = hashlib.sha256(cases.read_bytes()).hexdigest()
    assert header["case_files"]["th-keywords"]["sha256"] == digest
    assert (
        header["engines"]["vendor"]["settings"]["transcripts_sha256"]
        == hashlib.sha256(transcripts.read_bytes()).hexdigest()
    )
    capsys.readouterr()
    assert main(["leaderboard", str(out.parent), "--format", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["entries"]
    assert entry["data_release"] == f"th-keywords@{digest[:8]}"
    assert entry["synthesized"] == "unknown (transcripts replayed)"
