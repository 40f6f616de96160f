"""Every test that runs a child process to its end does so through tests/support/processes.py.

There a failed child shows its command, exit status, stdout and stderr in the assertion message
(#38: a wheel test reported only a missing ``results.gate.json`` while the child's traceback was
lost). A direct ``subprocess.run`` / ``check_output`` / ``check_call`` / ``call`` anywhere else
under tests/ fails here, naming the file and line. ``subprocess.Popen`` stays allowed: a long-lived
child the test talks to while it runs (a browser, a paused run, a lock holder).
"""

from __future__ import annotations

import ast
from pathlib import Path

import processes

TESTS = Path(__file__).resolve().parents[1]
SEAM = TESTS / "support" / "processes.py"
TO_THE_END = {"run", "check_output", "check_call", "call", "getoutput", "getstatusoutput"}


def direct_calls(source: str) -> list[tuple[int, str]]:
    """(line, name) of each call of a run-to-the-end function of ``subprocess`` in ``source``,
    however it was imported (``subprocess.run``, ``from subprocess import run as go``, an alias)."""
    tree = ast.parse(source)
    module_names = {"subprocess"}
    function_names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            module_names |= {alias.asname or alias.name for alias in node.names if alias.name == "subprocess"}
        elif isinstance(node, ast.ImportFrom) and node.module == "subprocess":
            function_names |= {
                alias.asname or alias.name: alias.name for alias in node.names if alias.name in TO_THE_END
            }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in module_names:
            if func.attr in TO_THE_END:
                found.append((node.lineno, f"subprocess.{func.attr}"))
        elif isinstance(func, ast.Name) and func.id in function_names:
            found.append((node.lineno, f"subprocess.{function_names[func.id]}"))
    return found


def test_no_test_runs_a_child_process_around_the_seam() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{line}: {name}"
        for path in sorted(TESTS.rglob("*.py"))
        if path != SEAM
        for line, name in direct_calls(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "run child processes with processes.run (tests/support/processes.py):\n" + "\n".join(
        offenders
    )


def test_the_check_finds_each_way_of_calling_subprocess() -> None:
    source = (
        "import subprocess, subprocess as sp\n"
        "from subprocess import check_output as co, Popen\n"
        "subprocess.run(['x'])\nsp.check_call(['x'])\nco(['x'])\nPopen(['x'])\n"
        "subprocess.Popen(['x'])\nother.run(['x'])\n"
    )
    assert direct_calls(source) == [
        (3, "subprocess.run"),
        (4, "subprocess.check_call"),
        (5, "subprocess.check_output"),
    ]


def test_a_failed_child_shows_its_command_status_and_both_streams(tmp_path: Path) -> None:
    script = "import sys; print('to stdout'); print('to stderr', file=sys.stderr); sys.exit(3)"
    import sys

    try:
        processes.run([sys.executable, "-c", script], cwd=tmp_path)
    except AssertionError as error:
        message = str(error)
    else:
        raise AssertionError("a child that exited 3 passed as 0")
    assert "exit status 3" in message and "to stdout" in message and "to stderr" in message
    assert sys.executable in message
    done = processes.run([sys.executable, "-c", script], expect=3)
    assert done.returncode == 3
    missing = tmp_path / "never.json"
    try:
        processes.written_by(done, missing)
    except AssertionError as error:
        assert str(missing) in str(error) and "to stderr" in str(error)
    else:
        raise AssertionError("a file never written was returned")
