"""Shared by the reporting tests: the plugin tests' project writer, and reading reports back."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

from plugin_projects import NUMERALS, TRANSCRIPTS, read_jsonl, write_project  # noqa: F401  (re-exported)
from processes import run

# Imported here, before any in-process pytester run: pytester drops the modules a run imported
# when it ends, and matplotlib imported twice in one process breaks its class-level caches.
import pytest_ttsbench.reporting.plots  # noqa: F401


def report_data(path: Path) -> dict:
    """The JSON blob pytest-html renders its table from."""
    text = path.read_text(encoding="utf-8")
    blob = re.search(r'id="data-container" data-jsonblob="([^"]*)"', text)
    assert blob, "no data container in the report"
    return json.loads(html.unescape(blob.group(1)))


def cell_text(cell: str) -> str:
    """The visible text of an HTML fragment."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", cell)).split())


def artifacts_dir(fallback: Path) -> Path:
    """Where screenshots are kept: $TTSBENCH_ARTIFACTS when set (CI uploads it), else ``fallback``."""
    import os

    folder = Path(os.environ.get("TTSBENCH_ARTIFACTS") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


ESPEAK_CASES = """\
suite: report-numerals
language: en
scorer: numbers
thresholds: {default: 0.6, min_n: 1}  # gate the two-item categories too
items:
  - id: bridge-2026
    category: years
    facets: {form: western}
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2026"]}
  - id: lease-date
    category: dates
    facets: {form: western}
    text: "The lease runs until March 3rd, 2026."
    expect: {values: ["3", "2026"]}
  - id: wrong-on-purpose
    category: years
    facets: {form: spelled}
    text: "The new bridge over the river is scheduled to open in 2026."
    expect: {values: ["2027"]}
"""


def run_pytest(project: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """pytest in a fresh process inside ``project`` (so module-scoped fixtures can share a run)."""
    import sys

    return run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=project, timeout=timeout, expect=None
    )
