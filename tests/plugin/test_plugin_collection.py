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


def test_without_engine_nothing_of_ours_is_collected(pytester: pytest.Pytester) -> None:
    """A plain pytest collects no case file and no pack, so it reports no skip, and a broken case
    file does not break it: the ordinary test run is the project's own."""
    write_project(
        pytester, config="packs: [en-numerals]\nengines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\n"
    )
    (pytester.path / "cases" / "broken.yaml").write_text("suite: broken\nitems: [\n", encoding="utf-8")
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    # In-process pytester: the package is already imported here, which pytest warns it cannot rewrite;
    # a user's own pytest run never sees that, so it is not what this test reads.
    result = pytester.runpytest("-rs", "-W", "ignore::pytest.PytestAssertRewriteWarning")
    result.assert_outcomes(passed=1)
    assert "ttsbench" not in result.stdout.str().replace("ttsbench-", ""), "a plain run reports nothing of ours"
    assert not (pytester.path / ".ttsbench").exists(), "a run without an engine must write nothing"
    listed = pytester.runpytest("--collect-only", "-q")
    listed.stdout.fnmatch_lines(["test_plain.py::test_ok", "1 test collected*"])
    # The broken file speaks up in the run that uses it.
    used = pytester.runpytest("--tts-engine=replay")
    used.stdout.fnmatch_lines(["*cases/broken.yaml:3: field '(file)': not valid YAML*"])


@pytest.mark.parametrize(
    "named", [["cases/demo-numerals.yaml"], ["cases/demo-numerals.yaml::demo-numerals"], ["--tts-pack=en-numerals"]]
)
def test_a_benchmark_named_without_engine_says_what_is_missing(pytester: pytest.Pytester, named: list[str]) -> None:
    write_project(pytester)
    result = pytester.runpytest(*named)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*a benchmark runs only with an engine; add --tts-engine=NAME (profiles: *replay*)"])


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


def test_a_mistyped_engine_gets_the_closest_profile(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--tts-engine=espek,replay,zzzzzz")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tts-engine=espek: did you mean 'espeak'?"])
    assert "--tts-engine=zzzzzz:" not in result.stderr.str(), "a name close to nothing gets the list, no guess"


def test_plugin_stays_out_of_ordinary_test_runs(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest("test_plain.py")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("arguments", "hint"),
    [
        (["--tts-engnie=replay"], "*ttsbench: --tts-engnie: did you mean '--tts-engine'?"),
        (["--tts_results=out.jsonl", "--tts-engine=replay"], "*ttsbench: --tts_results: did you mean '--tts-results'?"),
        # pytest-html not installed (disabled here): its option names the extra that brings it
        (
            ["-p", "no:html", "--html=report.html"],
            '*ttsbench: --html comes with an extra*pip install "pytest-ttsbench[[]html[]]"',
        ),
    ],
)
def test_an_unrecognized_option_gets_its_next_step(pytester: pytest.Pytester, arguments: list[str], hint: str) -> None:
    write_project(pytester)
    result = pytester.runpytest(*arguments)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments*", hint])


def test_an_option_of_someone_else_is_left_to_pytest(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    result = pytester.runpytest("--no-such-option")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ttsbench:" not in result.stderr.str()
