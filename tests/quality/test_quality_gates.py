"""Quality gates apart from accuracy: floors, ceilings and baseline tolerance, on results files made here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugin_projects import read_jsonl, write_project
from quality_rows import results_file, rows
from result_rows import make_result

from pytest_ttsbench.gating.bounds import RunFacts, judge_all
from pytest_ttsbench.gating.gate import Collected, GateOutcome, scopes_of
from pytest_ttsbench.gating.quality import QualityCheck, settle_quality
from pytest_ttsbench.quality.bounds import (
    QualityBound,
    case_file_layer,
    override_layers,
    parse_cli_bounds,
    section_bounds,
)
from pytest_ttsbench.quality.dnsmos import Dnsmos
from pytest_ttsbench.quality.measures import QualityOptionError, QualityUnavailable, parse_measure_sets
from pytest_ttsbench.quality.summary import describe, summarize_quality
from pytest_ttsbench.run_model.results import ItemResult


def evaluate_quality(
    results: list[ItemResult],
    bounds_by_layer: list,
    baseline: list[ItemResult] | None = None,
) -> list[QualityCheck]:
    """Every bucket × bounded measure the settled quality bounds judge, in table order (the gate's own path)."""
    rows = tuple(results)
    engines = tuple(dict.fromkeys(r.engine for r in rows))
    before = None if baseline is None else tuple(baseline)
    run = RunFacts(rows, rows, engines, scopes_of(rows, Collected()), before)
    return GateOutcome(items=[], judged=judge_all(settle_quality(bounds_by_layer), run)).quality_checks


def test_floors_and_ceilings_on_a_results_file(tmp_path: Path) -> None:
    run = results_file(
        tmp_path,
        "run",
        rows("piper", "years", {"dnsmos_ovrl": [3.3, 3.4, 3.2], "clipping_ratio": [0.0, 0.0, 0.0]})
        + rows("espeak", "years", {"dnsmos_ovrl": [2.5, 2.7, 2.6], "clipping_ratio": [0.0, 0.004, 0.0]}),
    )
    layers = override_layers(
        {}, "ttsbench.yaml", ["dnsmos_ovrl=3.0", "espeak/dnsmos_ovrl=2.4"], ["clipping_ratio=0.001"], []
    )
    checks = {(c.engine, c.measure, c.kind): c for c in evaluate_quality(run, layers)}
    assert not checks["piper", "dnsmos_ovrl", "floor"].breached
    assert checks["piper", "dnsmos_ovrl", "floor"].limit == 3.0
    # the scoped floor beats the general one for its engine
    espeak_floor = checks["espeak", "dnsmos_ovrl", "floor"]
    assert espeak_floor.limit == 2.4 and not espeak_floor.breached
    assert espeak_floor.figure == pytest.approx(2.6)
    assert not checks["piper", "clipping_ratio", "ceiling"].breached
    ceiling = checks["espeak", "clipping_ratio", "ceiling"]
    assert ceiling.breached and "above ceiling 0.001" in ceiling.describe()


def test_tolerance_against_a_baseline_follows_each_measures_direction(tmp_path: Path) -> None:
    before = results_file(
        tmp_path,
        "before",
        rows("v1", "c", {"dnsmos_ovrl": [3.4, 3.5], "trailing_silence_s": [0.1, 0.1], "speaking_rate": [12, 12]}),
    )
    after = results_file(
        tmp_path,
        "after",
        rows("v2", "c", {"dnsmos_ovrl": [3.1, 3.2], "trailing_silence_s": [0.05, 0.05], "speaking_rate": [15, 15]}),
    )
    tolerance = parse_cli_bounds(
        ["dnsmos_ovrl=0.2", "trailing_silence_s=0.01", "speaking_rate=2"],
        "tolerance",
    )
    # one engine on each side: buckets match whatever the profiles are called
    checks = {c.measure: c for c in evaluate_quality(after, [tolerance], before)}
    assert checks["dnsmos_ovrl"].breached and checks["dnsmos_ovrl"].baseline == pytest.approx(3.45)
    assert not checks["trailing_silence_s"].breached  # less silence is better, however large the move
    assert checks["speaking_rate"].breached  # neutral: a move either way counts
    within = parse_cli_bounds(["dnsmos_ovrl=0.5", "speaking_rate=4"], "tolerance")
    assert not any(c.breached for c in evaluate_quality(after, [within], before))
    # a bucket the baseline lacks has nothing to compare with: listed, never breached
    new = {c.measure: c for c in evaluate_quality(rows("v2", "other", {"dnsmos_ovrl": [1.0]}), [tolerance], before)}
    assert new["dnsmos_ovrl"].status == "no baseline figure" and not new["dnsmos_ovrl"].breached
    assert new["dnsmos_ovrl"].baseline is None
    # ... and the bounded measures it has no figure for are listed too, not judged
    assert {new[m].status for m in ("trailing_silence_s", "speaking_rate")} == {"no figures"}


def test_layers_command_line_then_configuration_then_case_file() -> None:
    data = rows("e", "years", {"dnsmos_ovrl": [3.0, 3.0]}, suite="en-numerals")
    case = case_file_layer({"en-numerals": {"floors": {"dnsmos_ovrl": 3.5}}})
    assert case[0].scope == ("en-numerals",)
    (check,) = evaluate_quality(data, [[], [], case])
    assert check.breached and check.limit == 3.5
    config = section_bounds({"floors": {"dnsmos_ovrl": 2.5}}, "ttsbench.yaml")
    (check,) = evaluate_quality(data, [[], config, case])
    assert not check.breached and check.limit == 2.5
    cli = parse_cli_bounds(["en-numerals/years/dnsmos_ovrl=3.2"], "floor")
    (check,) = evaluate_quality(data, [cli, config, case])
    assert check.breached and check.limit == 3.2 and check.source == "--tts-quality-floor"
    # a bound scoped to another engine or category does not apply
    other = [
        QualityBound("floor", "dnsmos_ovrl", 4.0, ("piper",)),
        QualityBound("floor", "dnsmos_ovrl", 4.0, ("dates",)),
    ]
    assert evaluate_quality(data, [other]) == []


def test_configuration_sections_nest_scopes_and_name_bad_fields() -> None:
    bounds = section_bounds(
        {"floors": {"dnsmos_ovrl": 3, "piper": {"en-numerals/years": {"dnsmos_sig": 3.1}}}, "ceilings": {}},
        "ttsbench.yaml",
    )
    assert {(b.measure, b.scope) for b in bounds} == {
        ("dnsmos_ovrl", ()),
        ("dnsmos_sig", ("piper", "en-numerals", "years")),
    }
    with pytest.raises(QualityOptionError, match=r"ttsbench.yaml: field quality.floors.dnsmos_ovr: unknown quality"):
        section_bounds({"floors": {"dnsmos_ovr": 3}}, "ttsbench.yaml")
    with pytest.raises(
        QualityOptionError, match=r"field quality.ceilings.clipping_ratio: a ceiling must be a finite number, got 'low'"
    ):
        section_bounds({"ceilings": {"clipping_ratio": "low"}}, "ttsbench.yaml")
    with pytest.raises(QualityOptionError, match=r"--tts-quality-floor 'ovrl=3': unknown quality measure 'ovrl'"):
        parse_cli_bounds(["ovrl=3"], "floor")
    with pytest.raises(QualityOptionError, match=r"expected \[SCOPE/...\]MEASURE=VALUE"):
        parse_cli_bounds(["dnsmos_ovrl"], "floor")
    with pytest.raises(QualityOptionError, match="a tolerance must be a number of at least 0"):
        parse_cli_bounds(["dnsmos_ovrl=-1"], "tolerance")
    with pytest.raises(QualityOptionError, match="unknown measure set 'mos'"):
        parse_measure_sets(["signal,mos"])
    assert parse_measure_sets(None) == ("signal",)
    assert parse_measure_sets(["dnsmos,signal", "signal"]) == ("dnsmos", "signal")
    assert parse_measure_sets(["none"]) == ()


def test_summary_mean_median_p10_and_bootstrap_interval() -> None:
    values = [3.0, 3.2, 3.4, 3.6, 3.8, 2.0]
    summary = describe(values)
    assert summary.n == 6 and summary.mean == pytest.approx(3.1667, abs=1e-4)
    assert summary.median == pytest.approx(3.3) and summary.p10 == pytest.approx(2.5)
    low, high = summary.ci95
    assert low < summary.mean < high and high - low < 1.6
    assert describe(values) == summary  # fixed seed: the same interval every time
    assert describe([]).mean is None and describe([1.0]).ci95 is None
    # a readings item's targets share one clip: counted once
    shared = [make_result(id="s/m", target=t, quality={"peak_dbfs": -3.0}) for t in ("a", "b", "c")]
    shared.append(make_result(id="s/n", quality={"peak_dbfs": -9.0}))
    assert summarize_quality(shared, ["engine"])[("e",)]["peak_dbfs"].mean == pytest.approx(-6.0)


def test_missing_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "speechmos", None)
    monkeypatch.setitem(sys.modules, "speechmos.dnsmos", None)
    with pytest.raises(QualityUnavailable, match=r'pip install "pytest-ttsbench\[quality\]"'):
        Dnsmos()
    monkeypatch.undo()
    # The clip windowing frees the models' length with onnx, the first time on a machine (no graph kept yet).
    monkeypatch.setenv("TTSBENCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(QualityUnavailable, match=r'needs onnx: pip install "pytest-ttsbench\[quality\]"'):
        Dnsmos(windowing="clip")


CASES = """\
suite: q-numerals
language: en
scorer: numbers
quality:
  ceilings: {clipping_ratio: 0.001}
items:
  - id: bridge-2026
    category: years
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2026"]}
  - id: plant-1984
    category: years
    text: "The plant opened in 1984."
    expect: {values: ["1984"]}
"""

CONFIG = """\
engines:
  fast: {type: espeak, voice: en-us, rate: 240}
quality:
  floors: {speaking_rate: 5}
"""


def test_plugin_gates_quality_apart_from_accuracy(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"q.yaml": CASES}, config=CONFIG)
    first = pytester.runpytest("--tts-engine=espeak", "--tts-results=base/results.jsonl", "-p", "no:cacheprovider")
    first.assert_outcomes(passed=2)
    assert first.ret == 0
    # the gate's decision first, the figures apart from accuracy after it
    first.stdout.fnmatch_lines(
        ["quality gates*", "*ttsbench timing and quality*", "quality per clip*", "espeak  q-numerals  years *2 *0±0*"]
    )
    rows = read_jsonl(pytester.path / "base" / "results.jsonl")
    assert all(row["quality"]["speaking_rate"] > 5 for row in rows)
    assert "pyloudnorm" in rows[0]["quality_models"]["signal"]
    gate = json.loads((pytester.path / "base" / "results.gate.json").read_text())
    kinds = {(g["measure"], g["kind"], g["breached"]) for g in gate["quality"]["gates"]}
    assert kinds == {("clipping_ratio", "ceiling", False), ("speaking_rate", "floor", False)}
    assert gate["quality"]["summary"][0]["measures"]["speaking_rate"]["n"] == 2

    # The same items read much faster: every verdict holds, the pace tolerance fails the run.
    second = pytester.runpytest(
        "--tts-engine=fast",
        "--tts-results=fast/results.jsonl",
        "--tts-baseline=base/results.jsonl",
        "--tts-quality-tolerance=speaking_rate=2",
        "-p",
        "no:cacheprovider",
    )
    second.assert_outcomes(passed=2, failed=1)  # every item holds; ttsbench::gate fails on the pace
    assert second.ret == 1
    second.stdout.fnmatch_lines(
        [
            "FAIL  fast    q-numerals  years     speaking_rate   tolerance*",
            "gate FAILED: 1 of 3 quality gates breached",
        ]
    )
    gate = json.loads((pytester.path / "fast" / "results.gate.json").read_text())
    assert not gate["passed"] and gate["thresholds"] == []
    (moved,) = [g for g in gate["quality"]["gates"] if g["kind"] == "tolerance"]
    assert moved["breached"] and moved["mean"] > moved["baseline_mean"] + 2


def test_plugin_refuses_bad_quality_input(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"q.yaml": CASES.replace("clipping_ratio: 0.001", "clipping: 0.001")})
    result = pytester.runpytest("--tts-engine=replay", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*q.yaml:*: field 'quality.ceilings.clipping': unknown quality measure 'clipping'*"])
    assert result.ret != 0
    write_project(pytester, cases={"q.yaml": CASES})
    result = pytester.runpytest("--tts-engine=replay", "--tts-quality=loud", "-p", "no:cacheprovider")
    result.stderr.fnmatch_lines(["*--tts-quality: unknown measure set 'loud'*"])
    result = pytester.runpytest("--tts-engine=replay", "--tts-quality-tolerance=dnsmos_ovrl=0.2")
    result.stderr.fnmatch_lines(["*--tts-quality-tolerance (or quality.tolerance) needs --tts-baseline RESULTS*"])
