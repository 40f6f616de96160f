"""Workflow figures: p50/p95 per engine, one request per clip."""

from __future__ import annotations

import pytest
from result_rows import make_result

from pytest_ttsbench.asr.registry import create_routes
from pytest_ttsbench.figures.workflow import workflow_figures
from pytest_ttsbench.reporting.terminal import workflow_lines
from pytest_ttsbench.run_model.results import ItemResult


def row(engine: str, item: str, synth: float | None, first: float | None, target: str | None = None) -> ItemResult:
    return make_result(
        engine=engine, id=f"s/{item}", target=target, transcript="x", synth_seconds=synth, first_byte_seconds=first
    )


def test_percentiles_per_engine_and_targets_count_once() -> None:
    rows = [row("a", f"i{k}", synth=float(k), first=k / 10) for k in range(1, 21)]
    rows.append(row("a", "i1", synth=999.0, first=999.0, target="second-target"))  # same clip: ignored
    rows.append(row("b", "j", synth=0.5, first=None))
    figures = workflow_figures(rows)
    assert figures["a"].requests == 20
    assert figures["a"].synthesis.p50 == pytest.approx(10.5)
    assert figures["a"].synthesis.p95 == pytest.approx(19.05)
    assert figures["a"].first_byte.p95 == pytest.approx(1.905)
    assert figures["b"].first_byte.n == 0 and figures["b"].first_byte.p50 is None
    lines = workflow_lines(rows)
    assert lines[0] == "workflow (per synthesis request):"
    assert any(line.split()[:2] == ["a", "20"] and "10500 ms" in line for line in lines)


def test_failed_syntheses_do_not_pull_the_percentiles_down() -> None:
    rows = [row("p", f"ok{k}", synth=1.0, first=None) for k in range(3)]
    failed = row("p", "ar", synth=0.001, first=None)
    failed.error = "synthesis failed: voice speaks 'en', the item is in 'ar'"
    figures = workflow_figures([*rows, failed])
    assert figures["p"].requests == 3
    assert figures["p"].synthesis.p50 == pytest.approx(1.0)


def test_replay_rows_without_timings_print_nothing() -> None:
    assert workflow_lines([row("r", "i", synth=None, first=None)]) == []


def test_duplicate_route_names_are_refused() -> None:
    with pytest.raises(ValueError, match="repeated: same"):
        create_routes({"routes": [{"type": "whisper", "name": "same"}, {"type": "whisper", "name": "same"}]})


def test_the_failed_stage_decides_not_the_wording_of_the_message() -> None:
    rows = [row("p", f"ok{k}", synth=1.0, first=None) for k in range(3)]
    silent = row("p", "quiet", synth=3.0, first=None)  # audio came back, then failed its checks
    silent.error, silent.error_stage = "engine audio was silent", "audio"
    refused = row("p", "refused", synth=0.001, first=None)  # no audio: says nothing about speed
    refused.error, refused.error_stage = "HTTP 400: text too long", "synthesis"
    figures = workflow_figures([*rows, silent, refused])
    assert figures["p"].requests == 4
    assert figures["p"].synthesis.p95 == pytest.approx(2.7)
