"""Quality tolerance never compares unlike measurements and never passes over nothing.

A tolerance bucket is judged only when the measure's set was measured by the same models (the
rows' ``quality_models``) on both sides; a tolerance bound that judged no bucket fails the gate.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from plugin_projects import write_project
from quality_rows import MODELS, echo_cases, echo_config, results_file, rows

from pytest_ttsbench.cli import main
from pytest_ttsbench.gating.gate import Collected, GateConfig, GateOutcome, evaluate_gate
from pytest_ttsbench.gating.quality import UNRECORDED
from pytest_ttsbench.quality.bounds import case_file_layer, parse_cli_bounds
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.reporting.html import quality_gate_html
from pytest_ttsbench.reporting.terminal import gate_lines
from pytest_ttsbench.run_model.provenance import header_path
from pytest_ttsbench.run_model.results import ItemResult, read_results, write_results

#: The same DNSMOS model, windowed another way: figures on short clips shift by a tenth or two.
REWINDOWED = {**MODELS, "dnsmos": MODELS["dnsmos"].replace("CPU", "CPU ; windows 9.01s hop 1s")}


def gate(
    run: Sequence[ItemResult],
    baseline: Sequence[ItemResult] | None,
    tolerance: Sequence[str],
    allow: bool = False,
    suite_quality: dict | None = None,
) -> GateOutcome:
    config = GateConfig(
        engine_profiles=("v", "piper"),  # the configured profiles: a bound may name one this run does not have
        baseline=None if baseline is None else tuple(baseline),
        quality_layers=(tuple(parse_cli_bounds(list(tolerance), "tolerance")),),
        allow_quality_model_change=allow,
    )
    return evaluate_gate(run, config, Collected(suite_quality=suite_quality or {}))


def by_bucket(outcome: GateOutcome) -> dict[tuple[str, str], str]:
    return {(c.category, c.measure): c.status for c in outcome.quality_checks}


def quality_reasons(outcome: GateOutcome) -> list[str]:
    return [reason for reason in outcome.reasons if reason.startswith("quality: ")]


def voice(tmp_path: Path, name: str, ovrl: list[float], models: dict[str, str] = MODELS) -> list[ItemResult]:
    """Two categories of clips with DNSMOS and a pace figure each."""
    data = rows("v", "years", {"dnsmos_ovrl": ovrl, "speaking_rate": [12.0, 12.0]}, models=models)
    data += rows("v", "dates", {"dnsmos_ovrl": ovrl, "speaking_rate": [12.0, 12.0]}, models=models)
    return results_file(tmp_path, name, data)


def test_same_models_are_judged_as_before(tmp_path: Path) -> None:
    before = voice(tmp_path, "before", [3.4, 3.5])
    after = voice(tmp_path, "after", [3.1, 3.2])
    outcome = gate(after, before, ["dnsmos_ovrl=0.2", "speaking_rate=2"])
    assert by_bucket(outcome) == {
        ("dates", "dnsmos_ovrl"): "breached",
        ("dates", "speaking_rate"): "ok",
        ("years", "dnsmos_ovrl"): "breached",
        ("years", "speaking_rate"): "ok",
    }
    assert not any(c.models_differ for c in outcome.quality_checks)
    reasons = quality_reasons(outcome)
    assert len(reasons) == 2 and all("moved -0.3 from baseline 3.45" in r for r in reasons)
    assert gate(voice(tmp_path, "same", [3.4, 3.5]), before, ["dnsmos_ovrl=0.2"]).reasons == []


def test_a_baseline_measured_by_other_models_is_not_comparable_and_fails_the_gate(tmp_path: Path) -> None:
    before = voice(tmp_path, "before", [3.4, 3.5])
    # An unchanged voice whose figures moved only because DNSMOS windows the clips differently now.
    after = voice(tmp_path, "after", [3.2, 3.3], models=REWINDOWED)
    outcome = gate(after, before, ["dnsmos_ovrl=0.1", "speaking_rate=2"])
    statuses = by_bucket(outcome)
    assert statuses["years", "dnsmos_ovrl"] == statuses["dates", "dnsmos_ovrl"] == "not comparable"
    # the signal set was measured alike: its tolerance is still judged
    assert statuses["years", "speaking_rate"] == statuses["dates", "speaking_rate"] == "ok"
    assert not outcome.quality_breaches  # not blamed on the voice ...
    reasons = quality_reasons(outcome)
    assert reasons and not gate_document(outcome)["passed"]  # ... but the gate does not pass over it
    (changed,) = [r for r in reasons if "not comparable" in r]
    assert repr(MODELS["dnsmos"]) in changed and repr(REWINDOWED["dnsmos"]) in changed
    assert "re-measure the baseline" in changed and "--tts-allow-quality-model-change" in changed
    assert "dnsmos_ovrl" in changed and "2 bucket(s)" in changed
    (nothing,) = [r for r in reasons if "compared nothing" in r]
    assert "dnsmos_ovrl=0.1" in nothing and "2 were measured by other models" in nothing

    # The gate file, the terminal and the HTML report say the same.
    gates = json.loads(json.dumps(gate_document(outcome)))["quality"]["gates"]
    ovrl = [g for g in gates if g["measure"] == "dnsmos_ovrl"]
    assert {g["status"] for g in ovrl} == {"not comparable"} and not any(g["breached"] for g in ovrl)
    assert ovrl[0]["baseline_models"] == [MODELS["dnsmos"]] and ovrl[0]["models"] == [REWINDOWED["dnsmos"]]
    lines = gate_lines(outcome)
    table = [line for line in lines if "dnsmos_ovrl    tolerance" in line]
    assert len(table) == 2 and all(line.startswith("not comparable") for line in table)
    assert any("dnsmos figures measured by" in line and "not judged" in line for line in lines)
    assert "not comparable" in lines[-1] and "compared nothing" in lines[-1] and lines[-1].startswith("gate FAILED")
    html = str(quality_gate_html(outcome))
    assert html.count('<td class="label">not comparable</td>') == 2 and "dnsmos figures measured by" in html


def test_the_opt_out_judges_them_and_says_the_models_differ(tmp_path: Path) -> None:
    before = voice(tmp_path, "before", [3.4, 3.5])
    after = voice(tmp_path, "after", [3.2, 3.3], models=REWINDOWED)
    outcome = gate(after, before, ["dnsmos_ovrl=0.1"], allow=True)
    assert set(by_bucket(outcome).values()) == {"breached"}
    assert all(c.models_differ and c.judged for c in outcome.quality_checks)
    reasons = quality_reasons(outcome)
    assert len(reasons) == 2 and all("moved -0.2" in r for r in reasons)
    lines = gate_lines(outcome)
    assert sum(line.startswith("FAIL, models differ") for line in lines) == 2
    assert any("judged anyway (--tts-allow-quality-model-change)" in line for line in lines)
    within = gate(after, before, ["dnsmos_ovrl=0.3"], allow=True)
    assert within.reasons == [] and {g["status"] for g in gate_document(within)["quality"]["gates"]} == {"ok"}


def test_a_baseline_without_the_measure_compared_nothing_and_fails(tmp_path: Path) -> None:
    # The baseline ran with the default (signal) set only: no DNSMOS figure anywhere.
    before = results_file(
        tmp_path,
        "before",
        rows("v", "years", {"speaking_rate": [12.0, 12.0]}) + rows("v", "dates", {"speaking_rate": [12.0]}),
    )
    after = voice(tmp_path, "after", [3.4, 3.5])
    outcome = gate(after, before, ["dnsmos_ovrl=0.2"])
    assert set(by_bucket(outcome).values()) == {"no baseline figure"}
    assert not outcome.quality_breaches
    (reason,) = quality_reasons(outcome)
    assert reason.startswith("quality: tolerance dnsmos_ovrl=0.2 (--tts-quality-tolerance) compared nothing")
    assert "the baseline has no dnsmos_ovrl figures for 2 of them" in reason
    assert gate_lines(outcome)[-1] == f"gate FAILED: {reason}"


def test_a_bucket_new_in_this_run_is_shown_and_the_others_judged(tmp_path: Path) -> None:
    before = results_file(tmp_path, "before", rows("v", "years", {"dnsmos_ovrl": [3.4, 3.5]}))
    after = voice(tmp_path, "after", [3.3, 3.4])
    outcome = gate(after, before, ["dnsmos_ovrl=0.2"])
    assert by_bucket(outcome) == {("dates", "dnsmos_ovrl"): "no baseline figure", ("years", "dnsmos_ovrl"): "ok"}
    assert outcome.reasons == []
    lines = gate_lines(outcome)
    assert any(line.startswith("no baseline") and "dates" in line for line in lines)
    assert lines[-1] == "gate passed"
    # ... and a breach in the judged bucket still fails
    assert len(gate(voice(tmp_path, "worse", [2.0, 2.0]), before, ["dnsmos_ovrl=0.2"]).reasons) == 1


def _without_quality_fields(path: Path, fields: Sequence[str]) -> list[ItemResult]:
    """Rewrite a results file as an older version wrote it: without ``fields``."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for name in fields:
            row.pop(name, None)
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_results(path)


