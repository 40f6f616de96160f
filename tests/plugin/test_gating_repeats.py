"""Repeats: N generations per item, one verdict per item by policy, and consistency across generations."""

from __future__ import annotations

import json
import textwrap

import pytest
from plugin_projects import NUMERALS, write_project

from pytest_ttsbench.figures.summary import summarize
from pytest_ttsbench.run_model.repeats import aggregate, policy_verdict
from pytest_ttsbench.run_model.results import read_results

PLAIN_NUMERALS = NUMERALS.replace("thresholds: {default: 0.5}\n", "")


@pytest.mark.parametrize(
    ("verdicts", "policy", "expected"),
    [
        (["correct", "correct", "correct"], "all", "correct"),
        (["correct", "wrong", "correct"], "all", "wrong"),
        (["correct", "wrong", "correct"], "majority", "correct"),
        (["correct", "wrong"], "majority", "wrong"),  # half is not a majority
        (["wrong", "wrong", "correct"], "majority", "wrong"),
        (["wrong", "wrong", "correct"], "any", "correct"),
        (["wrong", "unknown", "error"], "any", "wrong"),  # a three-way tie reads wrong first
        (["error", "unknown", "error"], "all", "error"),  # otherwise the commonest failure
        (["unknown", "correct", "unknown"], "majority", "unknown"),
    ],
)
def test_policy_verdict(verdicts: list[str], policy: str, expected: str) -> None:
    assert policy_verdict(verdicts, policy) == expected


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="repeat policy 'most'"):
        policy_verdict(["correct"], "most")


# An engine whose nth synthesis of an item returns the nth transcript listed for it.
CYCLING_ENGINE = textwrap.dedent(
    """\
    import json

    from pytest_ttsbench.engines.base import Synthesis


    class CyclingEngine:
        def __init__(self, profile):
            self.name = profile.name
            self.rows = json.loads((profile.base_dir / profile.option("path")).read_text(encoding="utf-8"))
            self.calls = {}

        def synthesize(self, request):
            n = self.calls.get(request.item_id, 0)
            self.calls[request.item_id] = n + 1
            texts = self.rows[request.item_id]
            return Synthesis(transcripts={"transcript": texts[n % len(texts)]}, metadata={"routes": ["transcript"]})

        def close(self):
            pass
    """
)

GENERATIONS = {
    # always correct, but heard differently once: consistent verdicts, inconsistent transcripts
    "demo-numerals/year-2026": ["The plant opened in 2026.", "It opened in 2026.", "The plant opened in 2026."],
    # correct two times in three
    "demo-numerals/pct-45": ["Turnout reached 45%.", "Turnout reached 54%.", "Turnout reached 45%."],
    # correct once in three
    "demo-numerals/time-0630": ["It leaves at 6.", "It leaves at 6.", "It leaves at 6:30."],
}


def _project(pytester: pytest.Pytester) -> None:
    write_project(
        pytester,
        cases={"n.yaml": PLAIN_NUMERALS},
        config="engines:\n  cyc: {type: cycling, path: generations.json}\n",
    )
    (pytester.path / "generations.json").write_text(json.dumps(GENERATIONS), encoding="utf-8")
    (pytester.path / "cycling_engine.py").write_text(CYCLING_ENGINE, encoding="utf-8")
    pytester.makeconftest(
        """
        from pytest_ttsbench.engines.registry import register_builtin

        register_builtin("cycling", "cycling_engine:CyclingEngine")
        """
    )
    pytester.syspathinsert()


def _table(stdout: str) -> dict[str, list[str]]:
    return {p[2]: p[3:] for p in (line.split() for line in stdout.splitlines()) if len(p) >= 9 and p[0] == "cyc"}


