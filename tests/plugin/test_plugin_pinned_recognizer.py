"""A pack names the recognizer its expectations were written against; a run with another says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_projects import read_jsonl, write_project
from result_rows import make_result

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file, parse_suite
from pytest_ttsbench.cases.sources import CN_NEWS_ROUTES, THAI_RECOGNIZER
from pytest_ttsbench.pipeline.rescore import rescore
from pytest_ttsbench.reporting.terminal import summary_lines
from pytest_ttsbench.run_model.pinned_recognizer import matches, recognizer_mismatches

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cn-news-tts-bench-v0.1"

PACK = """\
suite: pinned
language: en
scorer: numbers
recognizer: {{route: {route}, model: {model}}}
items:
  - id: year
    category: years
    text: "It opens in 2026."
    expect: {{values: ["2026"]}}
"""


def test_route_labels_match_a_pin_with_or_without_a_model() -> None:
    assert matches("whisper:large-v3", "whisper:large-v3")
    assert matches("whisper:large-v3", "whisper")  # a pin without a model takes any model
    assert not matches("whisper:tiny.en", "whisper:large-v3")
    assert not matches("paraformer_zh", "sensevoice_small")


def test_mismatches_are_found_per_engine_and_suite() -> None:
    pinned = ["whisper:large-v3"]
    rows = [
        make_result(engine="a", suite="s", pinned_recognizer=pinned, transcripts={"whisper:large-v3": "x"}),
        make_result(engine="b", suite="s", pinned_recognizer=pinned, transcripts={"whisper:tiny.en": "x"}),
        make_result(engine="b", suite="t", transcripts={"whisper:tiny.en": "x"}),  # nothing pinned
        make_result(engine="c", suite="s", pinned_recognizer=pinned, transcripts={}),  # nothing transcribed
    ]
    (found,) = recognizer_mismatches(rows)
    assert (found.engine, found.suite, found.pinned, found.used) == (
        "b",
        "s",
        ("whisper:large-v3",),
        ("whisper:tiny.en",),
    )
    assert found.line() in summary_lines(rows)


def test_a_run_with_another_recognizer_says_so_in_the_summary(pytester: pytest.Pytester) -> None:
    write_project(
        pytester,
        cases={"pinned.yaml": PACK.format(route="whisper", model="large-v3")},
        transcripts={"pinned/year": "It opens in 2026."},
    )
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=r.jsonl")
    result.assert_outcomes(passed=1)
    (row,) = read_jsonl(pytester.path / "r.jsonl")
    assert row["pinned_recognizer"] == ["whisper:large-v3"]
    (used,) = row["transcripts"]
    result.stdout.fnmatch_lines(
        [
            f"note: pinned on replay was transcribed by {used}, but its expectations were written against "
            "whisper:large-v3*"
        ]
    )


def test_a_run_with_the_pinned_recognizer_says_nothing(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"p.yaml": PACK.format(route="whisper", model="large-v3")}, transcripts={})
    (pytester.path / "runs" / "replay.jsonl").write_text(
        json.dumps({"id": "pinned/year", "asr": {"whisper:large-v3": "It opens in 2026."}}) + "\n", encoding="utf-8"
    )
    result = pytester.runpytest("--tts-engine=replay")
    result.assert_outcomes(passed=1)
    assert not [line for line in result.stdout.lines if line.startswith("note:")]


def test_a_pin_without_a_route_is_refused_naming_the_field(tmp_path: Path) -> None:
    data = {
        "suite": "s",
        "language": "en",
        "scorer": "numbers",
        "recognizer": {"model": "large-v3"},
        "items": [{"id": "a", "category": "c", "text": "1", "expect": {"values": ["1"]}}],
    }
    with pytest.raises(CaseFileError) as caught:
        parse_suite(tmp_path / "s.yaml", data)
    assert [p.field for p in caught.value.problems] == ["recognizer"]


@pytest.mark.skipif(not SHARED.is_dir(), reason="CN-NewsTTS Bench data not found at ../shared/data")
def test_cn_news_pins_the_benchmark_routes(tmp_path: Path) -> None:
    suite = load_case_file(SHARED / "test_public.jsonl")
    assert suite.recognizer == CN_NEWS_ROUTES
    published = rescore([suite], SHARED / "aliyun_tts.asr.jsonl").results
    assert recognizer_mismatches(published) == []
    # the same transcripts under another recognizer's name are flagged
    renamed = tmp_path / "asr.jsonl"
    rows = [json.loads(line) for line in (SHARED / "aliyun_tts.asr.jsonl").read_text(encoding="utf-8").splitlines()]
    renamed.write_text(
        "".join(
            json.dumps({"id": r["id"], "text": r["asr"]["paraformer_zh"]}, ensure_ascii=False) + "\n" for r in rows
        ),
        encoding="utf-8",
    )
    (found,) = recognizer_mismatches(rescore([suite], renamed).results)
    assert found.pinned == CN_NEWS_ROUTES


THAI_RECORD = {
    "id": "cs_0001", "category": "code_switch", "text": "ผมใช้ LINE ทุกวัน", "text_mono": "ผมใช้ไลน์ทุกวัน",
    "text_bilingual": "ผมใช้ LINE (ไลน์) ทุกวัน", "keyword": "LINE", "expected": "ไลน์", "alternates": ["LINE"],
    "meta": {},
}  # fmt: skip


def test_the_thai_eval_set_pins_typhoon_whisper_and_a_run_with_another_recognizer_is_told(
    pytester: pytest.Pytester,
) -> None:
    bench = pytester.path / "eval_set.jsonl"
    bench.write_text(json.dumps(THAI_RECORD, ensure_ascii=False) + "\n", encoding="utf-8")
    assert load_case_file(bench).recognizer == ("whisper:typhoon-whisper-large-v3",)
    assert THAI_RECOGNIZER["model"] == "typhoon-whisper-large-v3"
    write_project(pytester, cases={}, transcripts={"cs_0001": "ผมใช้ไลน์ทุกวัน"})
    result = pytester.runpytest(str(bench), "--tts-engine=replay", "--tts-results=r.jsonl")
    result.assert_outcomes(passed=1)
    (row,) = read_jsonl(pytester.path / "r.jsonl")
    assert row["pinned_recognizer"] == ["whisper:typhoon-whisper-large-v3"]
    (used,) = row["transcripts"]
    result.stdout.fnmatch_lines(
        [
            f"note: th-eval-set on replay was transcribed by {used}, but its expectations were written against "
            "whisper:typhoon-whisper-large-v3*"
        ]
    )


def test_the_thai_pin_is_met_by_the_recipes_route_name(pytester: pytest.Pytester) -> None:
    """The recipe's whisper route on a CTranslate2 folder named typhoon-whisper-large-v3 is the pinned one."""
    from pytest_ttsbench.asr.whisper import WhisperRoute

    folder = pytester.path / "models" / "typhoon-whisper-large-v3"
    folder.mkdir(parents=True)
    assert matches(WhisperRoute(model=str(folder)).name, "whisper:typhoon-whisper-large-v3")
    bench = pytester.path / "eval_set.jsonl"
    bench.write_text(json.dumps(THAI_RECORD, ensure_ascii=False) + "\n", encoding="utf-8")
    write_project(pytester, cases={}, transcripts={})
    (pytester.path / "runs" / "replay.jsonl").write_text(
        json.dumps({"id": "cs_0001", "asr": {"whisper:typhoon-whisper-large-v3": "ผมใช้ไลน์ทุกวัน"}}) + "\n",
        encoding="utf-8",
    )
    result = pytester.runpytest(str(bench), "--tts-engine=replay")
    result.assert_outcomes(passed=1)
    assert not [line for line in result.stdout.lines if line.startswith("note:")]


