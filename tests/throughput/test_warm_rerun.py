"""A rerun whose every clip, check, transcript and figure is cached starts nothing it would need to make or hear one.

Issue #28: a warm rerun of the main job cost a tenth of the cold run. Its fixed costs were the
recognizer's and the engine's start-up and decoding every clip again for its audio checks. A
fresh interpreter runs the same one-item project twice on real eSpeak NG and Whisper; the second
run must give the same row while loading no Whisper model, never initializing eSpeak NG (its
release, in the audio cache key, is read without loading voice data) and never decoding a clip
(PyAV is not even imported). Checked on what the process loaded, never on time.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from processes import run, shown

from pytest_ttsbench.audio.decoding import AudioCheck, AudioPolicy, check_identity

_PROBE = """
import json, sys
import pytest
code = pytest.main(sys.argv[1:])
from pytest_ttsbench.engines import espeak  # the process's eSpeak NG, if the run loaded it
print("STATE=" + json.dumps({"exit": int(code), "modules": sorted(sys.modules),
                             "espeak_initialized": espeak._INSTANCE is not None}))
"""

#: what making or hearing a clip loads: the recognizer's runtime and the audio decoder
NEVER_ON_A_WARM_RERUN = ("faster_whisper", "ctranslate2", "av")


def _run(project: Path, results: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH")]))
    done = run(
        [sys.executable, "-c", _PROBE, "-q", "-p", "no:cacheprovider", "--tts-engine=espeak", "--tts-progress=0",
         "--tts-cache-dir=cache", f"--tts-results={results}"],
        cwd=project, env=env, timeout=600, expect=None,
    )  # fmt: skip
    state = next((line for line in done.stdout.splitlines() if line.startswith("STATE=")), None)
    assert state is not None, shown(done)
    return json.loads(state.removeprefix("STATE="))


def _row(path: Path) -> dict:
    (line,) = path.read_text(encoding="utf-8").splitlines()
    return json.loads(line)


def test_a_warm_rerun_loads_no_recognizer_starts_no_engine_and_decodes_no_clip(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "one.yaml").write_text(
        "suite: one\nlanguage: en\nscorer: numbers\nitems:\n"
        '  - {id: a, category: totals, text: "Order 1 came to 5 dollars.", expect: {values: ["5"]}}\n',
        encoding="utf-8",
    )
    (tmp_path / "ttsbench.yaml").write_text(
        "cases: [cases]\nasr: {model: tiny.en, beam_size: 1}\nengines:\n  espeak: {type: espeak, voice: en-us}\n",
        encoding="utf-8",
    )
    cold = _run(tmp_path, "cold/results.jsonl")
    assert cold["espeak_initialized"] and "faster_whisper" in cold["modules"]  # the probe sees a real start
    warm = _run(tmp_path, "warm/results.jsonl")
    assert warm["exit"] == cold["exit"]
    assert sorted(set(NEVER_ON_A_WARM_RERUN) & {name.split(".")[0] for name in warm["modules"]}) == []
    assert not warm["espeak_initialized"]
    first, again = _row(tmp_path / "cold/results.jsonl"), _row(tmp_path / "warm/results.jsonl")
    assert set(again["cache"].values()) == {"hit"}
    for field in ("verdict", "transcript", "audio_checks", "audio_seconds", "quality", "evidence"):
        assert again[field] == first[field], field


def test_a_cached_check_is_reused_only_under_the_policy_and_limit_it_was_made_with() -> None:
    check = AudioCheck((), 1.25, 0.1, {"seconds": 1.25, "rms": 0.1, "source_format": "wav"})
    record = check.to_record(check_identity(AudioPolicy(), 30.0))
    assert AudioCheck.from_record(json.loads(json.dumps(record)), check_identity(AudioPolicy(), 30.0)) == check
    assert AudioCheck.from_record(record, check_identity(AudioPolicy(silence_rms=0.5), 30.0)) is None
    assert AudioCheck.from_record(record, check_identity(AudioPolicy(), 10.0)) is None
    # a clip cached before checks were kept
    assert AudioCheck.from_record(None, check_identity(AudioPolicy(), 30.0)) is None
