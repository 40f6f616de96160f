"""Each ``--tts-*`` option is declared once, as an :class:`~pytest_ttsbench.support.option_specs.OptionSpec` in
the module of the feature that owns it; the plugin's ``pytest_addoption`` declares none by hand, and
the modules of the pytest glue stay in small functions (#27)."""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

from _pytest.config.argparsing import Parser

import pytest_ttsbench
from pytest_ttsbench import plugin
from pytest_ttsbench.support.option_specs import OptionSpec

PACKAGE_DIR = Path(pytest_ttsbench.__file__).parent


def _declared() -> dict[str, list[str]]:
    """flag → the modules whose top-level tuples of OptionSpec declare it (every module the plugin loads)."""
    found: dict[str, list[str]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("pytest_ttsbench.") or name == "pytest_ttsbench.plugin":
            continue
        for value in vars(module).values():
            if isinstance(value, tuple) and value and all(isinstance(spec, OptionSpec) for spec in value):
                for spec in value:
                    found.setdefault(spec.flag, []).append(name)
    return {flag: sorted(set(modules)) for flag, modules in found.items()}


def _plugin_flags() -> list[str]:
    parser = Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    return [flag for group in parser._groups for option in group.options for flag in option.names()]


def test_every_plugin_option_is_declared_once_by_the_feature_that_owns_it() -> None:
    flags = _plugin_flags()
    assert [flag for flag, n in Counter(flags).items() if n > 1] == []
    declared = _declared()
    for flag in flags:
        assert flag in declared, f"{flag} is declared by hand, not as an OptionSpec of its feature's module"
        assert len(declared[flag]) == 1, f"{flag} is declared in {declared[flag]}"
    grouped = [spec.flag for _, _, specs in plugin.OPTION_GROUPS for spec in specs]
    assert sorted(grouped) == sorted(flags)  # pytest_addoption adds exactly the declared groups


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
    modules = ("plugin.py", "session/benchmark.py", "gating/options.py", "support/option_specs.py")
    assert [long for name in modules for long in _long_functions(PACKAGE_DIR / name, 80)] == []