def test_rows_without_provenance_do_not_crash(tmp_path: Path) -> None:
    voice(tmp_path, "old", [3.4, 3.5])
    unrecorded = _without_quality_fields(tmp_path / "old.jsonl", ["quality_models"])
    after = voice(tmp_path, "after", [3.4, 3.5])
    # recorded on one side only: a difference
    outcome = gate(after, unrecorded, ["dnsmos_ovrl=0.2"])
    assert set(by_bucket(outcome).values()) == {"not comparable"}
    assert any(repr(UNRECORDED) in r and "not comparable" in r for r in outcome.reasons)
    # recorded on neither side: nothing shows they were measured differently
    outcome = gate(unrecorded, unrecorded, ["dnsmos_ovrl=0.2"])
    assert set(by_bucket(outcome).values()) == {"ok"} and outcome.reasons == []
    # a results file from before quality measures: nothing to compare, said so
    voice(tmp_path, "older", [3.4, 3.5])
    ancient = _without_quality_fields(tmp_path / "older.jsonl", ["quality", "quality_models"])
    (reason,) = gate(after, ancient, ["dnsmos_ovrl=0.2"]).reasons
    assert "compared nothing" in reason and "baseline has no dnsmos_ovrl figures for 2 of them" in reason


def test_tolerance_without_figures_or_baseline_fails_but_another_engines_bound_is_not_asked(tmp_path: Path) -> None:
    signal_only = results_file(tmp_path, "signal", rows("v", "years", {"speaking_rate": [12.0, 12.0]}))
    (reason,) = gate(signal_only, signal_only, ["dnsmos_ovrl=0.2"]).reasons
    assert "this run has no dnsmos_ovrl figures for 1 of them (--tts-quality dnsmos measures them)" in reason
    # A case file's tolerance with no baseline at all compares nothing either.
    case = {"s": {"tolerance": {"speaking_rate": 2}}}
    (reason,) = gate(signal_only, None, [], suite_quality=case).reasons
    assert "tolerance s/speaking_rate=2 (suite s) compared nothing" in reason and "no --tts-baseline" in reason
    assert case_file_layer(case)[0].scope == ("s",)
    # A bound scoped to an engine this run does not have is not asked of this run.
    assert gate(signal_only, signal_only, ["piper/speaking_rate=2", "speaking_rate=2"]).reasons == []


