"""The reference pages (docs/reference/) are what scripts/gen_reference.py makes from the option
declarations, the configuration schema and the ``ttsbench`` parser: an option, key or subcommand
added, renamed or re-worded without regenerating them fails here."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

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


def test_every_pytest_option_is_on_the_options_page_with_its_help() -> None:
    from _pytest.config.argparsing import Parser

    from pytest_ttsbench import plugin

    parser = Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    declared = [option for group in parser._groups for option in group.options]
    page = (ROOT / "docs" / "reference" / "options.md").read_text(encoding="utf-8")
    assert len(declared) > 40
    rows = {line.split(" | ")[0].strip("| `"): line for line in page.splitlines() if line.startswith("| `--tts-")}
    for option in declared:
        (name,) = option.names()
        assert name in rows, name
        first_words = " ".join(str(option.attrs()["help"]).split()[:4]).replace("|", "\\|")
        assert first_words in rows[name], name


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


def test_a_changed_declaration_makes_the_page_stale(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The comparison above can fail: a help text edited in the declarations is a different page.
    generator = _generator()
    before = generator.options_page()
    from pytest_ttsbench import plugin

    original = plugin.pytest_addoption

    def with_one_more(parser) -> None:  # type: ignore[no-untyped-def]
        original(parser)
        parser.getgroup("ttsbench").addoption("--tts-made-up", action="store_true", help="an option nobody documented")

    monkeypatch.setattr(plugin, "pytest_addoption", with_one_more)
    after = generator.options_page()
    assert after != before and "--tts-made-up" in after and "an option nobody documented" in after
