"""Per-category floors: where they come from, how they are evaluated, and that they fail the run."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest
from plugin_projects import NEWS, NUMERALS, read_jsonl, write_project
from result_rows import make_result

from pytest_ttsbench.figures.summary import summarize
from pytest_ttsbench.gating.bounds import RunFacts
from pytest_ttsbench.gating.gate import Collected, scopes_of
from pytest_ttsbench.gating.thresholds import (
    FloorSettings,
    ThresholdError,
    config_floors,
    parse_cli_thresholds,
    settle_floors,
)
from pytest_ttsbench.run_model.results import ItemResult, read_results
from pytest_ttsbench.support.stats import wilson_interval

CASE = {"s": {"default": 0.5, "years": 0.9}}


@pytest.mark.parametrize(
    ("cli", "config", "category", "expected"),
    [
        ([], {}, "years", 0.9),  # case file category
        ([], {}, "times", 0.5),  # case file default
        ([], {"default": 0.7}, "years", 0.9),  # a case-file category survives a configuration default
        ([], {"default": 0.7}, "times", 0.7),  # configuration default beats the case-file default
        ([], {"years": 0.95}, "years", 0.95),  # configuration category beats the case file's
        ([], {"years": 0.95, "s": {"years": 0.6}}, "years", 0.6),  # suite-specific beats general
        ([], {"other": {"years": 0.1}}, "years", 0.9),  # another suite's floor does not apply
        (["years=0.3"], {"years": 0.95}, "years", 0.3),  # command line beats configuration
        (["years=0.3", "s/years=0.2"], {}, "years", 0.2),  # SUITE/CATEGORY beats CATEGORY
        (["other/years=0.2"], {}, "years", 0.9),
        (["default=0.1"], {"years": 0.95}, "years", 0.95),  # a default never beats a named category
        (["default=0.1"], {}, "times", 0.1),
    ],
)
def test_floor_precedence(cli: list[str], config: dict, category: str, expected: float) -> None:
    assert _floor_in_force(cli, config, CASE, category) == expected


def _floor_in_force(cli: list[str], config: dict, case: dict, category: str) -> float | None:
    """The floor of suite ``s``'s category as the settled floors say: exactly one is in force, or none."""
    from_config, settings = config_floors(config)
    floors = settle_floors([*parse_cli_thresholds(cli), *from_config], [FloorSettings(), settings], case)
    in_force = [floor.floor for floor in floors if floor.in_force("s", category)]
    assert len(in_force) <= 1, in_force
    return in_force[0] if in_force else None


def test_no_floor_anywhere_means_no_check() -> None:
    assert _floor_in_force([], {}, {}, "years") is None


@pytest.mark.parametrize("entry", ["years", "years=", "years=abc", "years=1.5", "years=-0.1", "/years=0.5", "=0.5"])
def test_bad_command_line_floor_names_itself(entry: str) -> None:
    with pytest.raises(ThresholdError, match="--tts-threshold"):
        parse_cli_thresholds([entry])


def test_bad_configuration_floor_names_the_field() -> None:
    with pytest.raises(ThresholdError, match=r"ttsbench.yaml: field thresholds.s.years"):
        config_floors({"s": {"years": 2}}, "ttsbench.yaml")


def _row(key: str, category: str, verdict: str, auto: bool = True) -> ItemResult:
    return make_result(id=f"s/{key}", category=category, verdict=verdict, auto_evaluable=auto)


def evaluate(rows: list[ItemResult], case: dict) -> list[dict]:
    """The floors' measured buckets: the case file's floors judged over the rows."""
    run = RunFacts(tuple(rows), tuple(rows), tuple(dict.fromkeys(r.engine for r in rows)), scopes_of(rows, Collected()))
    return [j.measured for floor in settle_floors([], [], case) for j in floor.judge(run) if j.measured is not None]


def test_evaluate_counts_unknown_and_error_against_the_floor_and_equal_passes() -> None:
    rows = [_row(f"y{i}", "years", "correct") for i in range(4)] + [_row("y4", "years", "unknown")]
    rows += [_row(f"t{i}", "times", "correct") for i in range(3)] + [_row("t3", "times", "error")]
    rows += [_row("x", "excluded", "wrong", auto=False)]
    checks = {c["category"]: c for c in evaluate(rows, {"s": {"years": 0.8, "times": 0.8, "excluded": 1.0}})}
    assert set(checks) == {"years", "times"}  # a bucket with no auto-evaluable target is not gated
    assert (checks["years"]["strict_accuracy"], checks["years"]["breached"]) == (0.8, False)  # 4/5: the floor
    # times has 4 targets, under the default min_n of 5: too few to gate, neither passed nor breached.
    assert (checks["times"]["strict_accuracy"], checks["times"]["status"]) == (0.75, "too few to gate")
    case = {"s": {"years": 0.8, "times": 0.8, "min_n": 4}}
    checks = {c["category"]: c for c in evaluate(rows, case)}
    assert (checks["times"]["strict_accuracy"], checks["times"]["breached"]) == (0.75, True)
    assert tuple(checks["times"]["ci95"]) == wilson_interval(3, 4)


