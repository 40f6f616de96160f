"""No function longer than 80 lines, outside the number grammars in ``scorers/``.

A function that long does several jobs; its steps belong in functions whose names say what they
do. The number grammars (``scorers/numbers_<lang>.py``) are exempt: each is one reading of a
language's number words, easier to check against the language's rules in one place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

LIMIT = 80
PACKAGE = Path(pytest_ttsbench.__file__).parent


def _exempt(path: Path) -> bool:
    return path.parent.name == "scorers" and path.name.startswith("numbers_")


def long_functions(root: Path, limit: int = LIMIT) -> list[str]:
    """``file:function (lines)`` for every function or method longer than ``limit`` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if _exempt(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append(f"{path.relative_to(root).as_posix()}:{node.name} ({length} lines)")
    return found


def test_no_function_is_longer_than_eighty_lines() -> None:
    assert long_functions(PACKAGE) == []


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n", encoding="utf-8")
    (tmp_path / "scorers").mkdir()
    (tmp_path / "scorers" / "numbers_xx.py").write_text(f"def grammar():\n{body}\n", encoding="utf-8")
    assert long_functions(tmp_path) == [f"long.py:long ({LIMIT + 1} lines)"]
