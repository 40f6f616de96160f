"""Results rows with quality figures, and results files made of them, for the quality gate tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from result_rows import make_result

from pytest_ttsbench.run_model.results import ItemResult, read_results, write_results

#: What each set's provenance looks like in a row written by the plugin (see quality/meter.py).
MODELS = {
    "dnsmos": "speechmos 0.0.1.1 DNSMOS sig_bak_ovr.onnx sha256:aa ; onnxruntime 1.20 CPU",
    "signal": "numpy 2.1 pyloudnorm 0.1.1",
}


def rows(
    engine: str,
    category: str,
    values: dict[str, list[float]],
    suite: str = "s",
    models: dict[str, str] | None = None,
) -> list[ItemResult]:
    """One row per clip of ``category``: ``values`` maps a measure to each clip's figure."""
    count = len(next(iter(values.values())))
    return [
        make_result(
            engine=engine,
            suite=suite,
            id=f"{suite}/{category}-{i}",
            category=category,
            quality={name: figures[i] for name, figures in values.items()},
            quality_models=dict(MODELS if models is None else models),
        )
        for i in range(count)
    ]


def results_file(tmp_path: Path, name: str, data: list[ItemResult]) -> list[ItemResult]:
    """``data`` written as a results file and read back, as a gate reads a run or a baseline."""
    path = tmp_path / f"{name}.jsonl"
    write_results(path, data)
    return read_results(path)


def echo_cases(suite: str) -> str:
    """A case file of one item that :func:`echo_config`'s route hears correctly."""
    return f"""\
suite: {suite}
language: en
scorer: numbers
items:
  - id: plant-1984
    category: years
    text: "The plant opened in 1984."
    expect: {{values: ["1984"]}}
"""


def echo_config() -> str:
    """ttsbench.yaml for engine ``voice``: eSpeak NG's real clips, measured, heard by a command that echoes
    the item's text (no ASR model to load)."""
    heard = [sys.executable, "-c", "print('The plant opened in 1984.')"]
    echo = f"{{type: command, name: echo, command: {json.dumps(heard)}}}"
    return f"engines:\n  voice: {{type: espeak, voice: en-us}}\nasr:\n  routes:\n    - {echo}\n"