GAPS_PCT = "engine: replay\ngaps:\n  - id: demo-numerals/pct-45\n    reason: swaps the digits\n"


def _project(pytester: pytest.Pytester, config: str | None = None, gaps: str | None = GAPS_PCT) -> None:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS}, config=config)
    if gaps is not None:
        (pytester.path / "known_gaps").mkdir(exist_ok=True)
        (pytester.path / "known_gaps" / "replay.yaml").write_text(gaps, encoding="utf-8")


@pytest.mark.parametrize("mode", [[], ["-v"], ["-n", "2"]], ids=["dots", "verbose", "xdist"])
def test_the_gate_test_never_takes_the_progress_past_100(pytester: pytest.Pytester, mode: list[str]) -> None:
    """ttsbench::gate is not a collected test: it counts in the totals and the short summary, but adds
    no letter or line to the progress (it read "F [125%]" after "[100%]" on a run of four items)."""
    if "-n" in mode:
        pytest.importorskip("xdist")
    _project(pytester)
    result = pytester.runpytest_subprocess("--tts-engine=replay", "--tts-min-n=1", *mode)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    shown = [int(p) for line in result.outlines for p in re.findall(r"\[\s*(\d+)%\]", line)]
    assert shown and max(shown) == 100, result.stdout.str()
    assert not any(re.search(r"gate\s+(FAILED|PASSED)\s*$|%\]\s*F", line) for line in result.outlines)
    result.stdout.fnmatch_lines(["FAILED ttsbench::gate - release gate FAILED:"])
    result.assert_outcomes(passed=2, xfailed=1, failed=1)  # the gate is still one failed test


