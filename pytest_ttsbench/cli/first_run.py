"""``ttsbench init --record-known-gaps``: the one run before the first pull request.

A fresh workflow gates the voice as it is; without a record of how it is, every item it fails
today fails the first pull request, though nothing changed. So each engine runs once here, with
the running interpreter and the configuration just written, and leaves in the repository what
the gate judges the next runs against:

* ``known_gaps/<engine>.yaml`` — the items it fails today (``--tts-update-known-gaps``);
* ``baselines/<engine>/`` — this run, as the baseline the workflow compares with
  (``--tts-fail-on-regression --tts-max-regressions 0``: one item that was correct and is not
  any more fails the gate);
* ``thresholds`` in ``ttsbench.yaml`` — for each category whose floor the voice does not reach
  today, what it measures, so the unchanged voice passes and a drop below it fails.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.baseline import BaselineError, save_baseline
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED
from pytest_ttsbench.config import CONFIG_FILE
from pytest_ttsbench.run_model.reader import gate_path
from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.json_documents import load_json

#: where the recording runs go (ignored by git: .ttsbench/); the baselines are copied out of them
RECORD_DIR = Path(".ttsbench") / "first-run"


def record_first_run(root: Path, engines: Sequence[str]) -> int:
    """Run each engine once in ``root`` and record its known gaps, baseline and measured floors."""
    floors: dict[str, dict[str, float]] = {}
    for engine in engines:
        results = root / RECORD_DIR / engine / "results.jsonl"
        print(f"recording {engine}: pytest --tts-engine={engine} --tts-update-known-gaps (this runs the benchmark)")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                f"--tts-engine={engine}",
                "--tts-update-known-gaps",
                "--tts-cache=off",
                f"--tts-results={results}",
                "-p",
                "no:cacheprovider",
                "-q",
            ],
            cwd=root,
            check=False,
        )
        if done.returncode not in (0, 1) or not gate_path(results).is_file():
            print(f"ttsbench init: the run of {engine} did not finish (exit status {done.returncode})", file=sys.stderr)
            return EXIT_REFUSED
        try:
            save_baseline(results.parent, root / "baselines" / engine)
        except (BaselineError, OSError, ValueError) as exc:
            print(f"ttsbench init: baseline of {engine}: {exc}", file=sys.stderr)
            return EXIT_REFUSED
        gate = load_json(gate_path(results).read_text(encoding="utf-8"))
        for suite, category, measured in breached_floors(gate):
            current = floors.setdefault(suite, {}).get(category, measured)
            floors[suite][category] = min(current, measured)
    if floors:
        config = root / CONFIG_FILE
        write_atomically(config, config.read_text(encoding="utf-8") + floors_section(floors, engines))
    print(
        "recorded: known_gaps/, baselines/"
        + (f" and {sum(map(len, floors.values()))} floor(s) in {CONFIG_FILE}" if floors else "")
        + "; commit them with the workflow"
    )
    return EXIT_OK


def breached_floors(gate: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """(suite, category, what was measured, rounded down) of each floor the run did not reach."""
    return [
        (str(check["suite"]), str(check["category"]), math.floor(float(check["measured"]) * 1000) / 1000)
        for check in gate.get("thresholds", [])
        if check.get("breached") and check.get("suite") and check.get("measured") is not None
    ]


def floors_section(floors: Mapping[str, Mapping[str, float]], engines: Sequence[str]) -> str:
    """The configuration's ``thresholds`` as recorded: per suite, the floors set to what was measured."""
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    lines = [
        "",
        f"# Recorded by `ttsbench init --record-known-gaps` on {date} ({', '.join(engines)}): where the voice",
        "# measured below a pack's floor, the floor is what it measured, so the unchanged voice passes and",
        "# a drop below fails. Raise them as the voice improves.",
        "thresholds:",
    ]
    for suite, categories in sorted(floors.items()):
        lines.append(f"  {suite}:")
        lines += [f"    {category}: {value:g}" for category, value in sorted(categories.items())]
    return "\n".join(lines) + "\n"