RECIPES = Path(__file__).resolve().parents[2] / "docs" / "recipes" / "pinned-recognizers.md"


def _recipe_asr_blocks() -> list[dict]:
    """The ``asr:`` YAML blocks of the pinned-recognizers recipe, parsed."""
    from pytest_ttsbench.support.yaml_documents import load_yaml

    text = RECIPES.read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```yaml\n")[1:]]
    return [load_yaml(block)["asr"] for block in blocks if block.startswith("asr:")]


def test_the_recipes_routes_satisfy_the_loaders_pins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_ttsbench.asr.registry import create_routes

    thai, cn_news = _recipe_asr_blocks()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models" / "typhoon-whisper-large-v3").mkdir(parents=True)  # what the conversion writes
    thai_pin = f"{THAI_RECOGNIZER['route']}:{THAI_RECOGNIZER['model']}"
    (route,) = create_routes(thai)
    assert matches(route.name, thai_pin) and route.beam_size == 1
    routes = create_routes(cn_news)
    assert [r.name for r in routes] == list(CN_NEWS_ROUTES)
    mimo, paraformer, sensevoice = routes
    assert mimo.extra_body == {"asr_options": {"language": "zh"}} and mimo.refusals
    assert paraformer.extra_form == sensevoice.extra_form == {"use_itn": "false"}


def test_the_run_header_records_a_whisper_routes_pinned_decoding_settings() -> None:
    from pytest_ttsbench.session.provenance_capture import route_facts

    facts = route_facts({"type": "whisper", "model": "models/typhoon-whisper-large-v3", "beam_size": 1}, "w")
    assert facts["beam_size"] == 1 and facts["language"] == "forced to the item's language"
    assert facts["task"] == "transcribe" and facts["window_seconds"] == 30