def test_known_gap_still_counts_against_the_floor(pytester: pytest.Pytester) -> None:
    # pct-45 is wrong but a known gap: every test passes or xfails, yet percentages is at 0 % < 50 %.
    _project(pytester)
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-min-n=1", "--junitxml=out/junit.xml"
    )
    # The items pass or xfail; the gate is a test of its own, so test reports show the blocked release.
    result.assert_outcomes(passed=2, xfailed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # the gate said once: its table (verdict first) and one outcome line
    result.stdout.fnmatch_lines(["FAILED ttsbench::gate - release gate FAILED:"])
    suite = ElementTree.parse(pytester.path / "out" / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    gate_case = next(case for case in suite.iter("testcase") if case.get("name") == "gate")
    failure = gate_case.find("failure")
    assert failure is not None and "demo-numerals/percentages: strict accuracy 0.0%" in (
        failure.get("message", "") + (failure.text or "")
    )
    skipped = [case.find("skipped") for case in suite.iter("testcase") if case.find("skipped") is not None]
    assert any("known gap" in (s.get("message") or "") for s in skipped)  # the known gap: xfail with its reason
    result.stdout.fnmatch_lines(
        [
            "FAIL  replay  demo-numerals  percentages *0/1 *0.0% *50.0% *[[]0.0, 79.3[]]",
            "gate FAILED: 1 of 3 floors breached",
        ]
    )
    # the summary's row, the gate's row, and the message of the failed ttsbench::gate test (pytest's
    # short summary at the end may repeat that message, and newer pytest releases do)
    body = result.stdout.str().split("short test summary info")[0]
    assert body.count("percentages") == 3
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["exitstatus"] == 1 and gate["passed"] is False
    breached = [(c["category"], c["correct"], c["n"], c["floor"]) for c in gate["thresholds"] if c["breached"]]
    assert breached == [("percentages", 0, 1, 0.5)]


def test_command_line_floor_overrides_and_the_run_passes(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-threshold=percentages=0", "--tts-min-n=1"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["ok    replay  demo-numerals  percentages*0/1*0.0%*0.0%*", "gate passed"])


def test_configuration_floors_general_and_per_suite(pytester: pytest.Pytester) -> None:
    # The configuration's default (1.0) replaces the case file's (0.5); its suite-specific
    # percentages floor (0.0) beats that default, so the known gap no longer breaches anything.
    config = (
        "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\n"
        "thresholds: {default: 1.0, demo-numerals: {percentages: 0.0}}\n"
    )
    _project(pytester, config=config)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl")
    assert result.ret == pytest.ExitCode.OK
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    assert {c["category"]: c["floor"] for c in gate["thresholds"]} == {"percentages": 0.0, "times": 1.0, "years": 1.0}


def test_bad_floor_on_the_command_line_is_a_usage_error(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("--tts-engine=replay", "--tts-threshold=years=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tts-threshold 'years=1.5': a floor must be a number in [[]0, 1], got '1.5'*"])


def test_bad_floor_in_the_configuration_names_file_and_field(pytester: pytest.Pytester) -> None:
    config = "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\nthresholds: {years: high}\n"
    _project(pytester, config=config)
    result = pytester.runpytest("--tts-engine=replay")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ttsbench.yaml: field thresholds.years: a floor must be a number*"])


def test_xdist_gate_matches_a_single_process_and_the_results_file(pytester: pytest.Pytester) -> None:
    # Two suites: the controller collects nothing under xdist, so the workers must hand it the floors.
    write_project(
        pytester,
        cases={
            "demo-numerals.yaml": NUMERALS,
            "demo-news.yaml": NEWS.replace(
                "scorer: readings\n", "scorer: readings\nthresholds: {military_model: 0.9}\n"
            ),
        },
    )
    (pytester.path / "known_gaps").mkdir()
    (pytester.path / "known_gaps" / "replay.yaml").write_text(
        GAPS_PCT + "  - id: demo-news/m-001\n    reason: reads the dash as minus\n", encoding="utf-8"
    )
    result = pytester.runpytest_subprocess(
        "-n", "2", "--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-min-n=1"
    )
    result.assert_outcomes(passed=2, xfailed=2, skipped=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL  replay  demo-news  *military_model *0/1 *0.0% *90.0% *[[]0.0, 79.3[]]",
            "FAIL  replay  demo-numerals  percentages *0/1 *0.0% *50.0% *[[]0.0, 79.3[]]",
            "gate FAILED: 2 of 4 floors breached",
        ]
    )
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["exitstatus"] == result.ret
    # Every figure the gate used is re-derived from the results file alone.
    rows = read_results(pytester.path / "out" / "r.jsonl")
    assert len(read_jsonl(pytester.path / "out" / "r.jsonl")) == 5
    buckets = summarize(rows, ["engine", "suite", "category"])
    for check in gate["thresholds"]:
        bucket = buckets[(check["engine"], check["suite"], check["category"])]
        assert (bucket.correct, bucket.n, bucket.strict_accuracy) == (
            check["correct"],
            check["n"],
            check["strict_accuracy"],
        )
        assert check["breached"] == (bucket.strict_accuracy < check["floor"])
    assert len(gate["thresholds"]) == 4


@pytest.mark.parametrize(
    ("where", "args", "message"),
    [
        ("case file", (), "*demo-numerals.yaml*field 'thresholds.years': nan is not a finite number*"),
        ("configuration", (), "*ttsbench.yaml: field limits.max_clip_seconds: nan is not a finite number*"),
        ("option", ("--tts-quality-ceiling=peak_dbfs=nan",), "*a ceiling must be a finite number, got 'nan'*"),
        ("option", ("--tts-threshold=years=nan",), "*a floor must be a number in [[]0, 1], got 'nan'*"),
    ],
)
def test_a_nan_bound_stops_the_run_before_it_judges_anything(
    pytester: pytest.Pytester, where: str, args: tuple[str, ...], message: str
) -> None:
    """A NaN floor, limit or ceiling once passed every check (``nan < 0`` is false) and then every bucket."""
    numerals = NUMERALS.replace("thresholds: {default: 0.5}", "thresholds: {default: 0.5, years: .nan}")
    config = "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\n"
    if where == "configuration":
        config += "limits: {max_clip_seconds: .nan}\n"
    write_project(pytester, cases={"demo-numerals.yaml": numerals if where == "case file" else NUMERALS}, config=config)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl", *args)
    assert result.ret in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED)  # a usage or collection error
    gate_file = pytester.path / "out" / "r.gate.json"  # a case file's error fails the gate; others stop it first
    assert not gate_file.exists() or json.loads(gate_file.read_text(encoding="utf-8"))["passed"] is False
    pytest.LineMatcher(result.stderr.lines + result.stdout.lines).fnmatch_lines([message])
