"""Importing the plugin loads nothing heavy: what measuring, transcribing, scoring or reporting needs loads when used.

pytest imports the plugin in every run of every project it is installed in, benchmark or not,
and ``pytest --co --tts-engine=...`` should cost about what pytest alone costs (#28). Checked in
a fresh interpreter, on behaviour (what is in ``sys.modules``), never on time. A listing run's
configuration and collection are checked against a plugin-off run in
tests/throughput/test_idle_imports.py.
"""

from __future__ import annotations

import json
import sys

from processes import run

#: third-party libraries only some runs need (measures, recognizer, audio decoding, HTTP, reports, schemas)
HEAVY = (
    "numpy",
    "scipy",
    "av",
    "faster_whisper",
    "ctranslate2",
    "onnxruntime",
    "torch",
    "pyloudnorm",
    "jiwer",
    "jinja2",
    "matplotlib",
    "httpx",
    "jsonschema",
    "pythainlp",
    "opencc",
    "babel",
    "syrupy",
)
#: the plugin's own modules that only measuring, transcribing, scoring a case or comparing snapshots needs
LATER = (
    "pytest_ttsbench.pipeline.evaluator",
    "pytest_ttsbench.audio.decoding",
    "pytest_ttsbench.asr.whisper",
    "pytest_ttsbench.quality.meter",
    "pytest_ttsbench.quality.waveform",
    "pytest_ttsbench.quality.dnsmos",
    "pytest_ttsbench.quality.similarity",
    "pytest_ttsbench.quality.summary",
    "pytest_ttsbench.scorers.numbers",
    "pytest_ttsbench.scorers.normalize",
    "pytest_ttsbench.engines.espeak",
)


def _modules_after(code: str) -> set[str]:
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = run([sys.executable, "-c", probe], timeout=300)
    return set(json.loads(done.stdout.splitlines()[-1]))


#: every module of ours importing the plugin may load: the option declarations and what they need.
#: The session, collection, gate, case loader and reports load only in a run of ours (plugin.py);
#: the YAML helpers only when a run names a file that may be a case file, the text helpers only
#: when a mistyped option needs its "did you mean" (each module costs an unrelated run its import
#: through pytest's assertion rewriter, benchmarks/idle_cost.py).
PLUGIN_IMPORT_MAY_LOAD = {
    "pytest_ttsbench",
    "pytest_ttsbench.plugin",
    "pytest_ttsbench.support",
    "pytest_ttsbench.support.option_specs",
    "pytest_ttsbench.support.plugin_options",
    "pytest_ttsbench.support.checked_numbers",  # the type of every numeric option (standard library only)
}
#: the modules #38 found at plugin import (100+ ms of an unrelated project's ``pytest --co``)
FOUND_IN_38 = (
    "pytest_ttsbench.session.gate_options",
    "pytest_ttsbench.session.benchmark",
    "pytest_ttsbench.gating.baseline",
    "pytest_ttsbench.cases.loader",
)


def test_importing_the_plugin_loads_only_the_option_declarations() -> None:
    loaded = {
        name for name in _modules_after("import pytest, pytest_ttsbench.plugin") if name.startswith("pytest_ttsbench")
    }
    assert sorted(loaded - PLUGIN_IMPORT_MAY_LOAD) == []
    assert sorted(loaded.intersection(FOUND_IN_38)) == []


def test_the_probe_sees_what_the_session_hooks_load() -> None:
    """The check above can fail: the benchmark's hooks, which a run of ours registers, load the session."""
    loaded = _modules_after("import pytest, pytest_ttsbench.session.hooks")
    assert set(FOUND_IN_38) <= loaded


def test_importing_the_plugin_loads_no_heavy_library_and_none_of_the_measuring_modules() -> None:
    baseline = {name.split(".")[0] for name in _modules_after("import pytest")}
    loaded = _modules_after("import pytest, pytest_ttsbench.plugin")
    added = {name.split(".")[0] for name in loaded} - baseline
    assert sorted(added.intersection(HEAVY)) == []
    assert sorted(loaded.intersection(LATER)) == []


def test_the_probe_sees_a_module_that_is_imported() -> None:
    """The check itself: a module the probe's code imports is listed."""
    assert {"pytest_ttsbench.quality.summary", "numpy"} <= _modules_after("import pytest_ttsbench.quality.summary")


_COUNT_DATACLASSES = """
import dataclasses, json, sys
built = []
process = dataclasses._process_class
def counting(cls, *args, **kwargs):
    built.append(f"{cls.__module__}.{cls.__qualname__}")
    return process(cls, *args, **kwargs)
dataclasses._process_class = counting
import pytest
built.clear()
{code}
print(json.dumps(built))
"""


def _dataclasses_built_by(code: str) -> list[str]:
    done = run([sys.executable, "-c", _COUNT_DATACLASSES.replace("{code}", code)], timeout=300)
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_plugin_builds_no_dataclass() -> None:
    """Building a dataclass runs generated code (several times a named tuple's cost, each): the option
    records every pytest run imports are named tuples (support/option_specs.py, support/checked_numbers.py)."""
    assert _dataclasses_built_by("import pytest_ttsbench.plugin") == []


def test_the_dataclass_probe_sees_one_built() -> None:
    assert "pytest_ttsbench.reporting.run_verdict.RunVerdict" in _dataclasses_built_by(
        "import pytest_ttsbench.reporting.run_verdict"
    )
