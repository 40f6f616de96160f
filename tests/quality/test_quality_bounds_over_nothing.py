"""Quality floors and ceilings never pass over nothing, as tolerance does not.

A bound that applies to buckets of the run but has no figure to judge in any of them fails the
gate naming the bound, where it came from and why; a bucket without figures beside judged ones is
listed as ``no figures``; a bound on a measure set the run does not take is refused before the
run (the plugin) or before the gate (``ttsbench gate``, from the run header).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from plugin_projects import write_project
from quality_rows import MODELS, echo_cases, echo_config, results_file, rows
from result_rows import make_result

from pytest_ttsbench.cli import main
from pytest_ttsbench.gating.gate import Collected, GateConfig, GateOutcome, evaluate_gate
from pytest_ttsbench.quality.bounds import override_layers
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.reporting.html import quality_gate_html
from pytest_ttsbench.reporting.terminal import gate_lines
from pytest_ttsbench.run_model.provenance import header_path
from pytest_ttsbench.run_model.results import ItemResult, read_results
from pytest_ttsbench.session.gate_options import unmeasured_bounds_error

SIGNAL_ONLY = {"signal": MODELS["signal"]}


def gate(
    run: Sequence[ItemResult],
    floors: Sequence[str] = (),
    ceilings: Sequence[str] = (),
    config: dict | None = None,
    suite_quality: dict | None = None,
    quality_sets: tuple[str, ...] | None = ("signal",),
) -> GateOutcome:
    layers = override_layers(config or {}, "ttsbench.yaml", list(floors), list(ceilings), [])
    config_ = GateConfig(
        engine_profiles=("espeak", "piper", "kokoro"),  # the configured profiles: a bound may name one not run
        quality_layers=tuple(tuple(layer) for layer in layers),
        quality_sets=quality_sets,
    )
    return evaluate_gate(run, config_, Collected(suite_quality=suite_quality or {}))


def statuses(outcome: GateOutcome) -> dict[tuple[str, str, str, str], str]:
    return {(c.engine, c.category, c.measure, c.kind): c.status for c in outcome.quality_checks}


def quality_reasons(outcome: GateOutcome) -> list[str]:
    return [reason for reason in outcome.reasons if reason.startswith("quality: ")]


def paced(tmp_path: Path, name: str = "run", engine: str = "espeak") -> list[ItemResult]:
    """Two categories measured with the default set only: pace figures, no DNSMOS."""
    data = rows(engine, "years", {"speaking_rate": [12.0, 13.0]}, models=SIGNAL_ONLY)
    data += rows(engine, "dates", {"speaking_rate": [11.0, 12.0]}, models=SIGNAL_ONLY)
    return results_file(tmp_path, name, data)


def failed_clips(engine: str, category: str, count: int = 2) -> list[ItemResult]:
    """Clips of ``category`` that failed before they were measured (an engine error): no figures."""
    return [
        make_result(engine=engine, suite="s", id=f"s/{category}-{i}", category=category, verdict="error")
        for i in range(count)
    ]


@pytest.mark.parametrize(("kind", "option"), [("floor", "--tts-quality-floor"), ("ceiling", "--tts-quality-ceiling")])
def test_a_bound_on_a_measure_the_run_did_not_take_fails_the_gate(tmp_path: Path, kind: str, option: str) -> None:
    bound = "dnsmos_ovrl=3" if kind == "floor" else "dnsmos_ovrl=4.9"
    outcome = gate(paced(tmp_path), **{f"{kind}s": [bound]})
    assert not gate_document(outcome)["passed"]
    assert not outcome.quality_breaches  # nothing was measured, so nothing is blamed on the voice ...
    (reason,) = quality_reasons(outcome)  # ... and the gate does not pass over it
    assert reason.startswith(f"quality: {kind} {bound} ({option}) checked nothing: it applies to 2 bucket(s)")
    assert (
        "no dnsmos_ovrl figures for 2 of them (--tts-quality dnsmos measures them; this run measured signal)" in reason
    )

    # The gate file, the terminal and the HTML report list what was not checked.
    gates = json.loads(json.dumps(gate_document(outcome)))["quality"]["gates"]
    assert [(g["category"], g["kind"], g["status"], g["breached"], g["mean"], g["n"]) for g in gates] == [
        ("dates", kind, "no figures", False, None, 0),
        ("years", kind, "no figures", False, None, 0),
    ]
    lines = gate_lines(outcome)
    assert sum(line.startswith("no figures  espeak") and f"dnsmos_ovrl  {kind}" in line for line in lines) == 2
    assert lines[-1] == f"gate FAILED: {reason}"
    assert str(quality_gate_html(outcome)).count('<td class="label">no figures</td>') == 2


def test_a_bucket_without_figures_beside_judged_ones_is_shown_not_breached(tmp_path: Path) -> None:
    run = results_file(
        tmp_path, "run", rows("espeak", "years", {"speaking_rate": [12.0, 13.0]}) + failed_clips("espeak", "dates")
    )
    outcome = gate(run, floors=["speaking_rate=5"], ceilings=["speaking_rate=20"])
    assert statuses(outcome) == {
        ("espeak", "dates", "speaking_rate", "floor"): "no figures",
        ("espeak", "dates", "speaking_rate", "ceiling"): "no figures",
        ("espeak", "years", "speaking_rate", "floor"): "ok",
        ("espeak", "years", "speaking_rate", "ceiling"): "ok",
    }
    assert outcome.reasons == [] and not outcome.quality_breaches
    dates = [g for g in gate_document(outcome)["quality"]["gates"] if g["category"] == "dates"]
    assert {(g["status"], g["breached"], g["mean"]) for g in dates} == {("no figures", False, None)}
    lines = gate_lines(outcome)
    assert sum(line.startswith("no figures  espeak  s      dates") for line in lines) == 2
    assert lines[-1] == "gate passed"
    # ... a breach in the judged bucket still fails
    worse = results_file(tmp_path, "worse", rows("espeak", "years", {"speaking_rate": [3.0]}) + failed_clips("e", "x"))
    assert len(gate(worse, floors=["speaking_rate=5"]).quality_breaches) == 1

    # Every clip failed before it was measured, the set chosen: the floor checked nothing, said so.
    all_failed = results_file(tmp_path, "failed", failed_clips("espeak", "years") + failed_clips("espeak", "dates"))
    (reason,) = gate(all_failed, floors=["speaking_rate=5"]).reasons
    assert "floor speaking_rate=5 (--tts-quality-floor) checked nothing: it applies to 2 bucket(s)" in reason
    assert "none of their clips has a figure: each failed before it was measured" in reason


def test_a_scoped_bound_judges_its_own_buckets_and_another_engines_is_not_asked(tmp_path: Path) -> None:
    espeak = rows("espeak", "years", {"dnsmos_ovrl": [3.4, 3.5], "speaking_rate": [12.0, 12.0]})
    piper = rows("piper", "years", {"speaking_rate": [12.0, 12.0]}, models=SIGNAL_ONLY)
    run = results_file(tmp_path, "run", espeak + piper)
    # The general floor judged espeak; piper's own floor found no piper figure: that fails.
    outcome = gate(run, floors=["dnsmos_ovrl=3.0", "piper/dnsmos_ovrl=3.2"], quality_sets=("signal", "dnsmos"))
    assert statuses(outcome) == {
        ("espeak", "years", "dnsmos_ovrl", "floor"): "ok",
        ("piper", "years", "dnsmos_ovrl", "floor"): "no figures",
    }
    (reason,) = outcome.reasons
    assert reason.startswith("quality: floor piper/dnsmos_ovrl=3.2 (--tts-quality-floor) checked nothing")
    assert "it applies to 1 bucket(s)" in reason
    # A bound scoped to an engine this run does not have is not asked of it.
    only_espeak = results_file(tmp_path, "espeak", espeak)
    outcome = gate(only_espeak, floors=["kokoro/dnsmos_bak=3.2"], ceilings=["kokoro/speaking_rate=9"])
    assert outcome.quality_checks == [] and outcome.reasons == []


def test_configuration_and_case_file_bounds_name_their_source(tmp_path: Path) -> None:
    run = paced(tmp_path)
    config = {"ceilings": {"espeak": {"dnsmos_sig": 4.9}}}
    case = {"s": {"floors": {"dnsmos_ovrl": 3}}}
    reasons = gate(run, config=config, suite_quality=case, quality_sets=None).reasons
    assert len(reasons) == 2
    ceiling = "quality: ceiling espeak/dnsmos_sig=4.9 (ttsbench.yaml) checked nothing: it applies to 2 bucket(s)"
    floor = "quality: floor s/dnsmos_ovrl=3 (suite s) checked nothing: it applies to 2 bucket(s)"
    assert reasons[0].startswith(ceiling) and reasons[1].startswith(floor)
    # A run that did not record its sets: the hint names the set to take, without guessing the rest.
    assert reasons[1].endswith("this run has no dnsmos_ovrl figures for 2 of them (--tts-quality dnsmos measures them)")


def test_a_bound_on_a_set_not_taken_is_refused_up_front_only_when_it_surely_applies() -> None:
    layers = override_layers(
        {"floors": {"dnsmos_ovrl": 3.0}, "tolerance": {"s": {"speaker_similarity": 0.1}}},
        "ttsbench.yaml",
        ["kokoro/dnsmos_bak=3"],
        ["espeak/clipping_ratio=0.01"],
        ["espeak/dnsmos_sig=0.2"],
    )
    error = unmeasured_bounds_error(layers, ("signal",), ["espeak"], "--tts-quality", "add: --tts-quality {sets}")
    # unscoped, or scoped to this run's engines: refused; another engine's or a suite's: left to the gate
    assert error == (
        "tolerance espeak/dnsmos_sig=0.2 (--tts-quality-tolerance), floor dnsmos_ovrl=3 (ttsbench.yaml) "
        "needs the dnsmos measure set, which this run does not take (--tts-quality: signal); "
        "add: --tts-quality signal,dnsmos"
    )
    assert unmeasured_bounds_error(layers, ("signal", "dnsmos"), ["espeak"], "x", "{sets}") is None
    refused = unmeasured_bounds_error(layers, (), ["kokoro"], "--tts-quality", "add: --tts-quality {sets}")
    assert refused is not None and "floor kokoro/dnsmos_bak=3 (--tts-quality-floor)" in refused
    assert "espeak/clipping_ratio" not in refused and "(--tts-quality: none)" in refused
    assert refused.endswith("add: --tts-quality dnsmos")


def echo_project(pytester: pytest.Pytester, quality: str = "") -> tuple[Path, str]:
    """A project whose case file (suite q-pace) ends with ``quality``; returns its root and ttsbench.yaml."""
    config = echo_config()
    return write_project(pytester, cases={"q.yaml": echo_cases("q-pace") + quality}, config=config), config


def test_plugin_refuses_a_bound_on_a_set_it_does_not_take_and_the_gate_command_agrees(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    root, config = echo_project(pytester)
    run = pytester.runpytest("--tts-engine=voice", "--tts-quality-floor=dnsmos_ovrl=3.0", "-p", "no:cacheprovider")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(
        [
            "*floor dnsmos_ovrl=3 (--tts-quality-floor) needs the dnsmos measure set, which this run does not take "
            "(--tts-quality not given, so the default: signal); add the set: --tts-quality signal,dnsmos*"
        ]
    )
    # The configuration's ceiling, with the configuration's measures: both files named.
    (root / "ttsbench.yaml").write_text(
        config + "quality:\n  measures: [signal]\n  ceilings: {voice: {dnsmos_bak: 4.9}}\n", encoding="utf-8"
    )
    run = pytester.runpytest("--tts-engine=voice", "-p", "no:cacheprovider")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    yaml = root / "ttsbench.yaml"
    run.stderr.fnmatch_lines(
        [
            f"*ceiling voice/dnsmos_bak=4.9 ({yaml}) needs the dnsmos measure set*"
            f"({yaml}: field quality.measures: signal)*"
        ]
    )
    assert list(root.glob("runs/*/results.jsonl")) == []  # refused before any clip was made
    # Clips only (no verdicts, nothing gated): nothing to refuse.
    assert pytester.runpytest("--tts-engine=voice", "--tts-synth-only", "-p", "no:cacheprovider").ret == 0
    (root / "ttsbench.yaml").write_text(config, encoding="utf-8")

    # Another engine's floor is not asked of this run: it runs and passes (a name no profile has is refused).
    (root / "ttsbench.yaml").write_text(config.replace("engines:\n", "engines:\n  piper: {type: espeak}\n"))
    run = pytester.runpytest(
        "--tts-engine=voice", "--tts-results=run/results.jsonl", "--tts-quality-floor=piper/dnsmos_ovrl=3.0"
    )
    assert run.ret == 0
    typo = pytester.runpytest(
        "--tts-engine=voice", "--tts-results=typo/results.jsonl", "--tts-quality-floor=pipr/dnsmos_ovrl=3.0"
    )
    assert typo.ret == pytest.ExitCode.USAGE_ERROR
    typo.stderr.fnmatch_lines(["*floor pipr/dnsmos_ovrl=3 (--tts-quality-floor) matches nothing*(closest: piper)*"])
    assert json.loads(header_path(root / "run" / "results.jsonl").read_text(encoding="utf-8"))["quality_sets"] == [
        "signal"
    ]
    # The gate command reads the sets from the run header and refuses the same bound the same way.
    capsys.readouterr()
    assert main(["gate", str(root / "run"), "--rootdir", str(root), "--tts-quality-floor", "dnsmos_ovrl=3.0"]) == 2
    err = capsys.readouterr().err
    assert "floor dnsmos_ovrl=3 (--tts-quality-floor) needs the dnsmos measure set" in err
    assert "(its run header: signal); gate a run measured with --tts-quality signal,dnsmos" in err


def test_plugin_and_gate_command_fail_alike_on_bounds_that_checked_nothing(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # Scoped to a suite (the case file's own floor; a suite-scoped ceiling): not refused up front,
    # since a suite may not be selected, so the gate judges them, and they have nothing to judge.
    root, _ = echo_project(pytester, "quality:\n  floors: {dnsmos_ovrl: 3.0}\n")
    options = ["--tts-quality-ceiling=q-pace/dnsmos_bak=4.9", "--tts-quality-floor=speaking_rate=1"]
    run = pytester.runpytest(
        "--tts-engine=voice", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider", *options
    )
    assert run.ret == 1
    plugin_gate = json.loads((root / "run" / "results.gate.json").read_text(encoding="utf-8"))
    reasons = [r for r in plugin_gate["reasons"] if r.startswith("quality: ")]
    assert len(reasons) == 2
    assert reasons[0].startswith("quality: ceiling q-pace/dnsmos_bak=4.9 (--tts-quality-ceiling) checked nothing")
    assert reasons[1].startswith("quality: floor q-pace/dnsmos_ovrl=3 (suite q-pace) checked nothing")
    assert all("--tts-quality dnsmos measures them; this run measured signal" in r for r in reasons)
    by_measure = {g["measure"]: g["status"] for g in plugin_gate["quality"]["gates"]}
    assert by_measure == {"dnsmos_ovrl": "no figures", "dnsmos_bak": "no figures", "speaking_rate": "ok"}
    run.stdout.fnmatch_lines(["no figures  voice   q-pace  years     dnsmos_ovrl    floor*", "gate FAILED: quality:*"])

    capsys.readouterr()
    assert main(["gate", str(root / "run"), "--rootdir", str(root), *options]) == 1
    assert json.loads((root / "run" / "results.gate.json").read_text(encoding="utf-8")) == plugin_gate

    # A run header from before the sets were recorded: the gate command cannot refuse up front, so the
    # unscoped floor on DNSMOS fails at the gate instead of passing over nothing.
    header = header_path(root / "run" / "results.jsonl")
    data = json.loads(header.read_text(encoding="utf-8"))
    del data["quality_sets"]
    header.write_text(json.dumps(data), encoding="utf-8")
    floor = ["--tts-quality-floor", "dnsmos_p808=3", "--allow-unverified"]  # the header was edited above
    assert main(["gate", str(root / "run"), "--rootdir", str(root), *floor]) == 1
    gate_file = json.loads((root / "run" / "results.gate.json").read_text(encoding="utf-8"))
    assert any(
        r.startswith("quality: floor dnsmos_p808=3 (--tts-quality-floor) checked nothing") for r in gate_file["reasons"]
    )
    assert len(read_results(root / "run" / "results.jsonl")) == 1


def test_recorded_transcripts_are_not_asked_quality_bounds(pytester: pytest.Pytester, tmp_path: Path) -> None:
    # The nightly configuration's bounds are for engines that make clips; rescoring recorded
    # transcripts has no clip to measure, so neither the refusal nor the gate holds it to them.
    config = (
        "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\n"
        "quality:\n  measures: [signal]\n  floors: {dnsmos_ovrl: 3.0, speaking_rate: 5}\n"
    )
    write_project(pytester, config=config)
    run = pytester.runpytest("--tts-engine=replay", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider")
    gate_file = json.loads((pytester.path / "run" / "results.gate.json").read_text(encoding="utf-8"))
    assert not quality_reasons_of(gate_file) and not gate_file.get("quality", {}).get("gates")
    assert run.ret in (0, 1) and not any("checked nothing" in r for r in gate_file["reasons"])
    # A clip that failed to synthesize is still a clip the bounds are asked of.
    failed = make_result(engine="espeak", category="years", error="synthesis failed: boom", error_stage="synthesis")
    replayed = make_result(engine="replay", category="years", generation={"provider": "transcripts"})
    outcome = gate([failed, replayed], floors=["speaking_rate=5"])
    assert statuses(outcome) == {("espeak", "years", "speaking_rate", "floor"): "no figures"}
    assert any("checked nothing" in reason for reason in quality_reasons(outcome))


def quality_reasons_of(gate_file: dict) -> list[str]:
    return [reason for reason in gate_file["reasons"] if reason.startswith("quality: ")]
