"""Installed-looking distributions for tests: a ``*.dist-info`` folder with entry points, on a path.

``importlib.metadata`` finds a distribution by its ``NAME-VERSION.dist-info`` folder on
``sys.path``, so a folder put on ``PYTHONPATH`` of a child process registers its entry points the
way ``pip install`` would: the plugin's registries see them through their entry-point groups.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def write_dist(site: Path, name: str, entry_points: Mapping[str, Mapping[str, str]]) -> Path:
    """A ``name-0.1.dist-info`` in ``site`` declaring ``entry_points`` (group → name → ``module:attr``)."""
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    sections = [
        f"[{group}]\n" + "".join(f"{entry} = {target}\n" for entry, target in entries.items())
        for group, entries in entry_points.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(sections), encoding="utf-8")
    return info


def env_with(site: Path) -> dict[str, str]:
    """The environment for a child process that sees ``site`` and this checkout's package."""
    paths = [str(site), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p), "PYTHONDONTWRITEBYTECODE": "1"}


def ttsbench_command(*argv: str) -> list[str]:
    """``ttsbench ARGV`` as a command line: the console script's ``main``, run by this interpreter."""
    return [sys.executable, "-m", "pytest_ttsbench.cli", *argv]
