"""The tests of Whisper's decoding bounds pass whatever kernels CTranslate2 runs.

CTranslate2 picks its CPU kernels by instruction set (AVX-512, AVX2, AVX, generic), and the
transcripts differ between them: audio that loops on one machine is read plainly on another.
``CT2_FORCE_CPU_ISA`` makes this machine use another set, so the loop tests run here as they
would on a CPU without AVX-512; they must pass there too (they force the loop, see
tests/support/forced_decoder.py, rather than count on the model looping on some audio).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from processes import run, shown

ROOT = Path(__file__).resolve().parents[2]


def test_the_loop_bound_tests_pass_on_ctranslate2s_generic_kernels() -> None:
    env = {**os.environ, "CT2_FORCE_CPU_ISA": "GENERIC"}
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"),
        *("tests/asr/test_whisper.py", "tests/asr/test_batched.py", "tests/asr/test_cross_item.py"),
        *("-k", "looping or babble"),
    ]
    done = run(command, cwd=ROOT, env=env, timeout=900)
    assert " passed" in done.stdout and " failed" not in done.stdout, shown(done)
