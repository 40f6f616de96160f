"""Each ``--tts-*`` option is declared once, as an :class:`~pytest_ttsbench.support.option_specs.OptionSpec` in
support/plugin_options.py (plain data: the plugin imports it in every pytest run of every project, #38),
grouped by the feature that owns it; the plugin's ``pytest_addoption`` declares none by hand, and
the modules of the pytest glue stay in small functions (#27)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from _pytest.config.argparsing import Parser

import pytest_ttsbench
from pytest_ttsbench import plugin
from pytest_ttsbench.support import plugin_options
from pytest_ttsbench.support.option_specs import OptionSpec

PACKAGE_DIR = Path(pytest_ttsbench.__file__).parent
DECLARATIONS = PACKAGE_DIR / "support" / "plugin_options.py"


def _constructions(path: Path) -> list[int]:
    """Lines where ``path`` builds an OptionSpec."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "OptionSpec"
    ]


def _plugin_flags() -> list[str]:
    parser = Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    return [flag for group in parser._groups for option in group.options for flag in option.names()]


def test_every_plugin_option_is_declared_once_as_plain_data() -> None:
    flags = _plugin_flags()
    assert [flag for flag, n in Counter(flags).items() if n > 1] == []
    grouped = [spec.flag for _, _, specs in plugin_options.OPTION_GROUPS for spec in specs]
    assert sorted(grouped) == sorted(flags)  # pytest_addoption adds exactly the declared groups
    elsewhere = [
        f"{path.relative_to(PACKAGE_DIR)}:{line}"
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
        if path != DECLARATIONS
        for line in _constructions(path)
    ]
    assert elsewhere == [], f"OptionSpec built outside support/plugin_options.py: {elsewhere}"
    tuples = [
        value
        for value in vars(plugin_options).values()
        if isinstance(value, tuple) and value and all(isinstance(spec, OptionSpec) for spec in value)
    ]
    assert sorted(spec.flag for specs in tuples for spec in specs) == sorted(flags)  # each in one tuple


def _long_functions(path: Path, limit: int) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_the_plugin_session_and_gate_options_have_no_function_over_80_lines() -> None:
    modules = (
        "plugin.py",
        "session/hooks.py",
        "session/benchmark.py",
        "session/gate_options.py",
        "support/option_specs.py",
    )
    assert [long for name in modules for long in _long_functions(PACKAGE_DIR / name, 80)] == []
