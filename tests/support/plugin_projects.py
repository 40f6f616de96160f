"""Small, self-contained projects for driving the plugin through pytester (`from plugin_projects import …`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

NUMERALS = """\
suite: demo-numerals
language: en
scorer: numbers
thresholds: {default: 0.5}
items:
  - id: year-2026
    category: years
    facets: {form: western}
    text: "The plant opened in 2026."
    expect: {values: ["2026"]}
  - id: pct-45
    category: percentages
    facets: {form: western}
    text: "Turnout reached 45% this year."
    expect: {values: ["45"]}
  - id: time-0630
    category: times
    facets: {form: spelled}
    text: "The train leaves at 6:30."
    expect: {values: ["6", "30"]}
"""

NEWS = """\
suite: demo-news
language: zh
scorer: readings
items:
  - id: m-001
    category: military_model
    text: "航展首日，歼-20与运-20同场亮相。"
    expect:
      targets:
        - {span: "歼-20", positive: ["歼二十", "歼二零"], negative: ["歼负二十", "歼杠二十"]}
        - {span: "运-20", positive: ["运二十"], negative: ["运负二十"], auto_evaluable: false}
"""

TRANSCRIPTS = {
    "demo-numerals/year-2026": "The plant opened in 2026.",
    "demo-numerals/pct-45": "Turnout reached 54 percent this year.",
    "demo-numerals/time-0630": "The train leaves at 6:30.",
    "demo-news/m-001": "航展首日，歼负二十与运二十同场亮相。",
}


# A Thai keyword item with its three text contracts (raw, mono, bilingual).
THAI = """\
suite: demo-th
language: th
scorer: keyword
items:
  - id: cs-1
    category: code_switch
    text: "ผมติดตั้งแอป LINE ใหม่"
    text_mono: "ผมติดตั้งแอปไลน์ใหม่"
    text_bilingual: "ผมติดตั้งแอป LINE (ไลน์) ใหม่"
    expect: {keyword: "LINE", expected: "ไลน์", alternates: ["LINE"]}
"""

# TRANSCRIPTS with pct-45 heard right: every numerals item passes.
PASSING_TRANSCRIPTS = {**TRANSCRIPTS, "demo-numerals/pct-45": "Turnout reached 45 percent this year."}

# A conftest that, when TTSBENCH_TEST_PAUSED names a file, creates it after the process's first
# item (its row written) and waits until ``<that file>.go`` exists: a run caught midway, to be
# let go or killed (start_paused_run).
PAUSE_AFTER_FIRST_ITEM = """\
import os, time
from pathlib import Path

def pytest_runtest_teardown(item):
    marker = os.environ.get("TTSBENCH_TEST_PAUSED")
    if marker and not Path(marker).exists():
        Path(marker).touch()
        while not Path(marker + ".go").exists():
            time.sleep(0.05)
"""


def start_paused_run(root: Path, *args: str, own_group: bool = False) -> tuple[subprocess.Popen[str], Path]:
    """``pytest *args`` in ``root`` in a process of its own (the project's conftest being
    :data:`PAUSE_AFTER_FIRST_ITEM`), returned once it is paused after its first item, with the
    file whose creation lets it go on. ``own_group``: in a process group of its own, so a test may
    signal the run and every process it started (as a cancelled CI job is) and nothing else."""
    marker = root / f"paused-{time.monotonic_ns()}"
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTEST_ADDOPTS": "", "TTSBENCH_TEST_PAUSED": str(marker)},
        start_new_session=own_group,
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        if run.poll() is not None or time.monotonic() > deadline:
            run.kill()
            raise AssertionError(f"the run never paused:\n{run.communicate()[0]}")
        time.sleep(0.05)
    return run, Path(f"{marker}.go")


def write_project(
    pytester: pytest.Pytester,
    cases: dict[str, str] | None = None,
    transcripts: dict[str, str] | None = None,
    config: str | None = None,
) -> Path:
    """A project with case files under cases/, a replay transcripts file and ttsbench.yaml."""
    for name, body in (
        cases if cases is not None else {"demo-numerals.yaml": NUMERALS, "demo-news.yaml": NEWS}
    ).items():
        path = pytester.path / "cases" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    rows = transcripts if transcripts is not None else TRANSCRIPTS
    (pytester.path / "runs").mkdir(exist_ok=True)
    (pytester.path / "runs" / "replay.jsonl").write_text(
        "".join(json.dumps({"id": k, "text": v}, ensure_ascii=False) + "\n" for k, v in rows.items()),
        encoding="utf-8",
    )
    (pytester.path / "ttsbench.yaml").write_text(
        config
        or textwrap.dedent(
            """\
            engines:
              replay: {type: transcripts, path: runs/replay.jsonl}
            """
        ),
        encoding="utf-8",
    )
    return pytester.path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_cloud_echo_project(
    pytester: pytest.Pytester,
    cases: dict[str, str],
    base_url: str,
    key_env: str,
    heard: str = "It opened in 2026.",
    **engine_options: Any,
) -> Path:
    """A project whose engine ``cloud`` is an OpenAI-speaking server at ``base_url`` (wav replies)
    and whose only ASR route is a command that "hears" ``heard``: no Whisper, so the run is quick."""
    for name, body in cases.items():
        path = pytester.path / "cases" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    route = {"type": "command", "name": "echo", "command": [sys.executable, "-c", f"print({heard!r})"]}
    cloud = {
        "type": "openai",
        "base_url": f"{base_url}/v1",
        "model": "tts-1",
        "voice": "alloy",
        "api_key_env": key_env,
        "response_format": "wav",
        **engine_options,
    }
    config = {"asr": {"routes": [route]}, "engines": {"cloud": cloud}}
    (pytester.path / "ttsbench.yaml").write_text(json.dumps(config, indent=2), encoding="utf-8")  # JSON is YAML
    return pytester.path
