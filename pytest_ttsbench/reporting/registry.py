"""Report formats by name, from the ``pytest_ttsbench.reports`` entry point, run by ``ttsbench report``.

A report is a function from the runs of one or more results files to a file::

    def write_report(runs: Sequence[Run], out: Path) -> None: ...

It reads :class:`~pytest_ttsbench.run_model.reader.Run` objects (the one reader of results files, so a report
counts what the summary, the gate and the leaderboard count) and writes ``out``, whose folder
exists. A third-party package registers one::

    [project.entry-points."pytest_ttsbench.reports"]
    failures-csv = "my_package.reports:write_failures"
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ttsbench.registry import Registry

if TYPE_CHECKING:
    from pytest_ttsbench.run_model.reader import Run

ENTRY_POINT_GROUP = "pytest_ttsbench.reports"

ReportWriter = Callable[["Sequence[Run]", Path], None]

#: report name → its writer. The package's own reports (HTML, dashboard, leaderboard) have their own
#: options and subcommands; this registry is where a project's report formats join them.
REPORTS: Registry[ReportWriter] = Registry("report", ENTRY_POINT_GROUP, {})


def register_report(name: str, writer: ReportWriter | str) -> None:
    """Add a report: its writer, or the writer's ``module:callable``."""
    REPORTS.register(name, writer)
