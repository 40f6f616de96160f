"""Floors on slices (facet, language, suite), min_n ("too few to gate") and floors on the Wilson lower bound."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from plugin_projects import write_project
from result_rows import make_result

from pytest_ttsbench.gating.bounds import ALL_SUITES
from pytest_ttsbench.gating.gate import Collected, GateConfig, evaluate_gate
from pytest_ttsbench.gating.thresholds import (
    FloorSettings,
    ThresholdError,
    config_floors,
    parse_cli_thresholds,
    settle_floors,
)
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.stats import wilson_interval


def _rows(suite: str, language: str, form: str, correct: int, wrong: int, engine: str = "e") -> list[ItemResult]:
    verdicts = ["correct"] * correct + ["wrong"] * wrong
    return [
        make_result(
            engine=engine,
            suite=suite,
            id=f"{suite}/{form}-{i}",
            category=f"cat{i % 2}",
            language=language,
            facets={"form": form},
            verdict=verdict,
        )
        for i, verdict in enumerate(verdicts)
    ]


ROWS = (
    _rows("ar-a", "ar", "arabic_indic", 3, 3)
    + _rows("ar-a", "ar", "western", 6, 0)
    + _rows("ar-b", "ar-EG", "arabic_indic", 4, 0)
    + _rows("en-a", "en", "western", 5, 1)
)


def evaluate(
    rows: Sequence[ItemResult],
    case: Mapping[str, Mapping[str, Any]] | None = None,
    cli: Sequence[str] = (),
    config: Mapping[str, Any] | None = None,
    min_n: int | None = None,
    floor_on: str | None = None,
) -> list[dict[str, Any]]:
    """The gate's floor figures (the gate file's ``thresholds``) for floors given as each source writes them."""
    config_list, config_settings = config_floors(config or {}, "ttsbench.yaml")
    given = FloorSettings.checked(min_n, floor_on, ("--tts-min-n", "--tts-floor-on"))
    gate = GateConfig(
        engines=("e",),
        floors=(*parse_cli_thresholds(cli), *config_list),
        floor_settings=(given, config_settings),
    )
    outcome = evaluate_gate(rows, gate, Collected(suite_thresholds={s: dict(t) for s, t in (case or {}).items()}))
    # each figure is a judged floor entry's own: the table and the gate file read the judged list
    judged = [entry for entry in outcome.judged if entry.kind == "floor" and entry.measured is not None]
    assert sorted(map(id, outcome.checks)) == sorted(id(entry.measured) for entry in judged)
    return outcome.checks


def _by_key(checks: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(c["suite"], c["category"]): c for c in checks}


def test_a_command_line_facet_floor_is_measured_across_suites() -> None:
    checks = _by_key(evaluate(ROWS, cli=["form=arabic_indic=0.8"]))
    check = checks[(ALL_SUITES, "form=arabic_indic")]
    # 3/6 in ar-a plus 4/4 in ar-b: the slice spans both suites, and only the arabic_indic rows.
    assert (check["correct"], check["n"], check["strict_accuracy"]) == (7, 10, 0.7)
    assert check["breached"]
    assert set(checks) == {(ALL_SUITES, "form=arabic_indic")}


def test_a_language_floor_matches_the_primary_subtag_and_a_suite_floor_its_suite() -> None:
    checks = _by_key(evaluate(ROWS, cli=["language=ar=0.5", "suite=en-a=0.9"]))
    ar = checks[(ALL_SUITES, "language=ar")]
    assert (ar["correct"], ar["n"]) == (13, 16)  # ar and ar-EG rows, no en row
    assert not ar["breached"]
    en = checks[(ALL_SUITES, "suite=en-a")]
    assert (en["correct"], en["n"], en["breached"]) == (5, 6, True)


def test_a_slice_in_a_case_file_applies_within_its_suite_only() -> None:
    checks = _by_key(evaluate(ROWS, {"ar-a": {"form=arabic_indic": 0.6}}))
    assert set(checks) == {("ar-a", "form=arabic_indic")}
    check = checks[("ar-a", "form=arabic_indic")]
    assert (check["correct"], check["n"], check["breached"]) == (3, 6, True)


def test_the_command_line_beats_the_case_file_for_the_same_suite_slice() -> None:
    case = {"ar-a": {"form=arabic_indic": 0.6}}
    checks = _by_key(evaluate(ROWS, case, cli=["ar-a/form=arabic_indic=0.5"]))
    check = checks[("ar-a", "form=arabic_indic")]
    assert (check["floor"], check["breached"]) == (0.5, False)
    # the configuration too; a general slice is another bucket (across suites), not the suite's
    config = _by_key(evaluate(ROWS, case, config={"ar-a": {"form=arabic_indic": 0.4}, "form=arabic_indic": 0.95}))
    assert (config[("ar-a", "form=arabic_indic")]["floor"], config[(ALL_SUITES, "form=arabic_indic")]["floor"]) == (
        0.4,
        0.95,
    )
    # and the command line beats the configuration
    both = _by_key(
        evaluate(ROWS, case, cli=["ar-a/form=arabic_indic=0.5"], config={"ar-a": {"form=arabic_indic": 0.4}})
    )
    assert both[("ar-a", "form=arabic_indic")]["floor"] == 0.5


def test_the_figures_come_in_table_order_categories_then_slices_within_then_across_suites() -> None:
    rows = ROWS + _rows("en-a", "en", "western", 2, 0, engine="d")
    cli = ["form=arabic_indic=0.5", "ar-a/form=western=0.5", "en-a/form=western=0.5", "default=0.1"]
    gate = GateConfig(engines=("e", "d"), floors=tuple(parse_cli_thresholds(cli)))
    outcome = evaluate_gate(rows, gate, Collected())
    assert [(c["engine"], c["suite"], c["category"]) for c in outcome.checks] == [
        ("d", "en-a", "cat0"),
        ("d", "en-a", "cat1"),
        ("e", "ar-a", "cat0"),
        ("e", "ar-a", "cat1"),
        ("e", "ar-b", "cat0"),
        ("e", "ar-b", "cat1"),
        ("e", "en-a", "cat0"),
        ("e", "en-a", "cat1"),
        ("e", "ar-a", "form=western"),
        ("d", "en-a", "form=western"),
        ("e", "en-a", "form=western"),
        ("e", ALL_SUITES, "form=arabic_indic"),
    ]
    assert gate_document(outcome)["thresholds"] == outcome.checks


def test_a_bucket_under_min_n_is_too_few_to_gate_never_a_pass() -> None:
    rows = _rows("s", "en", "w", 0, 4)  # 0/4: far below any floor, but only four targets
    (check,) = evaluate(rows, cli=["form=w=0.9"])
    assert check["status"] == "too few to gate"
    assert not check["breached"] and check["status"] != "passed"
    (check,) = evaluate(rows, cli=["form=w=0.9"], min_n=4)
    assert check["breached"]


def test_min_n_precedence_command_line_then_configuration_then_case_file() -> None:
    rows = _rows("s", "en", "w", 3, 1)
    case = {"s": {"default": 0.5, "min_n": 2}}
    checks = evaluate(rows, case)
    assert {c["min_n"] for c in checks} == {2}
    checks = evaluate(rows, case, config={"min_n": 3})
    assert {c["min_n"] for c in checks} == {3}
    checks = evaluate(rows, case, config={"min_n": 3}, min_n=1)
    assert {c["min_n"] for c in checks} == {1}
    # floor_on likewise: the command line, then the configuration, then the case file
    lower = {"s": {"default": 0.5, "floor_on": "lower"}}
    assert {c["floor_on"] for c in evaluate(rows, lower)} == {"lower"}
    assert {c["floor_on"] for c in evaluate(rows, lower, config={"floor_on": "point"})} == {"point"}
    assert {c["floor_on"] for c in evaluate(rows, case, config={"floor_on": "point"}, floor_on="lower")} == {"lower"}


def test_a_lower_bound_floor_needs_a_margin_a_point_floor_does_not() -> None:
    rows = _rows("s", "en", "w", 9, 1)  # 90 %, Wilson lower bound about 59.6 %
    interval = wilson_interval(9, 10)
    assert interval is not None
    low = interval[0]
    (point,) = evaluate(rows, cli=["form=w=0.8"])
    (lower,) = evaluate(rows, cli=["form=w=0.8"], floor_on="lower")
    assert (point["measured"], point["breached"]) == (0.9, False)
    assert (lower["measured"], lower["breached"]) == (low, True)
    (lenient,) = evaluate(rows, config={"form=w": 0.5, "floor_on": "lower"})
    assert not lenient["breached"]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (["form==0.8"], "a slice is FIELD=VALUE"),
        (["=arabic_indic=0.8"], "a slice is FIELD=VALUE"),
        (["form=x=2"], r"a floor must be a number in \[0, 1\]"),
        (["form=x=nan"], r"a floor must be a number in \[0, 1\]"),
    ],
)
def test_bad_slice_floors_name_themselves(entries: list[str], message: str) -> None:
    with pytest.raises(ThresholdError, match=rf"^--tts-threshold '{entries[0]}': {message}"):
        parse_cli_thresholds(entries)


@pytest.mark.parametrize(
    ("min_n", "floor_on", "message"),
    [
        (0, None, "^--tts-min-n: min_n must be a whole number"),
        (None, "upper", "^--tts-floor-on: floor_on must be one of point, lower"),
    ],
)
def test_bad_settings_name_their_option(min_n: int | None, floor_on: str | None, message: str) -> None:
    with pytest.raises(ThresholdError, match=message):
        FloorSettings.checked(min_n, floor_on, ("--tts-min-n", "--tts-floor-on"))


def test_bad_configuration_settings_name_the_field() -> None:
    with pytest.raises(ThresholdError, match=r"ttsbench\.yaml: field thresholds\.min_n"):
        config_floors({"min_n": 2.5}, "ttsbench.yaml")
    with pytest.raises(ThresholdError, match=r"ttsbench\.yaml: field thresholds\.floor_on"):
        config_floors({"floor_on": "median"}, "ttsbench.yaml")
    with pytest.raises(ThresholdError, match=r"ttsbench\.yaml: field thresholds\.ar-a\.form=x: a floor must"):
        config_floors({"ar-a": {"form=x": 1.5}}, "ttsbench.yaml")


def test_two_configuration_keys_naming_one_slice_leave_one_floor_in_force() -> None:
    raw = {"form=w": 0.5, "form = w": 0.9}
    try:
        floors, settings = config_floors(raw, "ttsbench.yaml")
    except ThresholdError as exc:  # refusing the repeated slice, naming it, is as good as one floor
        assert "form" in str(exc)
        return
    in_force = [floor for floor in settle_floors(floors, [settings], {}) if floor.in_force(ALL_SUITES, "form=w")]
    assert len(in_force) == 1
    assert len(evaluate(_rows("s", "en", "w", 7, 3), config=raw)) == 1


SLICED = """\
suite: demo-forms
language: ar
scorer: numbers
thresholds: {"form=arabic_indic": 0.9, min_n: 2, floor_on: point}
items:
  - {id: a1, category: years, facets: {form: arabic_indic}, text: "عام ٢٠٢٦", expect: {values: ["2026"]}}
  - {id: a2, category: years, facets: {form: arabic_indic}, text: "عام ١٩٨٤", expect: {values: ["1984"]}}
  - {id: w1, category: years, facets: {form: western}, text: "عام 2026", expect: {values: ["2026"]}}
