"""The Arabic listening prompts, the `listening` scorer, and how listening items stand in a gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from plugin_projects import read_jsonl, write_project
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file, parse_suite
from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.registry import get_scorer

AR_PROMPTS = pack_file("ar-prompts")
DIALECTS = {"darija", "egyptian", "gulf"}


def test_ar_prompts_cover_the_six_kinds() -> None:
    suite = load_case_file(AR_PROMPTS)
    assert suite.name == "ar-prompts"
    by_variety = {item.facets["variety"]: item for item in suite.items}
    assert set(by_variety) == {"msa", "darija", "egyptian", "gulf", "code_switch", "long_form"}
    assert len(suite.items) == 6
    for variety, item in by_variety.items():
        assert item.language.split("-")[0] == "ar"
        assert (item.review == "native-speaker") == (variety in DIALECTS), variety
        assert item.reviewed is None
    assert "la commande" in by_variety["darija"].text  # French code-switching
    assert "Settings" in by_variety["code_switch"].text  # English interface words
    assert len(by_variety["long_form"].text) > 3 * len(by_variety["gulf"].text)
    # Only the MSA prompt is checked automatically; the rest are for listeners alone.
    msa = by_variety["msa"]
    assert msa.scorer == "numbers" and msa.targets[0].auto_evaluable
    assert all(i.scorer == "listening" and not i.targets[0].auto_evaluable for i in suite.items if i is not msa)


def test_msa_prompt_checks_its_numbers_and_date() -> None:
    msa = next(i for i in load_case_file(AR_PROMPTS).items if i.facets["variety"] == "msa")
    scorer = get_scorer(msa.scorer)
    context = ScoreContext("ar", msa.text)
    spoken = (
        "أعلنت الدكتورة سلمى الحداد يوم أربعة عشر مارس ألفين وسبعة وعشرين أن مستشفى النور استقبل ثلاثة آلاف "
        "ومئتين وخمسين مريضا خلال الربع الأول وأن الجناح الجديد سيفتح أبوابه في الثاني من يونيو"
    )
    assert scorer.score(spoken, msa.expect, context).outcome == "correct"
    wrong_year = spoken.replace("ألفين وسبعة وعشرين", "ألفين وسبعة")
    verdict = scorer.score(wrong_year, msa.expect, context)
    assert verdict.outcome == "wrong" and "2027" in verdict.missing


def test_listening_items_are_checked_like_any_other(tmp_path: Path) -> None:
    data = yaml.safe_load(AR_PROMPTS.read_text(encoding="utf-8"))
    data["items"][1]["expect"] = {"focus": "x", "values": ["1"]}
    data["items"][2]["review"] = ""
    with pytest.raises(CaseFileError) as caught:
        parse_suite(tmp_path / "bad.yaml", data)
    problems = {(p.item, p.field) for p in caught.value.problems}
    # the field is named down to the offending key (expect.values), not only its block
    assert any(item == "darija-french" and field.split(".")[0] == "expect" for item, field in problems), problems
    assert ("egyptian-appointment", "review") in problems


LISTEN_AND_CHECK = """\
suite: demo-listen
language: en
scorer: listening
thresholds: {default: 0.9}
items:
  - {id: greeting, category: listening, review: native-speaker, text: "Good morning.", expect: {}}
  - {id: farewell, category: listening, text: "Good night.", expect: {focus: tone}}
  - {id: year, category: years, scorer: numbers, text: "Opened in 2026.", expect: {values: ["2026"]}}
"""


@pytest.mark.parametrize(("heard", "status"), [("Opened in 2026.", 0), ("Opened in 2016.", 1)])
def test_listening_items_neither_pass_nor_fail_a_gate(pytester: pytest.Pytester, heard: str, status: int) -> None:
    write_project(
        pytester,
        cases={"demo-listen.yaml": LISTEN_AND_CHECK},
        transcripts={"demo-listen/greeting": "", "demo-listen/farewell": "nonsense", "demo-listen/year": heard},
    )
    # Snapshots recorded for the checked item only: listening items are never transcribed, so
    # having none must not fail a strict run.
    assert pytester.runpytest("--tts-engine=replay", "-k", "year", "--tts-repeats=2", "--snapshot-update").ret in (0, 1)
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=out/r.jsonl", "--tts-snapshot=strict", "--tts-repeats=2"
    )
    assert result.ret == status
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped") == 4  # two listening items × two generations: recorded, never judged
    result.stdout.fnmatch_lines(["*target(s) not auto-evaluable*", "*0 of 1 item(s) differed across generations"])
    rows = {r["id"]: r for r in read_jsonl(pytester.path / "out" / "r.jsonl")}
    for name in ("demo-listen/greeting", "demo-listen/farewell"):
        assert rows[name]["verdict"] == "unknown" and rows[name]["auto_evaluable"] is False
        assert "judged by listeners" in rows[name]["evidence"]["note"]
    assert rows["demo-listen/greeting"]["review"] == "native-speaker"
    gate = json.loads((pytester.path / "out" / "r.gate.json").read_text())
    assert [(c["category"], c["n"]) for c in gate["thresholds"]] == [("years", 1)]
    # Generations of listening items have no verdict to compare: only the checked item is listed.
    assert [item["key"] for item in gate["repeats"]["items"]] == ["demo-listen/year"]
