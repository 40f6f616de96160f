"""End to end: releases of a non-deterministic vendor voice gated with floors, a baseline and strict snapshots.

A local OpenAI-compatible server (``POST /v1/audio/speech``) answers with real piper speech that
varies between identical requests (random speed jitter, now and then a dropped word). Release 1.0
is run once: its snapshots are recorded, its run folder is moved elsewhere (as a CI artifact
would be), verified there and saved as the baseline. Then, with everything a team would switch
on (the case file's floors, ``--tts-baseline … --tts-fail-on-regression``, ``--tts-snapshot
strict``), the unchanged voice is re-run five times and must pass every time, and a degraded
release (1.8× speed, noise above the speech) must fail every time, naming the items that
regressed, the broken floors and the gate, in the terminal and in JUnit XML.

The profile declares ``repeats: 3``: each item's verdict is taken over three generations.
Whisper decoding of 12 clips per run makes this the slowest test in the suite (a few minutes on
two cores).
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from stochastic_voice import StochasticVoice
from tts_providers import FakeOpenAI

from pytest_ttsbench.cli import main as ttsbench_main
from pytest_ttsbench.gating.baseline import compare
from pytest_ttsbench.run_model.results import read_results

pytest.importorskip("piper", reason="the stochastic vendor voice is rendered with piper-tts")

KEY_ENV = "TTSBENCH_STOCHASTIC_VENDOR_KEY"
KEY = "sk-stochastic-vendor-do-not-print"
RERUNS = 5

# The vendor's repertoire is fixed (VOICE_SEED), which variant answers a request is not. On these
# items every steady variant is heard right and alike; at 1.8x under noise year-2008 is never
# heard right, year-2026 always is, and the other two are coins.
VOICE_SEED = 1818
ITEMS = {
    "year-2008": ("years", "Many families lost their savings in the crash of 2008.", ["2008"]),
    "year-2026": ("years", "The new bridge over the river is scheduled to open in 2026.", ["2026"]),
    "range-1939-1945": ("ranges", "The war in Europe lasted from 1939 to 1945.", ["1939", "1945"]),
    "date-dec-31": ("dates", "We close the books on December 31 every year.", ["31"]),
}
ALWAYS_BROKEN = ["release/year-2008"]
NEVER_BROKEN = "release/year-2026"


def _case_file() -> str:
    items = [
        {"id": item_id, "category": category, "text": text, "expect": {"values": values}}
        for item_id, (category, text, values) in ITEMS.items()
    ]
    suite = {"suite": "release", "language": "en", "scorer": "numbers", "thresholds": {"default": 0.75}}
    return yaml.safe_dump({**suite, "items": items}, sort_keys=False)


@pytest.fixture(scope="module")
def voice() -> StochasticVoice:
    """Every variant rendered once for the module; each request draws one at random."""
    return StochasticVoice(variants=3, seed=VOICE_SEED).render(text for _, text, _ in ITEMS.values())


@pytest.fixture
def vendor(voice: StochasticVoice, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    voice.mode = "steady"
    fake = FakeOpenAI(key=KEY, speak=voice).start()
    yield fake
    fake.stop()


def _project(pytester: pytest.Pytester, url: str) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "release.yaml").write_text(_case_file(), encoding="utf-8")
    (pytester.path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            f"""\
            engines:
              vendor:
                type: openai
                base_url: {url}/v1
                model: tts-1
                voice: alloy
                api_key_env: {KEY_ENV}
                response_format: wav
                repeats: 3
            """
        ),
        encoding="utf-8",
    )


def _release(pytester: pytest.Pytester, name: str, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--tts-engine=vendor",
        f"--tts-results=runs/{name}/results.jsonl",
        f"--junitxml=runs/{name}/junit.xml",
        "--tts-repeat-policy=majority",  # a stochastic voice is judged by its majority, as the baseline is
        "--tts-cache=off",  # every release asks the vendor afresh: a cached clip would hide the new voice
        "--tts-min-n=1",  # a four-item pack: gate every category's floor
        "-p",
        "no:cacheprovider",
        *extra,
    )


def _gated(pytester: pytest.Pytester, name: str, baseline: Path) -> pytest.RunResult:
    return _release(pytester, name, f"--tts-baseline={baseline}", "--tts-fail-on-regression", "--tts-snapshot=strict")


def _junit_gate(path: Path) -> tuple[ElementTree.Element, ElementTree.Element]:
    suite = ElementTree.parse(path).getroot().find("testsuite")
    assert suite is not None
    cases = suite.iter("testcase")
    gate = next(case for case in cases if case.get("classname") == "ttsbench" and case.get("name") == "gate")
    return suite, gate


def test_unchanged_stochastic_voice_passes_every_rerun_and_a_degraded_one_fails_every_time(
    pytester: pytest.Pytester, vendor: FakeOpenAI, voice: StochasticVoice
) -> None:
    _project(pytester, vendor.url)

    # Release 1.0: record its snapshots; its results become the baseline.
    first = _release(pytester, "1.0", "--tts-snapshot=strict", "--snapshot-update")
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()
    first.stdout.fnmatch_lines(["vendor is not deterministic: identical requests gave different audio (*"])

    # The run folder leaves the machine (a CI artifact) and is checked and kept where it lands.
    moved = pytester.path / "downloaded" / "release-1.0"
    moved.parent.mkdir()
    shutil.move(pytester.path / "runs" / "1.0", moved)
    rows = [json.loads(line) for line in (moved / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(not Path(row["audio_path"]).is_absolute() for row in rows)
    assert ttsbench_main(["verify", str(moved)]) == 0
    assert ttsbench_main(["baseline", "save", str(moved), str(pytester.path / "baseline"), "--with-audio"]) == 0
    assert ttsbench_main(["verify", str(pytester.path / "baseline")]) == 0
    baseline = pytester.path / "baseline"

    # The unchanged voice, five times: floors, regressions and strict snapshots all hold.
    for rerun in range(RERUNS):
        result = _gated(pytester, f"1.0-rerun{rerun}", baseline)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        result.stdout.fnmatch_lines(["gate passed*"])
        suite, gate = _junit_gate(pytester.path / "runs" / f"1.0-rerun{rerun}" / "junit.xml")
        assert suite.get("failures") == "0" and gate.find("failure") is None

    # Release 1.1 is degraded: it must fail every time, naming what broke.
    voice.mode = "degraded"
    for rerun in range(RERUNS):
        name = f"1.1-run{rerun}"
        result = _gated(pytester, name, baseline)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["FAILED ttsbench::gate - release gate FAILED:"])
        gate_json = json.loads((pytester.path / "runs" / name / "results.gate.json").read_text(encoding="utf-8"))
        reasons = "\n".join(gate_json["reasons"])
        now = read_results(pytester.path / "runs" / name / "results.jsonl")
        expected = compare(read_results(baseline / "results.jsonl"), now)
        # The regressions named are exactly the items whose majority verdict flipped from correct.
        assert gate_json["baseline"]["blocking_regressions"] == expected.regressions
        assert set(ALWAYS_BROKEN) <= set(expected.regressions) and NEVER_BROKEN not in reasons
        for cid in expected.regressions:
            assert cid in reasons
        # Each broken floor is named with its category.
        breached = {c["category"] for c in gate_json["thresholds"] if c["breached"]}
        for category in breached:
            assert f"release/{category}: strict accuracy" in reasons
        # The cause is in front of the reader: the voice now speaks about 1.8x faster.
        assert gate_json["baseline"]["audio"]["speed_ratio"] == pytest.approx(1.8, rel=0.2)
        assert "years" in breached
        suite, gate = _junit_gate(pytester.path / "runs" / name / "junit.xml")
        failure = gate.find("failure")
        assert failure is not None and suite.get("failures") != "0"
        assert "release gate FAILED" in (failure.get("message", "") + (failure.text or ""))

    # Nothing written or printed holds the vendor key.
    for path in pytester.path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
