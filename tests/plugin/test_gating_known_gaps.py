"""Known gaps: XFAIL for a known failure, XPASS for a fixed one, validation, and rewriting the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from plugin_projects import NEWS, NUMERALS, TRANSCRIPTS, write_project

from pytest_ttsbench.run_model.known_gaps import Gap, KnownGaps, KnownGapsError, load_known_gaps, updated_gaps

# No floors here: these tests are about the gaps alone.
PLAIN_NUMERALS = NUMERALS.replace("thresholds: {default: 0.5}\n", "")
FIXED = {**TRANSCRIPTS, "demo-numerals/pct-45": "Turnout reached 45 percent this year."}


def _gaps(pytester: pytest.Pytester, body: str) -> Path:
    path = pytester.path / "known_gaps" / "replay.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


PCT_GAP = "engine: replay\ngaps:\n  - id: demo-numerals/pct-45\n    reason: swaps the digits\n"


def test_known_failure_is_xfail_and_the_run_passes(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS})
    _gaps(pytester, PCT_GAP + "    link: https://example.org/tracker/7\n")
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=r.jsonl", "-rx")
    result.assert_outcomes(passed=2, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*pct-45*known gap: swaps the digits (https://example.org/tracker/7)*"])
    result.stdout.fnmatch_lines(["known gaps: 1 still failing (XFAIL), 0 fixed (XPASS)"])


def test_a_run_whose_only_change_is_a_fixed_gap(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=FIXED)
    _gaps(pytester, PCT_GAP)
    relaxed = pytester.runpytest("--tts-engine=replay", "--tts-results=a.jsonl")
    relaxed.assert_outcomes(passed=2, xpassed=1)
    assert relaxed.ret == pytest.ExitCode.OK
    relaxed.stdout.fnmatch_lines(["  fixed known gap: demo-numerals/pct-45 [replay]"])
    strict = pytester.runpytest("--tts-engine=replay", "--tts-results=b.jsonl", "--tts-strict-xfail")
    strict.assert_outcomes(passed=2, failed=1)
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(["*XPASS(strict)*known gap: swaps the digits*"])
    gate = json.loads((pytester.path / "b.gate.json").read_text(encoding="utf-8"))
    assert gate["known_gaps"]["fixed"] == ["demo-numerals/pct-45 [replay]"]
    assert gate["exitstatus"] == 1


def test_readings_gap_by_target_or_by_item(pytester: pytest.Pytester) -> None:
    news = NEWS.replace(", auto_evaluable: false}", "}")  # both targets auto-evaluable: 歼-20 wrong, 运-20 correct
    write_project(pytester, cases={"news.yaml": news})
    _gaps(pytester, "engine: replay\ngaps:\n  - id: demo-news/m-001/歼-20\n    reason: minus\n")
    by_target = pytester.runpytest("--tts-engine=replay", "--tts-results=a.jsonl")
    by_target.assert_outcomes(passed=1, xfailed=1)
    _gaps(pytester, "engine: replay\ngaps:\n  - id: demo-news/m-001\n    reason: minus\n")
    by_item = pytester.runpytest("--tts-engine=replay", "--tts-results=b.jsonl")
    by_item.assert_outcomes(xpassed=1, xfailed=1)


def test_unmatched_id_is_reported(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS})
    _gaps(pytester, PCT_GAP + "  - id: demo-numerals/pct-54\n    reason: typo in the id\n")
    result = pytester.runpytest("--tts-engine=replay", "--tts-results=r.jsonl")
    result.stdout.fnmatch_lines(["  known gap matches no collected item (replay): demo-numerals/pct-54"])
    assert "matches no collected item (replay): demo-numerals/pct-45" not in result.stdout.str()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("engine: replay\ngaps:\n  - id: demo-numerals/pct-45\n", r"field gaps\.0: 'reason' is a required property"),
        ("engine: other\ngaps: []\n", r"field engine: 'other' does not match the profile name 'replay'"),
        ("engine: replay\ngaps:\n  - {id: s/x, reason: r, note: n}\n", r"field gaps\.0: Additional properties"),
        ("engine: replay\ngaps:\n  - {id: just-an-item, reason: r}\n", r"field gaps\.0\.id: 'just-an-item' does not"),
        (
            "engine: replay\ngaps:\n  - {id: s/x, reason: a}\n  - {id: s/x, reason: b}\n",
            r"gaps\.1\.id: 's/x' is listed",
        ),
        ("engine: replay\n", r"field \(top level\): 'gaps' is a required property"),
        ("engine: replay\ngaps: [\n", r"not valid YAML"),
    ],
)
def test_invalid_file_names_file_and_field(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "replay.yaml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(KnownGapsError, match=message) as info:
        load_known_gaps(path, "replay")
    assert str(path) in str(info.value)


def test_invalid_file_stops_the_run(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS})
    _gaps(pytester, "engine: replay\ngaps:\n  - id: demo-numerals/pct-45\n")
    result = pytester.runpytest("--tts-engine=replay")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*known_gaps/replay.yaml: field gaps.0: 'reason' is a required property*"])


def test_missing_file_means_no_gaps(tmp_path: Path) -> None:
    gaps = load_known_gaps(tmp_path / "nope.yaml", "replay")
    assert gaps.gaps == [] and not gaps.exists


@pytest.mark.parametrize(
    ("existing", "verdicts", "expected"),
    [
        # a still-failing gap keeps its reason and link; a new failure is added with no reason
        (
            [Gap("s/a", "why", "https://t/1")],
            {("s/a", "s/a"): "wrong", ("s/b", "s/b"): "unknown", ("s/c", "s/c"): "correct"},
            [Gap("s/a", "why", "https://t/1"), Gap("s/b")],
        ),
        # a fixed gap is dropped; an error is a failure too
        ([Gap("s/a", "why")], {("s/a", "s/a"): "correct", ("s/d", "s/d"): "error"}, [Gap("s/d")]),
        # a gap whose item did not run is kept
        ([Gap("s/zzz", "elsewhere")], {("s/a", "s/a"): "correct"}, [Gap("s/zzz", "elsewhere")]),
        # an item-level gap covers its targets: fixed only when every target is correct
        ([Gap("s/m", "r")], {("s/m", "s/m/A"): "correct", ("s/m", "s/m/B"): "wrong"}, [Gap("s/m", "r")]),
        ([Gap("s/m", "r")], {("s/m", "s/m/A"): "correct", ("s/m", "s/m/B"): "correct"}, []),
        # a failing target not covered by any gap is added under its own key
        ([], {("s/m", "s/m/A"): "wrong"}, [Gap("s/m/A")]),
    ],
)
def test_updated_gaps(existing: list[Gap], verdicts: dict, expected: list[Gap]) -> None:
    assert updated_gaps(KnownGaps("e", Path("e.yaml"), existing), verdicts) == expected


def test_update_known_gaps_rewrites_the_file(pytester: pytest.Pytester) -> None:
    write_project(
        pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts={**FIXED, "demo-numerals/time-0630": "at six"}
    )
    path = _gaps(
        pytester,
        "engine: replay\ngaps:\n"
        "  - {id: demo-numerals/pct-45, reason: swaps the digits}\n"  # fixed now → dropped
        "  - {id: demo-numerals/year-2026, reason: deselected, link: https://t/2}\n",  # not run → kept
    )
    result = pytester.runpytest(
        "--tts-engine=replay", "--tts-results=r.jsonl", "--tts-update-known-gaps", "-k", "not year"
    )
    result.stdout.fnmatch_lines(["  rewrote known_gaps/replay.yaml"])  # relative to where pytest was started
    written = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert written == {
        "engine": "replay",
        "gaps": [
            {"id": "demo-numerals/year-2026", "reason": "deselected", "link": "https://t/2"},
            {"id": "demo-numerals/time-0630", "reason": ""},
        ],
    }
    # The rewritten file is valid and makes the next run green.
    again = pytester.runpytest("--tts-engine=replay", "--tts-results=r2.jsonl", "-k", "not year")
    again.assert_outcomes(passed=1, xfailed=1)
    assert again.ret == pytest.ExitCode.OK


def test_xdist_known_gaps_on_the_controller(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=FIXED)
    path = _gaps(
        pytester,
        PCT_GAP
        + "  - {id: demo-numerals/time-0630, reason: clock}\n"  # correct now → XPASS
        + "  - {id: demo-numerals/gone, reason: removed item}\n",
    )
    path.write_text(path.read_text(encoding="utf-8").replace("pct-45", "year-2026"), encoding="utf-8")
    result = pytester.runpytest_subprocess(
        "-n", "2", "--tts-engine=replay", "--tts-results=r.jsonl", "--tts-strict-xfail", "--tts-update-known-gaps"
    )
    result.assert_outcomes(passed=1, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["  known gap matches no collected item (replay): demo-numerals/gone"])
    assert "matches no collected item (replay): demo-numerals/year-2026" not in result.stdout.str()
    gate = json.loads((pytester.path / "r.gate.json").read_text(encoding="utf-8"))
    assert sorted(gate["known_gaps"]["fixed"]) == [
        "demo-numerals/time-0630 [replay]",
        "demo-numerals/year-2026 [replay]",
    ]
    assert gate["known_gaps"]["unmatched"] == {"replay": ["demo-numerals/gone"]}
    # Fixed gaps dropped; the unmatched one kept (the run says nothing about it).
    written = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert written["gaps"] == [{"id": "demo-numerals/gone", "reason": "removed item"}]
