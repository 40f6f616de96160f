"""Every module that uses a row's clip path either checks it with ``inside_folder`` or says why it need not.

A results file's ``audio_path`` is data (issue 22, build 8): a module opening the file it names
must first resolve it inside the results file's folder (:func:`pytest_ttsbench.support.data_paths.inside_folder`).
A new consumer of ``audio_path`` fails this test until it does, or until it is listed below with
the reason it opens nothing named by a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent

#: modules that read ``row.audio_path`` without opening a clip a results file named, and why
OPENS_NO_CLIP_FROM_A_FILE = {
    "run_model/results.py": "the reader itself: it makes a relative path absolute, opens nothing",
    "pipeline/evaluator.py": "writes the clips this run synthesizes",
    "session/collect.py": "names this run's clip in a failure message",
    "gating/baseline.py": "names the clips of a compared pair in the gate file",
    "reporting/comparison.py": "names the clips of a compared pair in the comparison text",
    "quality/similarity.py": "embeds this session's own clips (the recorder's rows), never a file's",
}


def _reads_audio_path(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Attribute) and node.attr == "audio_path" and isinstance(node.ctx, ast.Load)
        for node in ast.walk(tree)
    )


def _imports_inside_folder(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "pytest_ttsbench.support.data_paths"
        and any(alias.name == "inside_folder" for alias in node.names)
        for node in ast.walk(tree)
    )


def _modules() -> dict[str, ast.AST]:
    return {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py")}


def test_every_reader_of_a_clip_path_checks_it_inside_its_folder() -> None:
    unchecked = sorted(
        name
        for name, tree in _modules().items()
        if _reads_audio_path(tree) and not _imports_inside_folder(tree) and name not in OPENS_NO_CLIP_FROM_A_FILE
    )
    assert unchecked == [], "resolve the clip with pytest_ttsbench.support.data_paths.inside_folder, or list why not"


def test_the_exemptions_are_current() -> None:
    modules = _modules()
    for name in OPENS_NO_CLIP_FROM_A_FILE:
        assert _reads_audio_path(modules[name]), f"{name} no longer reads audio_path: drop its exemption"
        assert not _imports_inside_folder(modules[name]), f"{name} checks its paths now: drop its exemption"
