"""Every number a user gives goes through the one check, ``support/checked_numbers.py`` (#35).

* every option of the plugin and of every ``ttsbench`` subcommand that takes a number parses it with
  ``number_option`` (never argparse's bare ``int`` or ``float``, which take ``nan`` and ``inf``);
* every schema check of a document goes through ``support/schema_check.schema_errors``, which refuses a
  NaN or infinity anywhere in the document (no module runs jsonschema itself);
* no module checks a number's type and range itself (``isinstance(v, (int, float))`` then comparisons,
  which a NaN passes): it calls ``checked_number`` (or ``EngineProfile.number``), except the exceptions
  named here with their reason.

The source is parsed (ast), so a check inside a function is seen too.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from _pytest.config.argparsing import Parser

import pytest_ttsbench
from pytest_ttsbench.cli import build_parser
from pytest_ttsbench.plugin import pytest_addoption

PACKAGE = Path(pytest_ttsbench.__file__).parent
SEAM = "support/checked_numbers.py"

#: modules that test a value for being a number without judging a user's number, and why
EXEMPT = {
    "support/cache.py": "the cache's own entries (figures it wrote), a damaged one is a miss",
    "gating/latency.py": "tells a number from a duration's text, then checks it with checked_number",
    "gating/thresholds.py": "reads floors already checked where the case file was read",
    "support/json_documents.py": "the JSON writer turns a non-finite figure it writes into null, no user's number",
}


def _actions() -> list[tuple[str, argparse.Action | object]]:
    parser = Parser(_ispytest=True)
    pytest_addoption(parser)
    found: list[tuple[str, argparse.Action | object]] = [
        (f"pytest {option.names()[-1]}", option.attrs().get("type")) for g in parser._groups for option in g.options
    ]
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        found += [(f"ttsbench {name} {' '.join(a.option_strings)}", a.type) for a in sub._actions]
    return found


def test_no_option_parses_a_number_with_bare_int_or_float() -> None:
    bare = [where for where, kind in _actions() if kind in (int, float)]
    assert bare == [], f"use support.checked_numbers.number_option for {bare}"


def test_numeric_options_carry_their_range() -> None:
    ranged = [where for where, kind in _actions() if hasattr(kind, "allowed")]
    assert len(ranged) >= 15


def _number_type_checks(source: str) -> list[int]:
    """Lines of ``isinstance(x, (int, float))`` / ``isinstance(x, int)`` tests in ``source``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            kinds = node.args[1] if len(node.args) == 2 else None
            names = (
                {e.id for e in kinds.elts if isinstance(e, ast.Name)}
                if isinstance(kinds, ast.Tuple)
                else {kinds.id}
                if isinstance(kinds, ast.Name)
                else set()
            )
            if "float" in names and names <= {"int", "float", "bool"}:  # a number test, not a type filter
                lines.append(node.lineno)
    return lines


def test_the_finder_sees_a_hand_made_number_check() -> None:
    assert _number_type_checks("def f(v):\n    return isinstance(v, (int, float)) and 0 <= v <= 1\n") == [2]
    assert _number_type_checks("isinstance(v, float)") == [1]
    assert _number_type_checks("isinstance(v, str)") == []
    assert _number_type_checks("isinstance(v, (str, int, float))") == []  # a filter of scalars


def test_no_module_checks_a_number_by_hand() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == SEAM or name in EXEMPT:
            continue
        found += [f"{name}:{line}" for line in _number_type_checks(path.read_text(encoding="utf-8"))]
    assert found == [], f"check numbers with support.checked_numbers.checked_number: {found}"


def test_exemptions_are_still_needed() -> None:
    for name in EXEMPT:
        assert _number_type_checks((PACKAGE / name).read_text(encoding="utf-8")), f"{name} needs no exemption"


def test_every_schema_check_goes_through_schema_errors() -> None:
    direct = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() != "support/schema_check.py"
        and ("Draft202012Validator" in (text := path.read_text(encoding="utf-8")) or "fastjsonschema" in text)
    ]
    assert direct == [], f"check documents with support.schema_check.schema_errors: {direct}"
