"""A pytest run that selects no engine, or only lists items, must not import the heavy libraries.

Issues: idle cost near zero; ``pytest --co --tts-engine=...`` close to the plugin-off start-up
(#28). The check compares fresh interpreters running ``pytest --co``: a heavy module the plugin
adds is a regression, whatever other installed plugins import on their own. A listing measures
nothing, so the numeric stack (scipy, numpy, pyloudnorm, the DNSMOS runtime), the recognizer,
the quality measures and jsonschema (only an invalid file's errors need it) stay unloaded.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from processes import run, shown

HEAVY = ("scipy", "numpy", "av", "faster_whisper", "ctranslate2", "matplotlib", "jsonschema", "jiwer", "httpx")
#: What a listing with an engine chosen must not load either: it measures and scores nothing.
LISTING_HEAVY = (*HEAVY, "pyloudnorm", "onnxruntime", "onnx", "speechmos", "resemblyzer", "torch")
#: The plugin's own modules that only measuring, transcribing or summarizing needs.
MEASURING_MODULES = (
    "pytest_ttsbench.pipeline.evaluator",
    "pytest_ttsbench.asr.whisper",
    "pytest_ttsbench.quality.waveform",
    "pytest_ttsbench.quality.dnsmos",
    "pytest_ttsbench.quality.similarity",
    "pytest_ttsbench.quality.summary",
)

_PROBE = """
import json, sys
import pytest
code = pytest.main(sys.argv[1:])
print("EXIT=" + str(int(code)))
print("MODULES=" + json.dumps(sorted(sys.modules)))
"""


def _listing(folder: Path, *extra: str) -> tuple[int, set[str]]:
    """A fresh ``pytest --co`` in ``folder``: its exit status and every module (dotted names) it imported."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH")]))
    done = run(
        [sys.executable, "-c", _PROBE, "--co", "-q", "-p", "no:cacheprovider", *extra],
        cwd=folder,
        env=env,
        timeout=300,
    )
    lines = done.stdout.splitlines()
    status = next((line for line in lines if line.startswith("EXIT=")), None)
    modules = next((line for line in lines if line.startswith("MODULES=")), None)
    assert status is not None and modules is not None, shown(done)
    return int(status.removeprefix("EXIT=")), set(json.loads(modules.removeprefix("MODULES=")))


def _modules(folder: Path, *extra: str) -> set[str]:
    return _listing(folder, *extra)[1]


def _top_level_modules(folder: Path, *extra: str) -> set[str]:
    return {name.split(".")[0] for name in _modules(folder, *extra)}


def test_plugin_adds_no_heavy_import_to_an_idle_run(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_nothing():\n    pass\n")
    with_plugin = _top_level_modules(tmp_path)
    without_plugin = _top_level_modules(tmp_path, "-p", "no:ttsbench")
    assert "pytest_ttsbench" in with_plugin and "pytest_ttsbench" not in without_plugin
    added = sorted(name for name in HEAVY if name in with_plugin and name not in without_plugin)
    assert added == [], f"an idle pytest run now imports {added} because of the plugin"


@pytest.mark.parametrize("configured", [False, True], ids=["unrelated", "configured"])
def test_a_plain_run_loads_only_the_plugins_option_declarations(tmp_path: Path, configured: bool) -> None:
    """No engine, no pack, no case file named: the benchmark's modules stay unloaded (#38), in a
    project that configures the plugin too, whose plain ``pytest`` is its own test run: no session,
    no report, and no YAML read, so a broken configuration or case file cannot break it."""
    (tmp_path / "test_plain.py").write_text("def test_nothing():\n    pass\n")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = '-q'\n", encoding="utf-8")
    if configured:
        (tmp_path / "ttsbench.yaml").write_text("cases: [cases]\nengines: {broken\n", encoding="utf-8")
        (tmp_path / "cases").mkdir()
        (tmp_path / "cases" / "draft.yaml").write_text("suite: [unfinished\n", encoding="utf-8")
    status, modules = _listing(tmp_path)
    ours = {name for name in modules if name.startswith("pytest_ttsbench")}
    probe = "import json, sys, pytest_ttsbench.plugin; print(json.dumps(sorted(sys.modules)))"
    declared = {name for name in json.loads(run([sys.executable, "-c", probe]).stdout) if name.startswith("pytest_")}
    assert status == 0 and "pytest_ttsbench.plugin" in ours
    # what importing the plugin loads (test_lazy_imports.py keeps that to the option declarations)
    assert sorted(ours - declared) == []
    without_plugin = {name.split(".")[0] for name in _modules(tmp_path, "-p", "no:ttsbench")}
    assert "yaml" not in {name.split(".")[0] for name in modules} - without_plugin, "a plain run read YAML"


def test_the_probe_sees_a_run_of_ours_load_the_session(tmp_path: Path) -> None:
    """The contrast, so the check above can fail: an engine selected loads the session."""
    _one_item_project(tmp_path)
    status, modules = _listing(tmp_path, "--tts-engine=espeak")
    assert status == 0 and {"pytest_ttsbench.session.benchmark", "yaml"} <= modules


def _one_item_project(folder: Path) -> None:
    (folder / "cases").mkdir()
    (folder / "cases" / "one.yaml").write_text(
        "suite: one\nlanguage: en\nscorer: numbers\nitems:\n"
        '  - {id: a, category: totals, text: "Order 1 came to 5 dollars.", expect: {values: ["5"]}}\n',
        encoding="utf-8",
    )
    (folder / "ttsbench.yaml").write_text(
        "cases: [cases]\nengines:\n  espeak: {type: espeak, voice: en-us}\n", encoding="utf-8"
    )


@pytest.mark.parametrize("quality", [[], ["--tts-quality=signal"]])
def test_listing_with_an_engine_loads_nothing_it_would_only_need_to_measure(tmp_path: Path, quality: list[str]) -> None:
    """``pytest --co --tts-engine=espeak`` lists the item without loading the measures, summaries or ASR.

    (A chosen ``dnsmos`` or ``similarity`` set loads its model at start-up even then, so a
    missing extra stops the run before anything else.)"""
    _one_item_project(tmp_path)
    status, listed = _listing(tmp_path, "--tts-engine=espeak", *quality)
    without_plugin = _modules(tmp_path, "-p", "no:ttsbench")
    assert status == 0, "the one item was not listed"
    added = {name.split(".")[0] for name in listed - without_plugin}
    assert sorted(added.intersection(LISTING_HEAVY)) == []
    assert sorted(set(MEASURING_MODULES) & listed) == []
