"""Latency budgets: a slowed local provider fails its budget and its baseline; a fast one passes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from plugin_projects import write_cloud_echo_project
from result_rows import make_result
from tts_providers import FakeOpenAI, Recorded, Reply

from pytest_ttsbench.gating.latency import (
    LatencyError,
    compare_latency,
    config_budgets,
    merge_budgets,
    parse_budgets,
    parse_compare_fail,
    parse_duration,
)
from pytest_ttsbench.run_model.results import write_results

KEY_ENV = "TTSBENCH_LATENCY_KEY"
CASES = """\
suite: lat
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, text: "It opened in 2026 again.", expect: {values: ["2026"]}}
  - {id: c, category: years, text: "It opened in 2026 at last.", expect: {values: ["2026"]}}
"""


class SlowOpenAI(FakeOpenAI):
    """The OpenAI fake, answering every request after ``delay`` seconds."""

    delay = 0.0

    def handle(self, req: Recorded) -> Reply:
        time.sleep(self.delay)
        return super().handle(req)


@pytest.fixture
def provider(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, "test-key-correct")
    fake = SlowOpenAI().start()
    write_cloud_echo_project(pytester, {"lat.yaml": CASES}, fake.url, KEY_ENV)
    yield fake
    fake.stop()


def _gate(root: Path, name: str) -> dict:
    return json.loads((root / name / "results.gate.json").read_text(encoding="utf-8"))


def test_a_slowed_server_fails_its_budget_and_a_fast_one_passes(pytester: pytest.Pytester, provider) -> None:
    provider.delay = 0.6
    slow = pytester.runpytest(
        "--tts-engine=cloud", "--tts-results=slow/results.jsonl", "--tts-latency-budget=cloud=p95:500ms"
    )
    assert slow.ret == pytest.ExitCode.TESTS_FAILED
    slow.stdout.fnmatch_lines(["*cloud: synthesis latency p95 * ms over budget 500 ms (3 request(s))*"])
    (budget,) = _gate(pytester.path, "slow")["latency"]["budgets"]
    assert budget["status"] == "over budget" and budget["measured_seconds"] >= 0.6

    provider.delay = 0.0
    before = len(provider.requests)
    fast = pytester.runpytest(
        "--tts-engine=cloud", "--tts-results=fast/results.jsonl", "--tts-latency-budget=cloud=p95:500ms"
    )
    assert fast.ret == pytest.ExitCode.OK
    # The same texts again, but a latency budget needs real requests: none of the three clips comes from
    # the cache (a fourth request is the run's probe for non-deterministic audio).
    assert len(provider.requests) - before >= 3
    (budget,) = _gate(pytester.path, "fast")["latency"]["budgets"]
    assert budget["status"] == "within budget" and budget["measured_seconds"] < 0.5


def test_a_slowdown_against_the_baseline_beyond_the_tolerance_fails(pytester: pytest.Pytester, provider) -> None:
    # The baseline: the same three items answered in 50 ms each (written as a run writes them, so a
    # loaded test machine cannot slow the baseline down and hide the slowdown).
    base = [make_result(engine="cloud", suite="lat", id=f"lat/{i}", synth_seconds=0.05) for i in "abc"]
    write_results(pytester.path / "base" / "results.jsonl", base)
    provider.delay = 0.6
    options = ["--tts-engine=cloud", "--tts-baseline=base/results.jsonl", "--tts-allow-unverified"]  # no manifest
    slower = pytester.runpytest(*options, "--tts-latency-compare-fail=p95:50%", "--tts-results=slower/results.jsonl")
    assert slower.ret == pytest.ExitCode.TESTS_FAILED
    (change,) = _gate(pytester.path, "slower")["latency"]["baseline"]
    assert change["slower_than_tolerated"] is True and change["ratio"] > 1.5
    assert change["baseline_seconds"] == pytest.approx(0.05) and change["candidate_seconds"] >= 0.6
    slower.stdout.fnmatch_lines(["*cloud: synthesis latency p95 * ms is *x the baseline's 50 ms (tolerance +50%)*"])
    # The same slowdown inside a generous tolerance passes.
    tolerant = pytester.runpytest(
        *options, "--tts-latency-compare-fail=p95:10000%", "--tts-results=tolerant/results.jsonl"
    )
    assert tolerant.ret == pytest.ExitCode.OK


def test_budgets_come_from_the_configuration_and_the_command_line_wins() -> None:
    assert parse_duration("800ms", "x") == 0.8 and parse_duration("1.5s", "x") == 1.5 and parse_duration(2, "x") == 2
    cli = parse_budgets(["cloud=p95:300ms,first_audio_p95:100ms"])
    config = config_budgets({"cloud": {"p95": "1s", "p50": 0.2}})
    merged = {(b.engine, b.metric): b.seconds for b in merge_budgets(cli, config)}
    assert merged == {("cloud", "p95"): 0.3, ("cloud", "first_audio_p95"): 0.1, ("cloud", "p50"): 0.2}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parse_budgets(["cloud"]), "expected ENGINE=FIGURE:DURATION"),
        (lambda: parse_budgets(["cloud=p99:1s"]), "unknown latency figure 'p99'"),
        (lambda: parse_budgets(["cloud=p95:fast"]), "expected a positive duration"),
        (lambda: parse_compare_fail(["p95:twenty"]), "expected FIGURE:PERCENT"),
        (lambda: config_budgets({"cloud": {"p95": "-1s"}}, "ttsbench.yaml"), r"latency_budgets\.cloud\.p95"),
    ],
)
def test_bad_budgets_name_themselves(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LatencyError, match=message):
        call()


def test_a_figure_missing_from_one_run_is_not_compared() -> None:
    base = [make_result(engine="e", id=f"s/{i}", synth_seconds=0.1) for i in range(3)]
    cand = [make_result(engine="e", id=f"s/{i}", synth_seconds=0.3) for i in range(3)]
    (change,) = compare_latency(base, cand, parse_compare_fail(["p95:50%", "first_audio_p95:10%"]))
    assert change.metric == "p95" and change.slower and change.ratio == pytest.approx(3.0)


def test_a_bad_budget_is_a_usage_error(pytester: pytest.Pytester, provider) -> None:
    result = pytester.runpytest("--tts-engine=cloud", "--tts-latency-budget=cloud=p95")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tts-latency-budget 'cloud=p95': expected FIGURE:DURATION*"])
