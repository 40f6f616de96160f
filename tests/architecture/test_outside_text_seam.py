"""Every writer of text that leaves the process stays on its seam, support/outside_text.py (issue 36).

- pytest's terminal writer gets its GuardedStream in the plugin's ``pytest_configure``, and the
  ``ttsbench`` command runs every subcommand inside ``guarded_std_streams``: so everything either
  prints passes the guard, whichever module wrote it;
- printing to stdout/stderr directly (``print``, ``sys.stdout.write``) happens only where those
  guarded streams are in place: the subcommands under ``cli/``;
- CSV is written only by ``outside_text.csv_text`` (formula cells prefixed).

The source is parsed (ast), so a call inside a function is seen too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent
SEAM = "support/outside_text.py"
#: modules that write to stdout/stderr outside cli/, and why that is safe
PRINT_EXEMPT = {
    "session/benchmark.py": "an xdist worker's bound-scope errors, built from the configuration, before it stops",
    "session/output_failures.py": "the one line naming a refused write, after pytest's last words (escaped by shown)",
}


STD_STREAMS = ("sys.stdout.", "sys.stderr.")


def _calls(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                names.append(func.id)
            elif isinstance(func, ast.Attribute):
                base = func.value
                prefix = (
                    f"{base.value.id}.{base.attr}"
                    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name)
                    else base.id
                    if isinstance(base, ast.Name)
                    else "?"
                )
                names.append(f"{prefix}.{func.attr}")
    return names


def direct_printing(source: str) -> list[str]:
    """Calls that write to the process's stdout or stderr themselves."""
    return [
        name
        for name in _calls(ast.parse(source))
        if name == "print"
        or (name.startswith(("sys.stdout.", "sys.stderr.")) and name.endswith(("write", "writelines")))
    ]


def csv_writers(source: str) -> list[str]:
    return [name for name in _calls(ast.parse(source)) if name in ("csv.writer", "csv.DictWriter")]


def test_the_finders_see_each_way_of_writing() -> None:
    source = "import csv, sys\ndef f(x):\n    print(x)\n    sys.stderr.write(x)\n    csv.DictWriter(x, [])\n"
    assert direct_printing(source) == ["print", "sys.stderr.write"]
    assert csv_writers(source) == ["csv.DictWriter"]
    assert direct_printing("import sys\nsys.stdout.isatty()\nlog.write('x')\n") == []


def test_printing_happens_only_behind_the_guarded_streams() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith("cli/") or name in PRINT_EXEMPT or name == SEAM:
            continue
        if calls := direct_printing(path.read_text(encoding="utf-8")):
            found[name] = calls
    assert found == {}, "write through pytest's terminal reporter (guarded) or from a cli/ subcommand"
    for name in PRINT_EXEMPT:
        assert direct_printing((PACKAGE / name).read_text(encoding="utf-8")), f"{name} no longer needs its exemption"


def test_csv_is_written_only_by_the_seam() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name != SEAM and (writers := csv_writers(path.read_text(encoding="utf-8"))):
            found[name] = writers
    assert found == {}, "write CSV with support/outside_text.csv_text"


def _function(module: str, name: str) -> ast.FunctionDef:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_both_front_ends_put_the_guard_under_what_they_print() -> None:
    configure = _function("plugin.py", "pytest_configure")
    assert "guard_terminal" in _calls(configure), "plugin.pytest_configure must guard pytest's terminal writer"
    main = _function("cli/__init__.py", "main")
    dispatch = [
        node
        for node in ast.walk(main)
        if isinstance(node, ast.With) and "guarded_std_streams" in ast.unparse(node.items[0].context_expr)
    ]
    assert dispatch and "args.func" in ast.unparse(dispatch[0]), "cli.main must run the subcommand guarded"
