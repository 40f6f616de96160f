"""Every bound accounts for itself (#22): a typo'd floor is refused before anything runs, a floor
left out by ``-k`` or by a missing shard fails the gate unless the run opts in, error rows are not
verdicts, and the gate file's ``passed`` is the exit status's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, write_project
from plugin_projects import PASSING_TRANSCRIPTS as PASSING

from pytest_ttsbench.cli import main


def _gate(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _statuses(gate: dict) -> dict[str, str]:
    return {f"{b['name']} [{b['engine']}]": b["status"] for b in gate["bounds"] if b["kind"] == "floor"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS}, transcripts=PASSING)
    return pytester


@pytest.mark.parametrize(
    ("option", "named", "closest"),
    [
        ("--tts-threshold=yeras=0.9", "category 'yeras'", "years"),
        ("--tts-threshold=demo-numeral/years=0.9", "suite 'demo-numeral'", "demo-numerals"),
        ("--tts-threshold=demo-numerals/tims=0.9", "category 'tims'", "times"),
        ("--tts-threshold=fomr=western=0.9", "facet 'fomr'", "form"),
        ("--tts-threshold=form=westren=0.9", "form 'westren'", "western"),
        ("--tts-threshold=language=ar=0.9", "language 'ar'", "en"),
    ],
)
def test_a_floor_matching_nothing_is_refused_before_anything_runs(
    project: pytest.Pytester, option: str, named: str, closest: str
) -> None:
    result = project.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", option, "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "matches nothing" in err and named in err and closest in err and "--tts-threshold" in err
    assert not (project.path / "out" / "results.jsonl").exists()  # nothing was synthesized


def test_a_typo_in_a_case_files_own_thresholds_is_refused_naming_the_file(project: pytest.Pytester) -> None:
    (project.path / "cases" / "demo-numerals.yaml").write_text(
        NUMERALS.replace("thresholds: {default: 0.5}", "thresholds: {default: 0.5, yeras: 0.9}"), encoding="utf-8"
    )
    result = project.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "yeras=0.9 (cases/demo-numerals.yaml) matches nothing" in err and "closest: years" in err


def test_a_configuration_floor_on_a_suite_no_case_file_defines_is_refused(project: pytest.Pytester) -> None:
    config = project.path / "ttsbench.yaml"
    config.write_text(config.read_text() + "thresholds: {demo-numeralz: {years: 0.9}}\n", encoding="utf-8")
    result = project.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "suite 'demo-numeralz'" in result.stderr.str() and "ttsbench.yaml" in result.stderr.str()


def test_a_floor_on_a_category_k_deselected_is_not_measured_and_fails(project: pytest.Pytester) -> None:
    run = ("--tts-engine=replay", "--tts-threshold=times=0.9", "--tts-min-n=1", "-k", "year", "-p", "no:xdist")
    result = project.runpytest(*run, "--tts-results=out/results.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*not measured*floor demo-numerals/times=0.9 [[]replay[]] (--tts-threshold)*"])
    gate = _gate(project.path / "out" / "results.gate.json")
    assert gate["passed"] is False
    assert _statuses(gate)["demo-numerals/times=0.9 [replay]"] == "not measured"
    assert _statuses(gate)["demo-numerals/years=0.5 [replay]"] == "held"
    # The one opt-in: a deliberately partial run passes, and the bound still says it was not measured.
    allowed = project.runpytest(*run, "--tts-results=ok/results.jsonl", "--tts-allow-unmeasured-bounds")
    assert allowed.ret == pytest.ExitCode.OK
    assert _statuses(_gate(project.path / "ok" / "results.gate.json"))["demo-numerals/times=0.9 [replay]"] == (
        "not measured"
    )


def test_ttsbench_gate_refuses_a_typo_and_judges_unmeasured_floors_as_pytest(project: pytest.Pytester) -> None:
    assert project.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl", "-k", "year").ret == 0
    root = ["--rootdir", str(project.path)]
    assert main(["gate", str(project.path / "out"), *root, "--tts-threshold=yeras=0.9"]) == 2
    assert main(["gate", str(project.path / "out"), *root, "--tts-threshold=times=0.9"]) == 1
    gate = _gate(project.path / "out" / "results.gate.json")
    assert gate["passed"] is False and _statuses(gate)["demo-numerals/times=0.9 [replay]"] == "not measured"
    allowed = ["--tts-threshold=times=0.9", "--tts-allow-unmeasured-bounds"]
    assert main(["gate", str(project.path / "out"), *root, *allowed]) == 0


def test_a_partial_merge_carries_its_missing_shard_to_the_gate(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    for index in (1, 2):
        project.runpytest("--tts-engine=replay", f"--tts-results=s{index}/results.jsonl", f"--tts-shard={index}/2")
    ran = [p for p in ("s1", "s2") if (project.path / p / "results.jsonl").exists()]
    assert ran  # at least one shard holds items
    merged = str(project.path / "merged")
    assert main(["merge", str(project.path / ran[0]), "-o", merged, "--allow-partial"]) == 0
    missing = "2/2" if ran[0] == "s1" else "1/2"
    assert f"shard(s) {missing} never ran" in capsys.readouterr().out
    assert main(["gate", merged, "--rootdir", str(project.path)]) == 1
    out = capsys.readouterr().out
    assert f"coverage: shard(s) {missing} never ran" in out and "gate FAILED" in out
    gate = _gate(project.path / "merged" / "results.gate.json")
    assert gate["passed"] is False and gate["missing_shards"] == [missing]
    assert {"kind": "shard", "name": missing, "status": "not measured"}.items() <= next(
        b for b in gate["bounds"] if b["kind"] == "shard"
    ).items()
    assert main(["gate", merged, "--rootdir", str(project.path), "--tts-allow-unmeasured-bounds"]) == 0


def test_the_gate_command_refuses_what_pytest_refuses(project: pytest.Pytester, capsys) -> None:  # type: ignore[no-untyped-def]
    assert project.runpytest("--tts-engine=replay", "--tts-results=out/results.jsonl").ret == 0
    capsys.readouterr()
    status = main(
        ["gate", str(project.path / "out"), "--rootdir", str(project.path), "--tts-latency-compare-fail", "p95:20%"]
    )
    assert status == 2
    refused = capsys.readouterr().err
    assert "--tts-latency-compare-fail needs --tts-baseline RESULTS" in refused
    result = project.runpytest(
        "--tts-engine=replay", "--tts-results=o2/results.jsonl", "--tts-latency-compare-fail", "p95:20%"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--tts-latency-compare-fail needs --tts-baseline RESULTS" in result.stderr.str()


def test_an_engine_whose_every_request_failed_measured_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTSBENCH_REFUSED_KEY", "k")
    config = (
        "engines:\n"
        '  cloud: {type: openai, base_url: "http://127.0.0.1:9/v1", model: m, voice: alloy, '
        "api_key_env: TTSBENCH_REFUSED_KEY, response_format: wav}\n"
    )
    write_project(
        pytester, cases={"demo-numerals.yaml": NUMERALS.replace("{default: 0.5}", "{default: 0.0}")}, config=config
    )
    result = pytester.runpytest(
        "--tts-engine=cloud", "--tts-results=out/results.jsonl", "-k", "year or time", "-p", "no:xdist"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["coverage: cloud: 0 of 2 selected target(s) produced a verdict (2 ended in error)"])
    result.stdout.fnmatch_lines(["gate FAILED: *the run measured nothing for it*"])
    gate = _gate(pytester.path / "out" / "results.gate.json")
    assert gate["passed"] is False and gate["exitstatus"] == 1 and gate["gate_passed"] is False
    assert gate["coverage"][0]["measured"] == 0 and gate["coverage"][0]["errors"] == 2


def test_under_xdist_a_typo_is_the_same_usage_error_and_nothing_runs(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "--tts-engine=replay", "--tts-results=out/results.jsonl", "--tts-threshold=yeras=0.9", "-n", "2"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "floor yeras=0.9 (--tts-threshold) matches nothing" in result.stderr.str()
    assert not (project.path / "out" / "results.jsonl").exists()
    assert _gate(project.path / "out" / "results.gate.json")["passed"] is False
