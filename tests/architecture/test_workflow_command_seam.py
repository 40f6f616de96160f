"""Every GitHub workflow command the package prints is built by ``support/outside_text.workflow_command``
(issue 38, point 3; ``reporting/github.error_command`` calls it), which escapes what it quotes and
marks the line as ours for the terminal's guard; a command written by hand elsewhere would let
a transcript or a file name end it early or forge another.

The package's source is scanned for string literals that start a workflow command (``::error``,
``::warning``, ``::notice`` and the rest); the workflow ``ttsbench init`` writes is shell for the
runner, not output of a run, and is named as the exception.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent
SEAM = "support/outside_text.py"
EXEMPT = {"cli/init.py": "the generated workflow's own shell steps"}
COMMAND = re.compile(r"::(error|warning|notice|debug|group|endgroup|add-mask|stop-commands)\b")


def workflow_commands(source: str) -> list[str]:
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and COMMAND.search(node.value)
    ]


def test_the_finder_sees_a_command_in_any_string() -> None:
    assert sorted(workflow_commands('x = f"::error file={f}::{m}"\ny = "::warning::w"\n')) == [
        "::error file=",
        "::warning::w",
    ]
    assert workflow_commands('node_id.split("::", 1)\n') == []


def test_only_the_seam_writes_workflow_commands() -> None:
    offenders = {
        name: found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (name := path.relative_to(PACKAGE).as_posix()) not in (SEAM, *EXEMPT)
        and (found := workflow_commands(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}, f"build workflow commands with support/outside_text.workflow_command: {offenders}"
    assert "def workflow_command(" in (PACKAGE / SEAM).read_text(encoding="utf-8"), "the seam itself moved"
