"""A run holds numpy's BLAS to one thread once Whisper or DNSMOS loads its model (#28: OpenBLAS's
idle threads spun on the cores Whisper and DNSMOS compute on), in its own process only.

Each check runs in a fresh process started with ``OPENBLAS_NUM_THREADS=2``, so BLAS starts with
two threads on any machine, one core or many.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from processes import run

ROOT = Path(__file__).resolve().parents[2]

REPORT = """
import json
from threadpoolctl import threadpool_info
print(json.dumps(sorted({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})))
"""


def _blas_threads_after(setup: str, **env: str) -> list[int]:
    done = run(
        [sys.executable, "-c", setup + REPORT],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "2", "PYTHONPATH": str(ROOT), **env},
    )
    return list(json.loads(done.stdout.splitlines()[-1]))


LOAD_WHISPER = """
from pytest_ttsbench.asr.models import resolve_model
from pytest_ttsbench.asr.whisper import load_model
load_model(resolve_model("tiny.en"))
"""


def test_numpy_alone_keeps_the_threads_it_was_given() -> None:
    """The baseline the checks below move from: without the plugin loading a model, BLAS has two."""
    assert _blas_threads_after("import numpy\n") == [2]


def test_loading_whisper_holds_blas_to_one_thread() -> None:
    assert _blas_threads_after(LOAD_WHISPER) == [1]


def test_loading_dnsmos_holds_blas_to_one_thread() -> None:
    pytest.importorskip("speechmos", reason='DNSMOS needs the [quality] extra: pip install "pytest-ttsbench[quality]"')
    assert _blas_threads_after("from pytest_ttsbench.quality.dnsmos import Dnsmos\nDnsmos()\n") == [1]


def test_the_number_is_set_by_the_environment_and_0_leaves_blas_alone() -> None:
    assert _blas_threads_after(LOAD_WHISPER, TTSBENCH_BLAS_THREADS="0") == [2]
    assert _blas_threads_after(LOAD_WHISPER, TTSBENCH_BLAS_THREADS="2", OPENBLAS_NUM_THREADS="1") == [2]


def test_a_number_that_is_not_one_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_ttsbench.support.blas_threads import blas_threads

    for text in ("one", "-1", "1.5"):
        monkeypatch.setenv("TTSBENCH_BLAS_THREADS", text)
        with pytest.raises(ValueError, match="TTSBENCH_BLAS_THREADS"):
            blas_threads()


def test_the_engines_processes_inherit_no_limit() -> None:
    """The limit is threadpoolctl's, inside this process: a process it starts (an engine, a
    recognizer's command) gets BLAS as its environment says."""
    child = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {'import numpy' + REPORT!r}], check=True)\n"
    done = run(
        [sys.executable, "-c", LOAD_WHISPER + child],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "2", "PYTHONPATH": str(ROOT)},
    )
    assert json.loads(done.stdout.splitlines()[-1]) == [2]
