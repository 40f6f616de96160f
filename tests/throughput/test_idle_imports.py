"""A pytest run that selects no engine must not import the heavy libraries (issue: idle cost near zero).

The check compares two fresh interpreters running the same ``pytest --co`` in an empty folder,
one with the plugin and one with ``-p no:ttsbench``: a heavy module the plugin adds is a
regression, whatever other installed plugins import on their own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("scipy", "numpy", "av", "faster_whisper", "ctranslate2", "matplotlib", "jsonschema", "jiwer", "httpx")

_PROBE = """
import json, sys
import pytest
pytest.main(sys.argv[1:])
print("MODULES=" + json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _top_level_modules(folder: Path, *extra: str) -> set[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "--co", "-q", "-p", "no:cacheprovider", *extra],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("MODULES="))
    return set(json.loads(line.removeprefix("MODULES=")))


def test_plugin_adds_no_heavy_import_to_an_idle_run(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_nothing():\n    pass\n")
    with_plugin = _top_level_modules(tmp_path)
    without_plugin = _top_level_modules(tmp_path, "-p", "no:ttsbench")
    assert "pytest_ttsbench" in with_plugin and "pytest_ttsbench" not in without_plugin
    added = sorted(name for name in HEAVY if name in with_plugin and name not in without_plugin)
    assert added == [], f"an idle pytest run now imports {added} because of the plugin"