"""
SLICED_TRANSCRIPTS = {"demo-forms/a1": "عام 2026", "demo-forms/a2": "عام 1948", "demo-forms/w1": "عام 2026"}


def test_a_case_file_slice_floor_fails_the_run_and_lands_in_the_gate_file(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"demo-forms.yaml": SLICED}, transcripts=SLICED_TRANSCRIPTS)
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-snapshot=off")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["FAIL  replay  demo-forms  form=arabic_indic  *1/2  *50.0%  *90.0%*", "gate FAILED: 1 of 1 floors breached"]
    )
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    (check,) = [c for c in gate["thresholds"] if c["category"] == "form=arabic_indic"]
    assert (check["n"], check["correct"], check["status"], check["min_n"]) == (2, 1, "breached", 2)
    assert any("form=arabic_indic" in reason for reason in gate["reasons"])


def test_too_few_to_gate_is_said_in_the_summary_and_the_gate_file(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"demo-forms.yaml": SLICED}, transcripts=SLICED_TRANSCRIPTS)
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-snapshot=off", "--tts-min-n=3"
    )
    result.stdout.fnmatch_lines(
        [
            "too few  replay  demo-forms  form=arabic_indic  *1/2  *50.0%  *90.0%*",
            "gate passed (1 floor(s) with fewer targets than min_n not checked)*",
        ]
    )
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text(encoding="utf-8"))
    (check,) = [c for c in gate["thresholds"] if c["category"] == "form=arabic_indic"]
    assert check["status"] == "too few to gate" and check["breached"] is False


def test_every_shipped_pack_carries_floors_that_are_gated_somewhere() -> None:
    from shipped_packs import all_pack_files

    from pytest_ttsbench.cases.loader import load_case_file

    packs = all_pack_files()
    assert len(packs) >= 5
    for pack in packs:
        suite = load_case_file(pack)
        floors = {k: v for k, v in suite.thresholds.items() if k not in ("min_n", "floor_on")}
        assert floors, f"{pack.name} has no floors"
        # Some floor must cover a bucket of at least the default min_n, else nothing in the pack is gated.
        rows = [
            make_result(
                suite=suite.name,
                id=item.full_id,
                target=t.span,
                category=t.category,
                facets=item.facets,
                auto_evaluable=t.auto_evaluable,
            )
            for item in suite.items
            for t in item.targets
        ]
        checks = evaluate(rows, {suite.name: suite.thresholds})
        assert checks, f"{pack.name}: no floor applies to any of its targets"
        if sum(1 for r in rows if r.auto_evaluable) >= 5 * 3:  # a pack big enough to gate a bucket
            assert any(c["status"] != "too few to gate" for c in checks), f"{pack.name}: every floor is too few"
