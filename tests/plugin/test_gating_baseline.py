"""Baselines: regressions, fixes, new and missing targets, McNemar, and the ``compare`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, TRANSCRIPTS, write_project
from result_rows import make_result

from pytest_ttsbench.cli import main as ttsbench_main
from pytest_ttsbench.gating.baseline import compare
from pytest_ttsbench.run_model.results import ItemResult, write_results
from pytest_ttsbench.support.stats import mcnemar_exact

PLAIN_NUMERALS = NUMERALS.replace("thresholds: {default: 0.5}\n", "")


def _row(key: str, verdict: str, engine: str = "e", category: str = "c", **extra: object) -> ItemResult:
    suite, _, rest = key.partition("/")
    item, _, span = rest.partition("/")
    return make_result(
        engine=engine,
        suite=suite,
        id=f"{suite}/{item}",
        target=span or None,
        category=category,
        verdict=verdict,
        **extra,
    )


def test_classification_and_mcnemar() -> None:
    base = [
        _row("s/a", "correct"),
        _row("s/b", "correct", category="d"),
        _row("s/c", "wrong"),
        _row("s/d", "unknown"),
        _row("s/e", "correct"),
        _row("s/m/歼-20", "wrong"),
        _row("s/gone", "correct"),
        _row("s/x", "correct", auto_evaluable=False),
    ]
    cand = [
        _row("s/a", "wrong"),  # regression
        _row("s/b", "error", category="d"),  # regression (error counts as not correct)
        _row("s/c", "correct"),  # fix
        _row("s/d", "wrong"),  # unknown → wrong is not a change in strict correctness
        _row("s/e", "correct"),
        _row("s/m/歼-20", "correct"),  # a readings target is matched by its span
        _row("s/fresh", "wrong"),
        _row("s/x", "wrong", auto_evaluable=False),  # not auto-evaluable: left out
    ]
    result = compare(base, cand)
    assert result.regressions == ["s/a", "s/b"]
    assert result.fixes == ["s/c", "s/m/歼-20"]
    assert result.unchanged == 2
    assert (result.new, result.missing) == (["s/fresh"], ["s/gone"])
    assert result.mcnemar_p == mcnemar_exact(2, 2) == 1.0
    assert result.by_category["d"].to_dict() == {
        "regressions": ["s/b"],
        "fixes": [],
        "flaky": [],
        "unchanged": 0,
        "mcnemar_p": mcnemar_exact(1, 0),
    }
    assert result.by_category["c"].regressions == ["s/a"]


def test_mcnemar_is_small_when_all_discordant_pairs_go_one_way() -> None:
    base = [_row(f"s/{i}", "correct") for i in range(8)]
    cand = [_row(f"s/{i}", "wrong") for i in range(8)]
    result = compare(base, cand)
    assert result.mcnemar_p == pytest.approx(2 * 0.5**8)
    assert result.mcnemar_p < 0.01


def test_single_engines_match_whatever_their_names() -> None:
    result = compare([_row("s/a", "correct", engine="espeak-1.51")], [_row("s/a", "wrong", engine="espeak-1.52")])
    assert result.regressions == ["s/a"] and not result.new and not result.missing


def test_several_engines_match_engine_by_engine() -> None:
    base = [_row("s/a", "correct", engine="x"), _row("s/a", "wrong", engine="y")]
    cand = [_row("s/a", "correct", engine="x"), _row("s/a", "correct", engine="z")]
    result = compare(base, cand)
    assert (result.regressions, result.fixes, result.unchanged) == ([], [], 1)
    assert (result.new, result.missing) == (["s/a@z"], ["s/a@y"])


def _generations(key: str, *verdicts: str) -> list[ItemResult]:
    return [_row(key, verdict, repeat=k) for k, verdict in enumerate(verdicts)]


def test_with_generations_only_a_majority_flip_counts_and_flaky_pairs_never_alone() -> None:
    base = [
        *_generations("s/steady", "correct", "correct", "correct"),
        *_generations("s/dips", "correct", "correct", "correct"),
        *_generations("s/wobble", "correct", "correct", "wrong"),
        *_generations("s/coin", "correct", "correct", "wrong"),
        *_generations("s/learnt", "wrong", "correct", "wrong"),
    ]
    cand = [
        *_generations("s/steady", "correct", "wrong", "correct"),  # majority still correct: unchanged
        *_generations("s/dips", "wrong", "correct", "wrong"),  # solid before, majority lost: regression
        *_generations("s/wobble", "wrong", "wrong", "wrong"),  # flaky before, solid after: regression
        *_generations("s/coin", "wrong", "correct", "wrong"),  # flaky on both sides: flaky, not counted
        *_generations("s/learnt", "correct", "correct", "correct"),  # flaky before, solid after: fix
    ]
    result = compare(base, cand)
    assert result.regressions == ["s/dips", "s/wobble"]
    assert result.fixes == ["s/learnt"]
    assert result.flaky == ["s/coin"]
    assert result.unchanged == 1
    assert result.details["s/dips"].after.rate == pytest.approx(1 / 3)
    assert result.details["s/coin"].to_dict()["before"]["verdicts"] == ["correct", "correct", "wrong"]


def _two_runs(pytester: pytest.Pytester) -> None:
    """A baseline run, then the transcripts change: year regresses, pct is fixed."""
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS})
    pytester.runpytest("--tts-engine=replay", "--tts-results=base.jsonl")
    changed = {
        **TRANSCRIPTS,
        "demo-numerals/year-2026": "The plant opened in 2025.",
        "demo-numerals/pct-45": "Turnout reached 45 percent.",
    }
    (pytester.path / "runs" / "replay.jsonl").write_text(
        "".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in changed.items()), encoding="utf-8"
    )


def test_run_against_a_baseline(pytester: pytest.Pytester) -> None:
    _two_runs(pytester)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=new.jsonl", "--tts-baseline=base.jsonl")
    result.stdout.fnmatch_lines(
        [
            "baseline base.jsonl:",  # relative to where pytest was started
            "  3 paired target(s): 1 regression(s), 1 fix(es), 1 unchanged; 0 new, 0 missing; McNemar exact p = 1",
            "    percentages: 0 regression(s), 1 fix(es), 0 unchanged; p = 1",
            "    years: 1 regression(s), 0 fix(es), 0 unchanged; p = 1",
            "    regressed: demo-numerals/year-2026",
            "    fixed:     demo-numerals/pct-45",
        ]
    )
    gate = json.loads((pytester.path / "new.gate.json").read_text(encoding="utf-8"))
    assert gate["baseline"]["regressions"] == ["demo-numerals/year-2026"]
    assert gate["reasons"] == []  # without --tts-fail-on-regression a regression is only reported


def test_fail_on_regression_spares_known_gaps(pytester: pytest.Pytester) -> None:
    _two_runs(pytester)
    gaps = pytester.path / "known_gaps" / "replay.yaml"
    gaps.parent.mkdir()
    gaps.write_text("engine: replay\ngaps:\n  - {id: demo-numerals/year-2026, reason: new voice}\n", encoding="utf-8")
    spared = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=a.jsonl", "--tts-baseline=base.jsonl", "--tts-fail-on-regression"
    )
    spared.assert_outcomes(passed=3, xfailed=1)  # two items and the passing ttsbench::gate
    assert spared.ret == pytest.ExitCode.OK
    spared.stdout.fnmatch_lines(["    regressed: demo-numerals/year-2026 (known gap)", "gate passed"])
    gaps.unlink()
    blocked = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=b.jsonl", "--tts-baseline=base.jsonl", "--tts-fail-on-regression"
    )
    assert blocked.ret == pytest.ExitCode.TESTS_FAILED
    blocked.stdout.fnmatch_lines(
        ["gate FAILED: 1 regression(s) against the baseline (33.3% of 3 paired targets regressed (> 10.0%)): *"]
    )
    blocked.stdout.fnmatch_lines(["FAILED ttsbench::gate - release gate FAILED:"])
    gate = json.loads((pytester.path / "b.gate.json").read_text(encoding="utf-8"))
    assert gate["baseline"]["blocking_regressions"] == ["demo-numerals/year-2026"]


def test_baseline_usage_errors(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS})
    missing = pytester.runpytest("--tts-engine=replay", "--tts-baseline=nope.jsonl")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--tts-baseline: no results file at */nope.jsonl*"])
    alone = pytester.runpytest("--tts-engine=replay", "--tts-fail-on-regression")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["*--tts-fail-on-regression needs --tts-baseline*"])


def test_xdist_comparison_equals_single_process_and_compare_command(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _two_runs(pytester)
    args = ["--tts-engine=replay", "--tts-baseline=base.jsonl", "--tts-fail-on-regression"]
    single = pytester.runpytest_subprocess(*args, "--tts-results=one.jsonl")
    double = pytester.runpytest_subprocess("-n", "2", *args, "--tts-results=two.jsonl")
    assert single.ret == double.ret == pytest.ExitCode.TESTS_FAILED
    one = json.loads((pytester.path / "one.gate.json").read_text(encoding="utf-8"))["baseline"]
    two = json.loads((pytester.path / "two.gate.json").read_text(encoding="utf-8"))["baseline"]
    assert one == two
    # The offline command says the same, from the results files alone.
    capsys.readouterr()
    assert (
        ttsbench_main(["compare", str(pytester.path / "base.jsonl"), str(pytester.path / "two.jsonl"), "--json"]) == 0
    )
    printed = json.loads(capsys.readouterr().out)
    provenance = {"changes", "recognizer_changes", "provenance_note"}  # what changed between the run headers
    assert (
        set(printed) >= {"regressions", "fixes", "unchanged", "new", "missing", "mcnemar_p", "by_category"} | provenance
    )
    assert {k: printed[k] for k in provenance} == {k: two[k] for k in provenance}
    assert printed["gate"]["reasons"]  # 1 of 3 regressed: above the default rate
    assert {k: printed[k] for k in ("regressions", "fixes", "unchanged", "new", "missing", "mcnemar_p")} == {
        k: two[k] for k in ("regressions", "fixes", "unchanged", "new", "missing", "mcnemar_p")
    }
    assert printed["by_category"] == two["by_category"]


def test_compare_command_text_exit_codes_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_results(base, [_row("s/a", "correct", engine="old"), _row("s/b", "wrong", engine="old")])
    write_results(cand, [_row("s/a", "unknown", engine="new"), _row("s/b", "wrong", engine="new")])
    assert ttsbench_main(["compare", str(base), str(cand)]) == 0
    out = capsys.readouterr().out
    assert "2 paired target(s): 1 regression(s), 0 fix(es), 1 unchanged" in out
    assert "  regressed: s/a" in out
    assert ttsbench_main(["compare", str(base), str(cand), "--fail-on-regression"]) == 1
    assert ttsbench_main(["compare", str(cand), str(base), "--fail-on-regression"]) == 0
    capsys.readouterr()
    assert ttsbench_main(["compare", str(base), str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"engine": "replay", "id": "demo-numerals/year-2026", "verdict": "correct"}\n', "line 1: field 'suite'"),
        ("[1, 2]\n", "line 1: a results row must be a JSON object"),
        ("", "holds no results"),
    ],
)
def test_a_malformed_baseline_is_a_usage_error_not_an_internal_error(
    pytester: pytest.Pytester, content: str, expected: str
) -> None:
    write_project(pytester, cases={"demo-numerals.yaml": PLAIN_NUMERALS})
    (pytester.path / "base.jsonl").write_text(content, encoding="utf-8")
    args = ("--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-baseline=base.jsonl")
    result = pytester.runpytest(*args)  # a file made by hand has no manifest
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tts-baseline: *base.manifest.sha256.json*the run cannot be checked*"])
    result = pytester.runpytest(*args, "--tts-allow-unverified")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--tts-baseline: *base.jsonl*{expected}*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_an_item_edited_since_the_baseline_is_listed_not_blamed_on_the_voice(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # The baseline heard "…2026." for an item that asked for 2026. Then the case file is edited:
    # same id, the text now says 1999. What the voice says is unchanged (the replay still hears
    # 2026), so the new verdict (wrong) answers another question: it must not be a regression.
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS})
    pytester.runpytest("--tts-engine=replay", "--tts-results=base.jsonl", "-k", "year")
    edited = PLAIN_NUMERALS.replace('"The plant opened in 2026."', '"The plant opened in 1999."').replace(
        'values: ["2026"]', 'values: ["1999"]'
    )
    (pytester.path / "cases" / "n.yaml").write_text(edited, encoding="utf-8")
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=new.jsonl", "--tts-baseline=base.jsonl", "--tts-fail-on-regression"
    )
    result.stdout.fnmatch_lines(
        [
            "*0 paired target(s): 0 regression(s)*; 2 new, 0 missing, 1 changed since the baseline (not compared);*",
            "    changed since the baseline, not compared: demo-numerals/year-2026",
            "      text: 'The plant opened in 2026.' -> 'The plant opened in 1999.'; expected: *2026* -> *1999*",
        ]
    )
    assert "regressed:" not in result.stdout.str()
    gate = json.loads((pytester.path / "new.gate.json").read_text(encoding="utf-8"))
    assert gate["baseline"]["regressions"] == [] and gate["baseline"]["changed"] == ["demo-numerals/year-2026"]
    assert not any("regression" in reason for reason in gate["reasons"])
    # Every row records what it measured, by content.
    rows = [json.loads(line) for line in (pytester.path / "new.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(len(row["content_sha256"]) == 64 for row in rows)
    # ttsbench compare says the same from the files alone, in text and in JSON.
    capsys.readouterr()
    assert ttsbench_main(["compare", str(pytester.path / "base.jsonl"), str(pytester.path / "new.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert "  changed since the baseline, not compared: demo-numerals/year-2026" in printed
    assert "regressed:" not in printed
    assert (
        ttsbench_main(["compare", str(pytester.path / "base.jsonl"), str(pytester.path / "new.jsonl"), "--json"]) == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert document["changed"] == ["demo-numerals/year-2026"] and document["regressions"] == []
    (detail,) = document["changed_details"]
    assert detail["before"]["text"] == "The plant opened in 2026." and detail["after"]["text"].endswith("1999.")
