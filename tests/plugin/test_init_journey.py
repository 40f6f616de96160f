"""A product team's first day (issue 38, point 2): in an empty git repository, with the package
installed (the running interpreter), ``ttsbench init`` leaves their ordinary ``pytest`` alone,
writes a valid workflow, and records the first run so that the workflow's gate is green on the
unchanged voice and red on a regression.

The voice is the configuration's ``replay`` profile (stored transcripts, no synthesis or ASR):
every shipped item heard as its own text, so the items a text cannot pass as heard (readings
spelled out, say) fail today and are recorded as known gaps.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from processes import run, shown

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.cases.packs import shipped_packs

#: the gate step of the generated workflow, as it runs once known gaps and a baseline are committed
GATE = ["--tts-engine=replay", "--tts-cache=off", "--tts-baseline", "baselines/replay", "--tts-fail-on-regression"]
GATE += ["--tts-max-regressions", "0", "--tts-results=runs/replay/results.jsonl", "-p", "no:cacheprovider"]


def _run(repo: Path, *argv: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env.pop("GITHUB_ACTIONS", None), env.pop("GITHUB_STEP_SUMMARY", None)
    return run([sys.executable, *argv], cwd=repo, env=env, timeout=timeout, expect=None)


def _heard_as_written(repo: Path) -> dict[str, str]:
    transcripts = {
        item.full_id: item.text
        for pack in shipped_packs().values()
        for path in pack.files
        for item in load_case_file(path).items
    }
    _write_transcripts(repo, transcripts)
    return transcripts


def _write_transcripts(repo: Path, transcripts: dict[str, str]) -> None:
    lines = [json.dumps({"id": key, "text": text}, ensure_ascii=False) for key, text in transcripts.items()]
    (repo / "transcripts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "product"
    repo.mkdir()
    run(["git", "init", "-q", str(repo)])
    return repo


def test_init_then_a_plain_pytest_then_the_first_gated_runs(repo: Path) -> None:
    transcripts = _heard_as_written(repo)
    done = _run(repo, "-m", "pytest_ttsbench.cli", "init", "--engine", "replay", "--record-known-gaps")
    assert done.returncode == 0, shown(done)
    assert (repo / "known_gaps" / "replay.yaml").is_file() and (repo / "baselines" / "replay").is_dir()

    workflow = repo / ".github" / "workflows" / "ttsbench.yml"
    checked = _run(repo, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow))
    assert checked.returncode == 0, shown(checked)
    jobs = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]
    assert set(jobs) == {"gate-replay", "nightly"}
    steps = json.dumps(jobs)
    assert "secrets." not in steps, "the replay profile reads no key: no job is handed one"
    assert "--tts-baseline baselines/replay" in steps and "ttsbench-history" in steps

    # The team's own tests, and a broken case file: a plain pytest runs theirs, reports nothing of ours.
    (repo / "test_app.py").write_text("def test_app():\n    assert True\n", encoding="utf-8")
    (repo / "cases").mkdir()
    (repo / "cases" / "draft.yaml").write_text("suite: draft\nitems: [\n", encoding="utf-8")
    plain = _run(repo, "-m", "pytest", "-p", "no:cacheprovider", "-rs")
    assert plain.returncode == 0, shown(plain)
    assert (
        "1 passed" in plain.stdout
        and "skipped" not in plain.stdout
        and "ttsbench" not in plain.stdout.replace("ttsbench-", "")
    ), shown(plain)
    # ... and the run that uses the case folder says what is wrong, and where.
    gated = _run(repo, "-m", "pytest", *GATE)
    assert gated.returncode == pytest.ExitCode.INTERRUPTED, shown(gated)
    assert "cases/draft.yaml:3: field '(file)': not valid YAML" in gated.stdout, shown(gated)
    (repo / "cases" / "draft.yaml").unlink()

    # The unchanged voice passes the workflow's gate ...
    green = _run(repo, "-m", "pytest", *GATE)
    assert green.returncode == 0, shown(green)
    # ... and one item it said right, now said wrong, fails it.
    baseline = [json.loads(line) for line in (repo / "baselines" / "replay" / "results.jsonl").open(encoding="utf-8")]
    regressed = next(row["id"] for row in baseline if row["verdict"] == "correct" and row["suite"] == "en-numerals")
    _write_transcripts(repo, {**transcripts, regressed: "nothing that was asked"})
    shutil.rmtree(repo / "runs")  # each CI job starts from a fresh checkout
    red = _run(repo, "-m", "pytest", *GATE)
    assert red.returncode == pytest.ExitCode.TESTS_FAILED, shown(red)
    assert "regression" in red.stdout and regressed in red.stdout, shown(red)
