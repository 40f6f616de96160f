"""Hostile or mistaken files end as short, clear errors: alias bombs, over-long text, names pytest cannot use."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, write_project

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file
from pytest_ttsbench.cli import main as ttsbench
from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.run_model.known_gaps import KnownGapsError, load_known_gaps
from pytest_ttsbench.support.limits import DEFAULT_MAX_TEXT_CHARS
from pytest_ttsbench.support.yaml_documents import load_yaml


def alias_bomb(levels: int = 9) -> str:
    """A few hundred bytes that expand to 9**levels strings: each level lists the previous one nine times."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        refs = ",".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


def bomb_case_file() -> str:
    anchors = alias_bomb().replace("\n", "\n  ")
    head = f"suite: bomb\nlanguage: en\nscorer: numbers\nx-anchors:\n  {anchors}\n"
    return head + "items:\n  - id: a\n    category: c\n    text: *a8\n    expect: {values: ['1']}\n"


def test_case_file_alias_bomb_is_refused_quickly_with_a_short_message(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb_case_file(), encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(CaseFileError) as caught:
        load_case_file(path)
    assert time.perf_counter() - started < 10
    message = str(caught.value)
    assert len(message) < 2000
    assert str(path) in message and "aliases" in message


def test_rescore_with_an_alias_bomb_exits_2_with_a_short_message(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb_case_file(), encoding="utf-8")
    transcripts = tmp_path / "t.jsonl"
    transcripts.write_text('{"id": "bomb/a", "text": "one"}\n', encoding="utf-8")
    assert ttsbench(["rescore", str(path), "--transcripts", str(transcripts)]) == 2
    err = capsys.readouterr().err
    assert len(err) < 2000 and "bomb.yaml" in err


def test_configuration_and_known_gaps_alias_bombs_are_refused(tmp_path: Path) -> None:
    (tmp_path / "ttsbench.yaml").write_text(alias_bomb(), encoding="utf-8")
    with pytest.raises(ConfigError, match="aliases") as config_error:
        load_settings(tmp_path)
    assert len(str(config_error.value)) < 2000
    gaps = tmp_path / "espeak.yaml"
    gaps.write_text("engine: espeak\ngaps: []\n" + alias_bomb(), encoding="utf-8")
    with pytest.raises(KnownGapsError, match="aliases") as gaps_error:
        load_known_gaps(gaps, "espeak")
    assert len(str(gaps_error.value)) < 2000


def test_ordinary_anchors_still_load() -> None:
    assert load_yaml("base: &b {x: 1}\nother: *b\n") == {"base": {"x": 1}, "other": {"x": 1}}


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(Exception, match="recursive"):
        load_yaml("a: &a [1, *a]\n")


def test_schema_errors_quoting_a_huge_value_are_bounded(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text(
        "suite: huge\nlanguage: en\nscorer: numbers\nitems:\n  - id: a\n    category: c\n    text: t\n"
        f"    expect: {{values: ['1']}}\n    domain: [{', '.join(['x' * 50] * 2000)}]\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseFileError) as caught:
        load_case_file(path)
    assert len(str(caught.value)) < 2000 and "domain" in str(caught.value)


# --- text length ------------------------------------------------------------------------------


def _case_with_text(text: str, field: str = "text") -> str:
    extra = f"\n    {field}: {text!r}" if field != "text" else ""
    body = text if field == "text" else "short"
    return (
        "suite: long\nlanguage: en\nscorer: numbers\nitems:\n"
        f"  - id: long-one\n    category: c\n    text: {body!r}{extra}\n    expect: {{values: ['1']}}\n"
    )


@pytest.mark.parametrize("field", ["text", "text_mono"])
def test_text_over_the_limit_is_an_error_naming_the_item_and_field(tmp_path: Path, field: str) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(_case_with_text("1 " * DEFAULT_MAX_TEXT_CHARS, field), encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_case_file(path)
    message = str(caught.value)
    assert f"item 'long-one': field '{field}'" in message and "limits.max_text_chars" in message
    assert len(message) < 1000  # the text itself is not repeated


def test_text_at_the_limit_loads(tmp_path: Path) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(_case_with_text("1" * DEFAULT_MAX_TEXT_CHARS), encoding="utf-8")
    assert len(load_case_file(path).items[0].text) == DEFAULT_MAX_TEXT_CHARS


def test_the_text_limit_is_configurable(pytester: pytest.Pytester) -> None:
    write_project(
        pytester,
        cases={"demo-numerals.yaml": NUMERALS},
        config="engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\nlimits: {max_text_chars: 25}\n",
    )
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error stops the run
    result.stdout.fnmatch_lines(["*item 'pct-45': field 'text': 30 characters, more than the limit of 25*"])
    assert not (pytester.path / "out" / "r.jsonl").exists() or not (pytester.path / "out" / "r.jsonl").read_text()


def test_a_bad_limit_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "ttsbench.yaml").write_text("limits: {max_text_chars: 0}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"limits\.max_text_chars"):
        load_settings(tmp_path)


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("category: .hidden", "category"),
        ("category: _private", "category"),
        ('category: "years\\n"', "category"),
        ('id: "trail\\n"', "id"),
        ("facets: {_x: a}", "facets"),
        ('facets: {"form\\n": a}', "facets"),
    ],
)
def test_names_pytest_cannot_use_are_schema_errors(tmp_path: Path, line: str, field: str) -> None:
    item = {"id": "id: ok", "category": "category: years"}
    body = "\n    ".join(
        [
            line if line.startswith("id") else item["id"],
            line if line.startswith("category") else item["category"],
            "text: 'In 2026.'",
            "expect: {values: ['2026']}",
            *([line] if line.startswith("facets") else []),
        ]
    )
    path = tmp_path / "names.yaml"
    path.write_text(f"suite: names\nlanguage: en\nscorer: numbers\nitems:\n  - {body}\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_case_file(path)
    assert f"field '{field}" in str(caught.value)


def test_readings_target_category_must_be_a_marker_name(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(
        "suite: r\nlanguage: zh\nscorer: readings\nitems:\n  - id: a\n    category: c\n    text: 歼-20\n"
        "    expect: {targets: [{span: 歼-20, positive: [歼二十], category: .hidden}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseFileError, match=r"targets\[0\]\.category"):
        load_case_file(path)


def test_a_hidden_category_is_a_collection_error_not_a_traceback(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS.replace("category: years", "category: .hidden")})
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=out/r.jsonl")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*demo-numerals.yaml:7: item 'year-2026': field 'category': *"])
    assert "Traceback" not in result.stdout.str() and "AttributeError" not in result.stdout.str()
