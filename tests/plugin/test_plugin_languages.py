"""Engine profiles judged on their languages: items in other languages are left out at collection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_projects import write_project

from pytest_ttsbench.config import EngineProfile, load_settings
from pytest_ttsbench.engines.piper import fit_languages
from pytest_ttsbench.languages import fits, primary_language
from pytest_ttsbench.session.selection import profile_languages

ENGLISH_ONLY = "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl, languages: [en]}\n"
SKIP_LINE = "replay: 2 items in zh skipped: profile languages are en (--tts-all-languages or naming the case file*"


def test_items_in_other_languages_are_left_out_with_one_line(pytester: pytest.Pytester) -> None:
    write_project(pytester, config=ENGLISH_ONLY)
    result = pytester.runpytest("--tts-engine=replay")
    # demo-numerals (en) runs: one wrong percentage; demo-news (zh, two targets) never reaches the engine.
    result.assert_outcomes(passed=2, failed=1, deselected=2)
    result.stdout.fnmatch_lines(["*ttsbench summary*", SKIP_LINE])
    assert result.stdout.str().count("skipped: profile languages") == 1
    results = next((pytester.path / ".ttsbench" / "runs").glob("*/results.jsonl")).read_text(encoding="utf-8")
    assert "demo-news" not in results


def test_all_languages_option_keeps_them(pytester: pytest.Pytester) -> None:
    write_project(pytester, config=ENGLISH_ONLY)
    result = pytester.runpytest("--tts-engine=replay", "--tts-all-languages", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=2, skipped=1)  # 歼-20 read as 歼负二十; 运-20 not auto-evaluable
    assert "profile languages" not in result.stdout.str()


def test_naming_the_case_file_keeps_its_items(pytester: pytest.Pytester) -> None:
    write_project(pytester, config=ENGLISH_ONLY)
    result = pytester.runpytest("--tts-engine=replay", "cases/demo-news.yaml", "cases/demo-numerals.yaml")
    result.assert_outcomes(passed=2, failed=2, skipped=1)
    assert "profile languages" not in result.stdout.str()
    # A directory is not a case file: its foreign items are still left out.
    in_folder = pytester.runpytest("--tts-engine=replay", "cases")
    in_folder.assert_outcomes(passed=2, failed=1, deselected=2)


def test_line_counts_only_items_the_selection_kept(pytester: pytest.Pytester) -> None:
    write_project(pytester, config=ENGLISH_ONLY)
    english = pytester.runpytest("--tts-engine=replay", "-k", "numerals")
    english.assert_outcomes(passed=2, failed=1, deselected=2)
    assert "profile languages" not in english.stdout.str()
    only_foreign = pytester.runpytest("--tts-engine=replay", "-k", "military_model")
    only_foreign.assert_outcomes(deselected=5)
    only_foreign.stdout.fnmatch_lines(["*ttsbench summary*", SKIP_LINE])


def test_profile_without_languages_runs_everything(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=replay")
    result.assert_outcomes(passed=2, failed=2, skipped=1)


def test_bad_languages_field_names_file_and_field(pytester: pytest.Pytester) -> None:
    write_project(pytester, config="engines:\n  replay: {type: transcripts, path: runs/replay.jsonl, languages: en}\n")
    result = pytester.runpytest("--tts-engine=replay")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ttsbench.yaml: field engines.replay.languages: 'en' is not of type 'array'*"])


def test_left_out_count_survives_xdist(pytester: pytest.Pytester) -> None:
    write_project(pytester, config=ENGLISH_ONLY)
    result = pytester.runpytest_subprocess("--tts-engine=replay", "-n", "2", "-k", "not pct")
    # -k deselects one item and the language two: the controller's closing line keeps both.
    result.assert_outcomes(passed=2, deselected=3)
    result.stdout.fnmatch_lines([SKIP_LINE, "*2 passed, 3 deselected*"])


def test_shipped_espeak_profile_is_judged_on_english() -> None:
    settings = load_settings(Path(__file__).resolve().parents[2])
    assert profile_languages(settings.engines["espeak"]) == ("en",)
    assert profile_languages(settings.engines["piper"]) == ("en",)  # read from the packaged voice's config


def test_piper_languages_come_from_each_voice_config(tmp_path: Path) -> None:
    for name, code in (("ar_JO-kareem", "ar_JO"), ("en_GB-alan", "en_GB")):
        (tmp_path / f"{name}.onnx").write_bytes(b"")
        (tmp_path / f"{name}.onnx.json").write_text(json.dumps({"language": {"code": code}}), encoding="utf-8")
    (tmp_path / "cmn.onnx.json").write_text(json.dumps({"espeak": {"voice": "cmn"}}), encoding="utf-8")
    profile = EngineProfile(
        name="p",
        type="piper",
        voice={"ar": "ar_JO-kareem.onnx", "zh": "cmn.onnx"},
        options={"model": "en_GB-alan.onnx"},
        base_dir=tmp_path,
    )
    assert fit_languages(profile) == ("en", "ar", "zh")
    unreadable = EngineProfile(name="p", type="piper", options={"model": "missing.onnx"}, base_dir=tmp_path)
    assert fit_languages(unreadable) is None  # unknown: judged on everything, synthesis says what is wrong
    declared = EngineProfile(name="p", type="piper", languages=("th",), options={"model": "missing.onnx"})
    assert profile_languages(declared) == ("th",)


@pytest.mark.parametrize(
    ("languages", "item", "expected"),
    [
        (("en",), "en-US", True),
        (("en-GB",), "en", True),
        (("en",), "ar", False),
        (("zh",), "cmn", True),
        (("cmn",), "zh-CN", True),
        (("en", "th"), "th_TH", True),
        (None, "ar", True),
    ],
)
def test_languages_match_on_their_primary_subtag(languages: tuple[str, ...] | None, item: str, expected: bool) -> None:
    assert fits(languages, item) is expected


def test_primary_language() -> None:
    assert [primary_language(t) for t in ("zh-Hans-CN", "EN_us", "cmn", " ar ")] == ["zh", "en", "zh", "ar"]
