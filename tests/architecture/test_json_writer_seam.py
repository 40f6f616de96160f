"""Every JSON document the package writes is made by ``support/json_documents.dump_json`` (issue 36).

``json.dumps`` writes NaN and the infinities as the bare words ``NaN`` and ``Infinity``, which no
strict JSON parser reads: a results row holding ``"rms": NaN`` made the whole file unreadable
elsewhere. ``dump_json`` refuses them (``allow_nan=False``), so a writer that bypassed it could
write them again. The source is parsed (ast), so an alias or a ``from json import dumps`` is seen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent
SEAM = "support/json_documents.py"
_WRITERS = {"dump", "dumps", "JSONEncoder"}


def raw_writers(source: str) -> list[str]:
    """``json.<writer>`` for every JSON-writing call, attribute or import in ``source``."""
    tree = ast.parse(source)
    aliases = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "json"
    }
    found = [
        f"json.{a.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in ("json", "json.encoder")
        for a in node.names
        if a.name in _WRITERS
    ]
    found += [
        f"json.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
        and node.attr in _WRITERS
    ]
    return found


def test_the_finder_sees_every_way_of_writing() -> None:
    source = "import json as j\nfrom json import dumps\ndef f(x, out):\n    j.dump(x, out)\n    return j.dumps(x)\n"
    assert sorted(raw_writers(source)) == ["json.dump", "json.dumps", "json.dumps"]
    assert raw_writers("import json\njson.loads('1')\nfrom pytest_ttsbench.x import dumps\ndumps(1)\n") == []


def test_no_module_writes_json_around_the_one_writer() -> None:
    bypasses = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name != SEAM and (found := raw_writers(path.read_text(encoding="utf-8"))):
            bypasses[name] = found
    assert bypasses == {}, "write JSON through support/json_documents.dump_json (allow_nan=False)"