@pytest.mark.parametrize(
    ("policy", "verdicts", "ret"),
    [
        ("all", {"year-2026": "correct", "pct-45": "wrong", "time-0630": "wrong"}, pytest.ExitCode.TESTS_FAILED),
        ("majority", {"year-2026": "correct", "pct-45": "correct", "time-0630": "wrong"}, pytest.ExitCode.TESTS_FAILED),
        # every item is correct by the policy: its failed generations do not fail the run
        ("any", {"year-2026": "correct", "pct-45": "correct", "time-0630": "correct"}, pytest.ExitCode.OK),
    ],
)
def test_repeat_policy_decides_item_verdict_summary_and_exit(
    pytester: pytest.Pytester, policy: str, verdicts: dict[str, str], ret: pytest.ExitCode
) -> None:
    _project(pytester)
    result = pytester.runpytest(
        "--tts-engine=cyc", "--tts-results=r.jsonl", "--tts-repeats=3", f"--tts-repeat-policy={policy}", "-rfx"
    )
    # One test per generation, named -r<k>; plus ttsbench::gate, which reports the flaky items.
    if policy == "all":  # a failed generation is a failed item
        result.assert_outcomes(passed=7, failed=3)
        result.stdout.fnmatch_lines(["FAILED cases/n.yaml::demo-numerals[[]percentages/pct-45-r1[]]*"])
    else:  # one draw of several reads XFAIL; the gate fails on the items the policy judges wrong
        gate_failed = ret == pytest.ExitCode.TESTS_FAILED
        result.assert_outcomes(passed=6 + (not gate_failed), xfailed=3, failed=int(gate_failed))
        result.stdout.fnmatch_lines(["XFAIL cases/n.yaml::demo-numerals[[]percentages/pct-45-r1[]]*"])
    if policy == "majority":
        result.stdout.fnmatch_lines(
            ["  1 item(s) not correct under the 'majority' repeat policy: demo-numerals/time-0630 [[]cyc[]]"]
        )
    assert result.ret == ret
    result.stdout.fnmatch_lines(
        [
            f"repeats: 3 generations per item, policy {policy!r}; 3 of 3 item(s) differed across generations",
            # by item key, whatever order the generations finished in (xdist workers, shards)
            f"  {verdicts['pct-45']:<8} 2/3 correct  demo-numerals/pct-45 [[]cyc[]]: correct, wrong, correct*",
            f"  {verdicts['time-0630']:<8} 1/3 correct  demo-numerals/time-0630 [[]cyc[]]: wrong, wrong, correct*",
            f"  {verdicts['year-2026']:<8} 3/3 correct  demo-numerals/year-2026 [[]cyc[]]: correct, correct, correct*",
        ]
    )
    # The results file keeps every generation; the summary and the gate count items by the policy.
    rows = read_results(pytester.path / "r.jsonl")
    assert sorted((r.item_id, r.repeat) for r in rows) == sorted((i, k) for i in verdicts for k in range(3))
    items, _ = aggregate(rows, policy)
    assert {r.item_id: r.verdict for r in items} == verdicts
    table = _table(result.stdout.str())
    for (_, _, category), bucket in summarize(items, ["engine", "suite", "category"]).items():
        assert table[category][:2] == [str(bucket.n), str(bucket.correct)] == ["1", str(bucket.correct)]
    gate = json.loads((pytester.path / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["exitstatus"] == int(ret)
    assert {i["key"]: i["verdict"] for i in gate["repeats"]["items"]} == {
        f"demo-numerals/{k}": v for k, v in verdicts.items()
    }
    assert gate["repeats"]["policy"] == policy
    assert gate["repeats"]["excused_failures"] == []  # failed draws read XFAIL: nothing needs excusing
    # Flaky items (generations disagree on correctness) have their own section, whatever the policy.
    result.stdout.fnmatch_lines(
        [
            "flaky items (2): generations disagree, the verdict is a rate",
            "  2/3 correct  demo-numerals/pct-45 [[]cyc[]]",
            "  1/3 correct  demo-numerals/time-0630 [[]cyc[]]",
        ]
    )
    assert gate["repeats"]["flaky"] == ["demo-numerals/pct-45 [cyc]", "demo-numerals/time-0630 [cyc]"]
    assert {i["key"]: i["correct_rate"] for i in gate["repeats"]["items"]}["demo-numerals/pct-45"] == 0.6667


def test_a_consistent_engine_is_reported_consistent(pytester: pytest.Pytester) -> None:
    _project(pytester)
    steady = {key: [texts[0]] for key, texts in GENERATIONS.items()}
    (pytester.path / "generations.json").write_text(json.dumps(steady), encoding="utf-8")
    result = pytester.runpytest("--tts-engine=cyc", "--tts-results=r.jsonl", "--tts-repeats=2", "-k", "year or pct")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["repeats: 2 generations per item, policy 'all'; 0 of 2 item(s) differed*"])
    assert "(differs)" not in result.stdout.str()


def test_any_policy_does_not_excuse_other_failures(pytester: pytest.Pytester) -> None:
    _project(pytester)
    pytester.makepyfile(test_other="def test_broken():\n    assert False\n")
    result = pytester.runpytest(
        "--tts-engine=cyc",
        "--tts-results=r.jsonl",
        "--tts-repeats=3",
        "--tts-repeat-policy=any",
        "cases",
        "test_other.py",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gate = json.loads((pytester.path / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["repeats"]["excused_failures"] == [] and gate["exitstatus"] == 1


def test_repeats_must_be_positive(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("--tts-engine=cyc", "--tts-repeats=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tts-repeats: must be a whole number of at least 1, got '0'*"])
