"""Every reader of a recorded run checks it against its manifest first (#35): the one check is
``run_model.manifest.verify_recorded_run``, and every function that reads a results file calls it, or
reads through the run model's reader (``read_runs``, ``load_runs``, ``find_runs``), which calls it. The
exceptions are named with their reason. The source is parsed (ast): a call inside a function is seen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent
#: reading a results file's rows
RAW_READERS = {"read_results", "iter_results"}
#: the run model's reader, which verifies what it reads
VERIFYING = {"verify_recorded_run", "read_runs", "load_runs", "find_runs"}

#: "module:function" that read rows without the check, and why
EXEMPT = {
    "run_model/results.py:read_results": "the row reader itself",
    "run_model/reader.py:read_runs": "calls verify_recorded_run before it reads",
    "run_model/manifest.py:write_session_manifest": "the run's own rows as its session closes, to hash them",
    "run_model/reruns.py:check_existing": "the run's own file, before this session appends to it",
    "run_model/reruns.py:resumable": "the run's own file, which --tts-resume continues",
    "engines/replay.py:_recorded_clips": "an input of the new run (hashed into its manifest), not a run judged",
    "cli/rescore.py:_guarded_write": "the file rescore itself is about to overwrite, for --guard",
}


def _calls(node: ast.AST) -> set[str]:
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            found.add(name)
    return found


def _readers() -> dict[str, set[str]]:
    """ "module:function" → the calls it makes, for every function that reads rows raw."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                calls = _calls(node)
                if calls & RAW_READERS:
                    found[f"{module}:{node.name}"] = calls
    return found


def test_every_reader_of_a_run_verifies_it() -> None:
    readers = _readers()
    unchecked = [name for name, calls in readers.items() if not calls & VERIFYING and name not in EXEMPT]
    assert unchecked == [], f"read a recorded run through run_model.manifest.verify_recorded_run: {unchecked}"


def test_the_exemptions_still_read_rows() -> None:
    readers = _readers()
    assert [name for name in EXEMPT if name not in readers] == []


def test_the_finder_sees_a_reader() -> None:
    source = "def f(p):\n    return read_results(p)\n"
    tree = ast.parse(source)
    assert "read_results" in _calls(tree.body[0])
