"""Every "did you mean …" comes from one matcher, ``support/text.closest_names`` (issue 38, point 5).

Engine profiles, ``--tts-*`` options, case-file fields, floors and bounds suggest the closest known
name. A module matching names itself (``difflib``) would suggest differently, or not at all; the
package's source is parsed (ast), so an import inside a function is seen too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent
SEAM = "support/text.py"


def name_matchers(source: str) -> list[str]:
    """Every use of ``difflib.get_close_matches`` in ``source``: imported by name, or as an attribute."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "") == "difflib":
            found += [f"difflib.{alias.name}" for alias in node.names if alias.name == "get_close_matches"]
        elif isinstance(node, ast.Attribute) and node.attr == "get_close_matches":
            found.append("difflib.get_close_matches")
    return found


def test_the_finder_sees_every_import() -> None:
    source = "import difflib as d\nd.get_close_matches('a', [])\ndef f():\n    from difflib import get_close_matches\n"
    assert name_matchers(source) == ["difflib.get_close_matches", "difflib.get_close_matches"]
    assert name_matchers("from difflib import SequenceMatcher\nSequenceMatcher(None, 'a', 'b')\n") == []


def test_only_the_seam_matches_names() -> None:
    offenders = {
        path.relative_to(PACKAGE).as_posix(): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() != SEAM and (found := name_matchers(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}, f"suggest through support/text.closest_names, not difflib: {offenders}"
    assert name_matchers((PACKAGE / SEAM).read_text(encoding="utf-8")), "the seam itself moved"
