"""Path-valued options in both forms: ``--opt=PATH`` always works; ``--opt PATH`` never moves the rootdir.

pytest picks its rootdir before the plugin's options are known, so a space-form value that is an
existing path outside the project used to move the rootdir and collect some other tests: a green
gate over nothing.
"""

from __future__ import annotations

import pytest
from plugin_projects import read_jsonl, write_project


@pytest.fixture
def outside(pytester: pytest.Pytester):  # type: ignore[no-untyped-def]
    """A folder beside the project (not inside it), holding a results file from an earlier run."""
    folder = pytester.path.parent / f"{pytester.path.name}-elsewhere"
    folder.mkdir()
    write_project(pytester)
    first = pytester.runpytest("--tts-engine=replay", f"--tts-results={folder / 'earlier.jsonl'}")
    assert first.ret == pytest.ExitCode.TESTS_FAILED  # the demo project has wrong verdicts
    return folder


@pytest.mark.parametrize("option", ["--tts-results", "--tts-audio-dir", "--tts-baseline", "--tts-asr-model"])
def test_space_form_with_an_outside_path_is_a_usage_error_naming_the_equals_form(
    pytester: pytest.Pytester, outside, option: str
) -> None:
    value = str(outside / "earlier.jsonl") if option in ("--tts-results", "--tts-baseline") else str(outside)
    if option == "--tts-results":
        value = str(outside / "new.jsonl")
        (outside / "new.jsonl").write_text("", encoding="utf-8")  # exists, so pytest sees it
    result = pytester.runpytest("--tts-engine=replay", option, value, "-k", "year")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option} {value}*rootdir*write it as {option}={value}*"])
    assert " passed" not in result.stdout.str()


@pytest.mark.parametrize("option", ["--tts-results", "--tts-baseline"])
def test_equals_form_with_an_outside_path_runs_the_project(pytester: pytest.Pytester, outside, option: str) -> None:
    value = outside / ("new.jsonl" if option == "--tts-results" else "earlier.jsonl")
    extra = [] if option == "--tts-results" else [f"--tts-results={outside / 'other.jsonl'}"]
    result = pytester.runpytest("--tts-engine=replay", f"{option}={value}", *extra, "-k", "year")
    # with a baseline, ttsbench::gate reports the comparison as a test of its own
    result.assert_outcomes(passed=1 + (option == "--tts-baseline"), deselected=4)
    written = outside / ("new.jsonl" if option == "--tts-results" else "other.jsonl")
    assert [row["id"] for row in read_jsonl(written)] == ["demo-numerals/year-2026"]


def test_equals_form_audio_dir_outside_and_model_path(pytester: pytest.Pytester, outside) -> None:
    audio = outside / "clips"
    audio.mkdir()
    result = pytester.runpytest(
        "--tts-engine=replay", f"--tts-audio-dir={audio}", f"--tts-asr-model={outside}", "-k", "year"
    )
    result.assert_outcomes(passed=1, deselected=4)


def test_space_form_with_a_path_inside_the_project_still_works(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    (pytester.path / "clips").mkdir()
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results", "out/r.jsonl", "--tts-audio-dir", "clips", "-k", "year"
    )
    result.assert_outcomes(passed=1, deselected=4)
    assert len(read_jsonl(pytester.path / "out" / "r.jsonl")) == 1
