"""The plugin's entry point registers the benchmark's hooks only for a run of ours (#38: an unrelated
project's ``pytest`` imported the session, the gate and the case loader, 100+ ms of every run).

A run of ours: an engine selected, a pack or a case file named on the command line. Any other run
gets the options and nothing else, in a project that configures the plugin (ttsbench.yaml, or
``[tool.ttsbench]`` in pyproject.toml) too: its plain ``pytest`` is the team's own test run
(README). tests/architecture/test_lazy_imports.py checks what such a run imports and reads.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_ttsbench.plugin import SESSION_PLUGIN, runs_a_benchmark


def _registered(pytester: pytest.Pytester, *args: str) -> bool:
    config = pytester.parseconfigure(*args)
    try:
        return config.pluginmanager.has_plugin(SESSION_PLUGIN)
    finally:
        config._ensure_unconfigure()


def test_an_unrelated_project_gets_no_benchmark_hooks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\naddopts = '-q'\n")
    assert not _registered(pytester)
    assert not _registered(pytester, "test_own.py", "-k", "own")


@pytest.mark.parametrize(
    "args",
    [["--tts-engine=espeak"], ["--tts-engine", "espeak"], ["--tts-pack=en-numerals", "--tts-engine=espeak"]],
)
def test_an_engine_selected_gets_them(pytester: pytest.Pytester, args: list[str]) -> None:
    assert _registered(pytester, *args)


@pytest.mark.parametrize(
    ("name", "content"),
    [("ttsbench.yaml", "engines: {}\n"), ("pyproject.toml", "[tool.ttsbench]\ncases = ['cases']\n")],
)
def test_a_configured_projects_plain_run_gets_none(pytester: pytest.Pytester, name: str, content: str) -> None:
    (pytester.path / name).write_text(content, encoding="utf-8")
    assert not _registered(pytester)
    assert not _registered(pytester, "-k", "anything")
    assert _registered(pytester, "--tts-engine=espeak")


def test_a_case_file_named_gets_them(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases.yaml").write_text("suite: s\n", encoding="utf-8")
    assert _registered(pytester, "cases.yaml", "--tts-engine=espeak")
    # without an engine, the session's configuration is what says the engine is missing
    with pytest.raises(pytest.UsageError, match="add --tts-engine"):
        _registered(pytester, "cases.yaml")


def test_the_options_are_there_either_way(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    assert "--tts-engine" in result.stdout.str() and "--tts-threshold" in result.stdout.str()


def _command_line_parses(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    calls = []
    parse = pytest.Parser.parse_known_and_unknown_args

    def counted(self: pytest.Parser, *a: object, **k: object) -> object:
        calls.append(1)
        return parse(self, *a, **k)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(pytest.Parser, "parse_known_and_unknown_args", counted)
        pytester.inline_run("--co", *args)
    return len(calls)


def test_a_run_with_nothing_to_explain_parses_its_command_line_as_pytest_alone_does(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hints for a mistyped option need a second parse of the command line; a run none of whose
    arguments is ours to explain (support/option_specs.ours_to_explain) is spared it (benchmarks/idle_cost.py)."""
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    alone = _command_line_parses(pytester, monkeypatch, "-p", "no:ttsbench", "-k", "own")
    assert _command_line_parses(pytester, monkeypatch, "-k", "own") == alone
    # the contrast: an argument of ours is parsed once more, to explain it if pytest does not know it
    assert _command_line_parses(pytester, monkeypatch, "-k", "own", "--tts-cache=off") == alone + 1


#: command-line arguments: folders, test modules, node ids, case files and other files, options' values
ARGUMENTS = st.builds(
    lambda stem, suffix, node: stem + suffix + node,
    st.sampled_from(["tests", "cases/demo", "pkg/test_x", "a.b/c", "data"]),
    st.sampled_from(["", ".py", ".yaml", ".yml", ".jsonl", ".json", ".txt", ".YAML"]),
    st.sampled_from(["", "::test_one", "::demo[years/y-1]"]),
)


@given(
    args=st.lists(ARGUMENTS, max_size=4),
    engine=st.sampled_from([None, ["espeak"]]),
    pack=st.sampled_from([None, [], ["en-numerals"]]),
    from_command_line=st.booleans(),
)
def test_a_run_is_ours_only_with_an_engine_a_pack_or_a_benchmark_file_on_the_command_line(
    args: list[str], engine: list[str] | None, pack: list[str] | None, from_command_line: bool
) -> None:
    """The whole family of plain runs (#38): whatever folders, modules and node ids they name, and
    whatever testpaths the project configures, none is ours unless the command line says so."""
    source = pytest.Config.ArgsSource.ARGS if from_command_line else pytest.Config.ArgsSource.TESTPATHS
    options = {"tts_engine": engine, "tts_pack": pack}
    config = SimpleNamespace(getoption=options.__getitem__, args=args, args_source=source)
    named = from_command_line and any(arg.split("::")[0].endswith((".yaml", ".yml", ".jsonl")) for arg in args)
    assert runs_a_benchmark(cast(pytest.Config, config)) == bool(engine or pack or named)
