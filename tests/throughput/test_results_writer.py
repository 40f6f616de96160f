"""Rows are in the results file as soon as they are written: a run killed mid-way (SIGKILL, no
clean-up at all) leaves every row it wrote, though the file is synced to disk only on close (#28)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from pytest_ttsbench.run_model.results import read_results

_WRITER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from result_rows import make_result
from pytest_ttsbench.run_model.results import ResultsWriter
writer = ResultsWriter(__import__("pathlib").Path(sys.argv[1]))
for n in range(3):
    writer.write(make_result(id=f"s/item-{n}"))
print("written", flush=True)
time.sleep(600)
"""


def test_a_killed_run_keeps_every_row_it_wrote(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    support = Path(__file__).resolve().parents[1] / "support"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(results), str(support)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "written"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert [row.id for row in read_results(results)] == ["s/item-0", "s/item-1", "s/item-2"]
