"""Leaderboard ranking, rendering and merging of dated entries."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.reporting.leaderboard import (
    COLUMNS,
    LeaderboardEntry,
    entry_from_run,
    merge_leaderboard,
    parse_leaderboard,
    ranked,
    render,
    render_csv,
    render_json,
    render_markdown,
    update_leaderboard_file,
)
from pytest_ttsbench.run_model.reader import Run
from pytest_ttsbench.run_model.results import ItemResult

ROUTES = ("paraformer_zh", "sensevoice_small")


def entry(system: str, strict: float | None, resolved: float | None, date: str = "2026-05-01") -> LeaderboardEntry:
    return LeaderboardEntry(system, date, ROUTES, strict, 0.5, resolved, 1, 2, 3)


def _row(n: int, verdict: str, auto: bool = True) -> ItemResult:
    routes = dict.fromkeys(ROUTES, verdict)
    return make_result(
        id=f"s/{n}", language="zh", verdict=verdict, expected=None, auto_evaluable=auto, route_verdicts=routes
    )


def test_entry_from_run_counts_auto_evaluable_targets_only() -> None:
    results = [
        _row(1, "correct"),
        _row(2, "correct"),
        _row(3, "wrong"),
        _row(4, "unknown"),
        _row(5, "error"),
        _row(6, "wrong", auto=False),
    ]
    started = datetime(2026, 6, 20, 9, 30, tzinfo=timezone.utc)
    e = entry_from_run(Run("night", Path("night/results.jsonl"), "sys", started, tuple(results)))
    assert (e.system, e.date) == ("sys", "2026-06-20")
    assert (e.correct, e.wrong, e.unknown) == (2, 1, 1)
    assert e.strict_accuracy == 2 / 5  # the error stays in the denominator
    assert e.coverage == 3 / 5
    assert e.resolved_accuracy == 2 / 3
    assert e.asr_routes == ROUTES


def test_ranking_strict_then_resolved_then_name() -> None:
    entries = [
        entry("zeta", 0.5, 0.9),
        entry("alpha", 0.5, 0.9),  # full tie with zeta: name decides
        entry("beta", 0.5, 0.95),  # same strict, better resolved
        entry("gamma", 0.7, 0.1),  # best strict wins whatever its resolved
        entry("none", None, None),  # nothing scored: last
    ]
    assert [(rank, e.system) for rank, e in ranked(entries)] == [
        (1, "gamma"),
        (2, "beta"),
        (3, "alpha"),
        (4, "zeta"),
        (5, "none"),
    ]


def test_markdown() -> None:
    text = render_markdown([entry("b|c", 0.25, None), entry("a", 0.471774193548, 0.88)])
    lines = text.splitlines()
    assert lines[0] == "| " + " | ".join(COLUMNS) + " |"
    assert len(lines) == 4
    # the descriptive columns an entry has no value for read "—"; an entry that records only one
    # protocol shows its protocol and no side-by-side figures
    assert lines[2] == (
        "| 1 | a | 47.2% | 50.0% | 88.0% | 1 | 2 | 3 | 2026-05-01 | paraformer_zh, sensevoice_small |"
        + " — |" * 9
        + " strict |"
        + " — |" * 4
    )
    assert lines[3].startswith("| 2 | b\\|c | 25.0% | 50.0% | — |")


def test_csv_round_trips_through_the_csv_module() -> None:
    text = render_csv([entry("sys, with comma", 0.3, None), entry("top", 0.9, 0.95)])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(COLUMNS)
    assert [r["system"] for r in rows] == ["top", "sys, with comma"]
    assert rows[0]["strict_accuracy"] == "0.900000"
    assert rows[1]["resolved_accuracy"] == ""
    assert rows[1]["asr_routes"] == "paraformer_zh;sensevoice_small"
    assert rows[1]["rank"] == "2"


def test_json_keeps_full_precision_and_parses_back() -> None:
    entries = [entry("a", 1 / 3, 2 / 3), entry("b", 0.1, None, date="2026-01-02")]
    data = json.loads(render_json(entries))
    assert [list(r) for r in data["entries"]] == [list(COLUMNS)] * 2
    assert data["entries"][0]["strict_accuracy"] == 1 / 3
    assert data["entries"][0]["asr_routes"] == list(ROUTES)
    assert parse_leaderboard(render_json(entries)) == entries


def test_render_dispatch() -> None:
    entries = [entry("a", 0.5, 0.5)]
    assert render(entries, "csv") == render_csv(entries)
    with pytest.raises(ValueError, match="format"):
        render(entries, "html")  # type: ignore[arg-type]


def test_merge_keeps_older_dated_entries_and_replaces_same_day_reruns() -> None:
    stored = render_json([entry("sys", 0.4, 0.8, date="2026-01-01"), entry("other", 0.6, 0.7, date="2026-01-01")])
    merged = merge_leaderboard(stored, [entry("sys", 0.5, 0.9, date="2026-02-01")])
    assert sorted(e.key for e in merged) == [
        ("other", "2026-01-01"),
        ("sys", "2026-01-01"),
        ("sys", "2026-02-01"),
    ]
    rerun = merge_leaderboard(render_json(merged), [entry("sys", 0.45, 0.8, date="2026-01-01")])
    assert len(rerun) == 3
    assert {e.key: e.strict_accuracy for e in rerun}[("sys", "2026-01-01")] == 0.45
    assert {e.key: e.strict_accuracy for e in rerun}[("sys", "2026-02-01")] == 0.5


def test_merge_with_no_stored_board() -> None:
    assert merge_leaderboard(None, [entry("a", 0.1, 0.2)]) == [entry("a", 0.1, 0.2)]
    assert merge_leaderboard("", []) == []


def test_update_file_accumulates(tmp_path: Path) -> None:
    path = tmp_path / "board" / "leaderboard.json"
    update_leaderboard_file(path, [entry("a", 0.1, 0.2, date="2026-01-01")])
    update_leaderboard_file(path, [entry("a", 0.3, 0.4, date="2026-03-01")])
    on_disk = parse_leaderboard(path.read_text(encoding="utf-8"))
    assert [(e.date, e.strict_accuracy) for e in on_disk] == [("2026-03-01", 0.3), ("2026-01-01", 0.1)]


@pytest.mark.parametrize("date", ["2026-6-1", "yesterday", ""])
def test_entries_need_an_iso_date(date: str) -> None:
    with pytest.raises(ValueError):
        entry("a", 0.1, 0.2, date=date)
