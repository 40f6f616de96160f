"""Collection: node ids, -k/-m selection, the no-engine skip, and per-engine parametrisation."""

from __future__ import annotations

import pytest
from plugin_projects import write_project


def test_node_ids_are_readable(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--collect-only", "-q", "--tts-engine=replay")
    result.stdout.fnmatch_lines(
        [
            "cases/demo-news.yaml::demo-news[[]military_model/m-001/歼-20[]]",
            "cases/demo-news.yaml::demo-news[[]military_model/m-001/运-20[]]",
            "cases/demo-numerals.yaml::demo-numerals[[]years/year-2026[]]",
            "cases/demo-numerals.yaml::demo-numerals[[]percentages/pct-45[]]",
            "cases/demo-numerals.yaml::demo-numerals[[]times/time-0630[]]",
        ]
    )
    result.stdout.fnmatch_lines(["5 tests collected*"])


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("numerals", 3),
        ("year-2026", 1),
        ("numerals and years", 1),
        ("zh and military_model", 2),
        ("not numerals", 2),
    ],
)
def test_keyword_selection(pytester: pytest.Pytester, expression: str, expected: int) -> None:
    write_project(pytester)
    result = pytester.runpytest("--collect-only", "-q", "--tts-engine=replay", "-k", expression)
    result.stdout.fnmatch_lines([f"{expected}/5 tests collected*"])


@pytest.mark.parametrize(
    ("expression", "expected"),
    [("demo-numerals", 3), ("lang_zh", 2), ("percentages or times", 2), ("form_spelled", 1), ("tts", 5)],
)
def test_marker_selection(pytester: pytest.Pytester, expression: str, expected: int) -> None:
    write_project(pytester)
    result = pytester.runpytest("--collect-only", "-q", "--strict-markers", "--tts-engine=replay", "-m", expression)
    result.stdout.fnmatch_lines([f"{expected}/5 tests collected*" if expected < 5 else "5 tests collected*"])


def test_without_engine_nothing_is_synthesized(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=5)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED [[]2[]] cases/demo-news.yaml*: no TTS engine selected: pass --tts-engine=NAME*",
            "SKIPPED [[]3[]] cases/demo-numerals.yaml*: no TTS engine selected: pass --tts-engine=NAME*",
        ]
    )
    assert not (pytester.path / ".ttsbench").exists(), "a run without an engine must write nothing"


def test_several_engines_parametrise_every_item(pytester: pytest.Pytester) -> None:
    write_project(
        pytester,
        config="engines:\n  a: {type: transcripts, path: runs/replay.jsonl}\n"
        "  b: {type: transcripts, path: runs/replay.jsonl}\n",
    )
    result = pytester.runpytest("--collect-only", "-q", "--tts-engine=a,b", "-k", "year-2026")
    result.stdout.fnmatch_lines(
        [
            "cases/demo-numerals.yaml::demo-numerals[[]years/year-2026-a[]]",
            "cases/demo-numerals.yaml::demo-numerals[[]years/year-2026-b[]]",
        ]
    )
    selected = pytester.runpytest("--collect-only", "-q", "--tts-engine=a", "--tts-engine=b", "-k", "b and years")
    selected.stdout.fnmatch_lines(["1/10 tests collected*"])


def test_unknown_engine_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=azur")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown engine profile(s) azur; known: espeak, piper, replay*"])


def test_plugin_stays_out_of_ordinary_test_runs(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest("test_plain.py")
    result.assert_outcomes(passed=1)
