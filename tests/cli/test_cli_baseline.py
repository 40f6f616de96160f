"""Relocatable runs: relative clip paths, a manifest with no absolute path, ``verify`` on a moved run,
``ttsbench baseline save`` and gating against the saved baseline; and the determinism probe.

The engine here returns bytes that are not audio, so every clip is kept with its reason (an
``error`` verdict) and no recognizer runs: the test is about files, not speech.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from plugin_projects import write_project

from pytest_ttsbench.cli import main as ttsbench_main
from pytest_ttsbench.run_model.results import read_results

CASES = """\
suite: files
language: en
scorer: numbers
items:
  - {id: one, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
  - {id: two, category: years, text: "It closed in 1999.", expect: {values: ["1999"]}}
"""

# Bytes that cannot be decoded: random (a stochastic "voice") or the same every time.
BYTES_ENGINE = textwrap.dedent(
    """\
    import os

    from pytest_ttsbench.engines.base import Synthesis


    class BytesEngine:
        def __init__(self, profile):
            self.name = profile.name
            self.random = profile.option("random", False)

        def synthesize(self, request):
            body = os.urandom(64) if self.random else request.text.encode() * 4
            return Synthesis(audio=b"NOTAUDIO" + body, media_type="audio/wav")

        def close(self):
            pass
    """
)
CONFIG = """\
runs_dir: runs
engines:
  steady: {type: bytes}
  jittery: {type: bytes, random: true}
"""


def _project(pytester: pytest.Pytester) -> Path:
    write_project(pytester, cases={"files.yaml": CASES}, config=CONFIG)
    (pytester.path / "bytes_engine.py").write_text(BYTES_ENGINE, encoding="utf-8")
    pytester.makeconftest(
        """
        from pytest_ttsbench.engines.registry import register_builtin

        register_builtin("bytes", "bytes_engine:BytesEngine")
        """
    )
    pytester.syspathinsert()
    return pytester.path


def _only_run(folder: Path) -> Path:
    (run,) = [p for p in folder.iterdir() if p.is_dir()]
    return run


def test_a_moved_run_verifies_becomes_a_baseline_and_gates(pytester: pytest.Pytester, capsys) -> None:
    project = _project(pytester)
    pytester.runpytest("--tts-engine=steady", "-p", "no:cacheprovider")
    run = _only_run(project / "runs")
    lines = [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines and all(row["audio_path"].startswith("audio/") for row in lines)  # relative to the run folder
    manifest = json.loads((run / "manifest.sha256.json").read_text(encoding="utf-8"))
    assert not any(Path(key).is_absolute() for key in manifest["files"])
    assert manifest["files"]["cases/files.yaml"]["root"] == "project"

    # Downloaded elsewhere, without the project: its own files verify, project inputs are "not here".
    elsewhere = pytester.path.parent / f"{pytester.path.name}-artifact" / run.name
    shutil.copytree(run, elsewhere)
    shutil.rmtree(run.parent)
    monkey_cwd = pytest.MonkeyPatch()
    monkey_cwd.chdir(elsewhere.parent)
    try:
        (project / "cases" / "files.yaml").rename(project / "cases" / "files.yaml.away")
        assert ttsbench_main(["verify", str(elsewhere)]) == 0
        out = capsys.readouterr().out
        assert "OK" in out and "not checked (project input not present here): cases/files.yaml" in out
        (project / "cases" / "files.yaml.away").rename(project / "cases" / "files.yaml")
        assert ttsbench_main(["verify", str(elsewhere), "--project", str(project)]) == 0
        # A clip edited after the run is named.
        clip = next((elsewhere / "audio").rglob("*.wav"))
        clip.write_bytes(clip.read_bytes() + b"x")
        assert ttsbench_main(["verify", str(elsewhere)]) == 1
        assert "modified: audio/" in capsys.readouterr().out
        assert ttsbench_main(["baseline", "save", str(elsewhere), str(project / "baseline")]) == 1  # refused
        clip.write_bytes(clip.read_bytes()[:-1])

        assert ttsbench_main(["baseline", "save", str(elsewhere), str(project / "baseline"), "--with-audio"]) == 0
    finally:
        monkey_cwd.undo()
    baseline = project / "baseline"
    assert sorted(p.name for p in baseline.iterdir()) == [
        "audio",
        "manifest.sha256.json",
        "results.gate.json",
        "results.jsonl",
        "results.run.json",  # the run header: what the baseline was made with
    ]
    assert ttsbench_main(["verify", str(baseline)]) == 0
    rows = read_results(baseline / "results.jsonl")
    assert all(Path(row.audio_path or "").is_file() for row in rows)
    assert ttsbench_main(["baseline", "save", str(elsewhere), str(project / "cases")]) == 1  # not an empty folder

    gated = pytester.runpytest(
        "--tts-engine=steady", f"--tts-baseline={baseline}", "--tts-fail-on-regression", "-p", "no:cacheprovider"
    )
    gated.stdout.fnmatch_lines(["*2 paired target(s): 0 regression(s)*"])


def test_the_probe_says_when_identical_requests_give_different_audio(pytester: pytest.Pytester) -> None:
    _project(pytester)
    jittery = pytester.runpytest("--tts-engine=jittery", "--tts-results=j.jsonl", "-p", "no:cacheprovider")
    jittery.stdout.fnmatch_lines(
        [
            "jittery is not deterministic: identical requests gave different audio (1 of 1 checked); "
            "set `repeats: 3` in its profile (or --tts-repeats 3)*"
        ]
    )
    assert json.loads((pytester.path / "j.gate.json").read_text(encoding="utf-8"))["nondeterministic"] == {
        "jittery": {"varied": 1, "checked": 1}
    }
    steady = pytester.runpytest("--tts-engine=steady", "--tts-results=s.jsonl", "-p", "no:cacheprovider")
    assert "not deterministic" not in steady.stdout.str()
    # With a profile's repeats, the generations themselves show it; no extra request is made.
    (pytester.path / "ttsbench.yaml").write_text(CONFIG.replace("random: true}", "random: true, repeats: 2}"))
    repeated = pytester.runpytest("--tts-engine=jittery", "--tts-results=r.jsonl", "-p", "no:cacheprovider")
    repeated.stdout.fnmatch_lines(["jittery is not deterministic: * (2 of 2 checked); each item's verdict is taken*"])
    rows = read_results(pytester.path / "r.jsonl")
    assert sorted((row.item_id, row.repeat) for row in rows) == [("one", 0), ("one", 1), ("two", 0), ("two", 1)]
    assert all(row.audio_varies is None for row in rows)


def test_a_bad_profile_repeats_is_a_usage_error(pytester: pytest.Pytester) -> None:
    _project(pytester)
    (pytester.path / "ttsbench.yaml").write_text(CONFIG.replace("random: true}", "random: true, repeats: 0}"))
    result = pytester.runpytest("--tts-engine=jittery")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*engines.jittery.repeats*"])
