"""The reference pages (docs/reference/) are what scripts/gen_reference.py makes from the option
declarations, the configuration schema and the ``ttsbench`` parser: an option, key or subcommand
added, renamed or re-worded without regenerating them fails here."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.support.option_specs import OptionSpec, add_options

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "scripts" / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_committed_reference_pages_are_the_generated_ones() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in _generator().rendered_pages().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"{', '.join(stale)} out of date: run python scripts/gen_reference.py"


def _option_rows(page: str) -> dict[str, str]:
    return {line.split(" | ")[0].strip("| `"): line for line in page.splitlines() if line.startswith("| `--tts-")}


def test_every_pytest_option_is_on_the_options_page_with_its_help() -> None:
    from pytest_ttsbench.support.plugin_options import OPTION_GROUPS

    declared = [spec for _, _, specs in OPTION_GROUPS for spec in specs]
    rows = _option_rows((ROOT / "docs" / "reference" / "options.md").read_text(encoding="utf-8"))
    assert len(declared) > 40
    for spec in declared:
        assert spec.flag in rows, spec.flag
        first_words = " ".join(spec.help.split()[:4]).replace("|", "\\|")
        assert first_words in rows[spec.flag], spec.flag


def test_a_flag_reads_flag_and_off_as_declared_whatever_pytest_reports_of_it() -> None:
    # pytest 9.2's Argument.attrs() no longer carries ``action``: read from pytest, a store_true
    # flag became "TTS_SYNTH_ONLY | False". The page reads our declarations, so it says "flag | off".
    rows = _option_rows((ROOT / "docs" / "reference" / "options.md").read_text(encoding="utf-8"))
    assert rows["--tts-synth-only"].split(" | ")[1:3] == ["flag", "off"]


def test_the_options_page_does_not_consult_pytests_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page is the same when pytest's option parser cannot be used at all: what pytest (any
    version) would render of an option never reaches it."""
    from _pytest.config import argparsing

    generator = _generator()
    before = generator.options_page()

    def unusable(*args: object, **kwargs: object) -> None:
        raise AssertionError("the reference generator asked pytest's parser")

    for name in ("__init__", "addoption", "getgroup", "parse"):
        monkeypatch.setattr(argparsing.Parser, name, unusable)
    for name in ("__init__", "attrs", "names"):
        monkeypatch.setattr(argparsing.Argument, name, unusable)
    assert generator.options_page() == before


_TEXT = st.text(alphabet=st.characters(whitelist_categories=("L", "N"), max_codepoint=0x24F), min_size=1, max_size=12)


@st.composite
def _specs(draw: st.DrawFn) -> OptionSpec:
    flag = "--tts-" + draw(st.from_regex(r"[a-z]{1,8}(-[a-z]{1,8})?", fullmatch=True))
    kind = draw(st.sampled_from(["store_true", "append", "choices", "value"]))
    help_text = draw(_TEXT)
    if kind == "store_true":
        return OptionSpec(flag, help_text, action="store_true")
    if kind == "append":
        return OptionSpec(flag, help_text, action="append", metavar=draw(st.none() | _TEXT))
    if kind == "choices":
        choices = draw(st.lists(_TEXT, min_size=1, max_size=4, unique=True))
        return OptionSpec(flag, help_text, choices=choices, default=draw(st.sampled_from([None, *choices])))
    return OptionSpec(flag, help_text, metavar=draw(st.none() | _TEXT), default=draw(st.none() | _TEXT))


@given(spec=_specs())
@settings(max_examples=60, deadline=None)
def test_each_row_is_what_the_declaration_says(spec: OptionSpec) -> None:
    """Over any declaration: its row names the flag, says what it takes and its default as declared."""
    generator = _generator()
    option = generator.from_spec(spec)
    takes, default = generator._takes(option), generator._default(option)
    if spec.action == "store_true":
        assert (takes, default) == ("flag", "off")
    elif spec.choices:
        assert all(f"`{choice}`" in takes for choice in spec.choices)
        assert default == ("—" if spec.default is None else f"`{spec.default}`")
    else:
        expected = spec.metavar or spec.flag.removeprefix("--").upper().replace("-", "_")
        assert takes == f"`{expected}`"
        assert default == ("—" if spec.resolved_default in (None, []) else f"`{spec.resolved_default}`")
    # and pytest, told the same declaration, parses the flag (the page describes a real option)
    from _pytest.config.argparsing import Parser

    parser = Parser(_ispytest=True)
    add_options(parser.getgroup("probe").addoption, [spec])
    assert parser.parse_known_args([]) is not None


def test_the_gate_options_are_marked_as_shared_with_ttsbench_gate() -> None:
    from pytest_ttsbench.cli import build_parser

    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    gate_names = {name for action in commands.choices["gate"]._actions for name in action.option_strings}
    page = (ROOT / "docs" / "reference" / "options.md").read_text(encoding="utf-8")
    marked = {
        line.split(" | ")[0].strip("| `")
        for line in page.splitlines()
        if line.startswith("| `--tts-") and line.split(" | ")[3].strip() == "yes"
    }
    assert "--tts-threshold" in marked and "--tts-engine" not in marked
    assert marked == {name for name in gate_names if name.startswith("--tts-")}


def test_every_configuration_key_of_the_schema_is_on_the_configuration_page() -> None:
    from pytest_ttsbench.config import CONFIG_SCHEMA

    page = (ROOT / "docs" / "reference" / "configuration.md").read_text(encoding="utf-8")
    for key, schema in CONFIG_SCHEMA["properties"].items():
        assert f"| `{key}` |" in page, key
        for sub in schema.get("properties", {}):
            assert f"| `{key}.{sub}` |" in page, f"{key}.{sub}"


def test_every_subcommand_is_on_the_cli_page() -> None:
    from pytest_ttsbench.cli import SUBCOMMANDS

    page = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    assert [name for name in SUBCOMMANDS if f"## `ttsbench {name}`" not in page] == []


def test_a_changed_declaration_makes_the_page_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison above can fail: an option added to the declarations is a different page.
    generator = _generator()
    before = generator.options_page()
    from pytest_ttsbench.support import plugin_options

    (name, description, specs), *rest = plugin_options.OPTION_GROUPS
    made_up = OptionSpec("--tts-made-up", "an option nobody documented", action="store_true")
    monkeypatch.setattr(plugin_options, "OPTION_GROUPS", ((name, description, (*specs, made_up)), *rest))
    after = generator.options_page()
    assert after != before and "--tts-made-up" in after and "an option nobody documented" in after
