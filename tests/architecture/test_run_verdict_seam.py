"""A stored run's verdict is read from its gate file in one place (issue #38 point 4).

``pytest_ttsbench.reporting.run_verdict.run_verdict`` turns a gate file into a verdict whose FAILED
always carries reasons (a gate that held but tests that failed: ``gate_passed: true, passed: false``).
A page reading ``passed`` or ``reasons`` from a gate file itself could show a FAILED with nothing
after it again. The package's source and templates are searched for such reads.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent
SEAM = "reporting/run_verdict.py"
#: a read of a gate mapping's verdict keys: ``gate.get("passed")``, ``run.gate["reasons"]``, ``gate.passed`` in Jinja
GATE_READ = re.compile(r"""gate(?:\.get\(\s*|\[\s*|\.)["']?(?:passed|gate_passed|reasons)\b""")


def test_only_the_seam_reads_a_gate_files_verdict() -> None:
    readers = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in (".py", ".j2") or path.relative_to(PACKAGE).as_posix() == SEAM:
            continue
        source = path.read_text(encoding="utf-8")
        readers += [f"{path.relative_to(PACKAGE)}: {m.group(0)}" for m in GATE_READ.finditer(source)]
    assert readers == []


def test_the_pattern_sees_the_reads_it_forbids() -> None:
    for read in ('run.gate.get("passed")', "gate['reasons']", "gate.gate_passed", 'gate.get( "reasons" )'):
        assert GATE_READ.search(read), read
    assert not GATE_READ.search("outcome.passed") and not GATE_READ.search("gate_path(results)")