def test_plugin_and_gate_command_agree_on_unlike_and_missing_baselines(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    config = echo_config()
    root = write_project(pytester, cases={"q.yaml": echo_cases("q-pace")}, config=config)
    base = pytester.runpytest("--tts-engine=voice", "--tts-results=base/results.jsonl", "-p", "no:cacheprovider")
    assert base.ret == 0
    (row,) = read_results(root / "base" / "results.jsonl")
    assert row.quality["speaking_rate"] and row.quality_models["signal"]
    # The same baseline, as measured by another version of the signal measures.
    other = root / "other" / "results.jsonl"
    other.parent.mkdir()
    shutil.copy(header_path(root / "base" / "results.jsonl"), header_path(other))
    write_results(other, [replace(row, quality_models={"signal": row.quality_models["signal"] + " (older)"})])
    # ... and as an older version wrote it, before quality measures.
    bare = root / "bare" / "results.jsonl"
    bare.parent.mkdir()
    shutil.copy(header_path(root / "base" / "results.jsonl"), header_path(bare))
    write_results(bare, [replace(row, quality={}, quality_models={})])

    for baseline, extra, status, said in (
        (other, [], 1, "tolerance not comparable: signal figures measured by"),
        (other, ["--tts-allow-quality-model-change"], 0, None),
        (bare, [], 1, "compared nothing"),
    ):
        # baselines rewritten from a recorded run: read with --tts-allow-unverified
        options = [
            f"--tts-baseline={baseline}",
            "--tts-quality-tolerance=speaking_rate=2",
            "--tts-allow-unverified",
            *extra,
        ]
        run = pytester.runpytest(
            "--tts-engine=voice", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider", *options
        )
        assert run.ret == status, (baseline, extra)
        plugin_gate = json.loads((root / "run" / "results.gate.json").read_text(encoding="utf-8"))
        if said:
            assert any(said in reason for reason in plugin_gate["reasons"])
            run.stdout.fnmatch_lines([f"*{said}*"])
        else:
            assert plugin_gate["passed"]
            (check,) = plugin_gate["quality"]["gates"]
            assert check["status"] == "ok" and check["models_differ"]
        capsys.readouterr()
        assert main(["gate", str(root / "run"), "--rootdir", str(root), *options]) == status
        assert json.loads((root / "run" / "results.gate.json").read_text(encoding="utf-8")) == plugin_gate
        shutil.rmtree(root / "run")

    # The configuration's opt-out works for the gate command as it does in pytest.
    (root / "ttsbench.yaml").write_text(config + "quality:\n  allow_model_change: true\n", encoding="utf-8")
    options = [f"--tts-baseline={other}", "--tts-quality-tolerance=speaking_rate=2", "--tts-allow-unverified"]
    run = pytester.runpytest(
        "--tts-engine=voice", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider", *options
    )
    assert run.ret == 0
    run.stdout.fnmatch_lines(["ok, models differ  voice*speaking_rate*tolerance*"])
    assert main(["gate", str(root / "run"), "--rootdir", str(root), *options]) == 0


def test_the_gate_command_reads_the_latest_run_of_an_appended_baseline_as_pytest_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An older run, then the latest (--tts-append): pytest's --tts-baseline compares with the latest rows.
    old = [replace(row, run_id="r1") for row in rows("v", "years", {"speaking_rate": [20.0, 20.0]})]
    latest = [replace(row, run_id="r2") for row in rows("v", "years", {"speaking_rate": [12.0, 12.0]})]
    results_file(tmp_path, "baseline", old + latest)
    results_file(tmp_path, "run", rows("v", "years", {"speaking_rate": [12.5, 12.5]}))
    options = ["--tts-baseline", str(tmp_path / "baseline.jsonl"), "--tts-quality-tolerance", "speaking_rate=2"]
    options.append("--tts-allow-unverified")  # runs written by the test, without manifests
    assert main(["gate", str(tmp_path / "run.jsonl"), "--rootdir", str(tmp_path), *options]) == 0
    gate_file = json.loads((tmp_path / "run.gate.json").read_text(encoding="utf-8"))
    (check,) = gate_file["quality"]["gates"]
    assert check["baseline_mean"] == 12.0 and check["status"] == "ok"
