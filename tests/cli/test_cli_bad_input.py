"""Bad results and transcripts files: one strict reader, errors naming file, line and field, exit status 2.

Exit statuses of every subcommand: 0 done, 1 refused (a regression, a guarded slice moved, a
manifest mismatch), 2 bad input. A malformed file must never read as a regression (1) or as a
clean comparison (0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from result_rows import make_result

from pytest_ttsbench.cli import SUBCOMMANDS
from pytest_ttsbench.cli import main as ttsbench
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.run_model.results import ResultsFileError, read_results


def _write_rows(path: Path, *rows: str) -> Path:
    path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    return path


def _row(**fields: object) -> str:
    return make_result(**fields).to_json()


def test_exit_statuses_are_distinct() -> None:
    assert len({EXIT_OK, EXIT_REFUSED, EXIT_USAGE}) == 3


@pytest.mark.parametrize("command", ["leaderboard", "diagnostics", "compare"])
def test_a_row_missing_fields_is_bad_input_naming_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    good = _row(id="s/a", verdict="correct")
    broken = json.dumps({"engine": "e", "id": "s/b", "verdict": "wrong"})
    path = _write_rows(tmp_path / "r.jsonl", good, broken)
    argv = [command, str(path), str(path)] if command == "compare" else [command, str(path)]
    assert ttsbench(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"{path}: line 2: field 'suite': missing" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[1, 2, 3]", "line 2: a results row must be a JSON object, found a list"),
        ('{"engine": "e", "suite": "s", "id": "s/c", "target": null', "line 2: not valid JSON"),
        (_row(id="s/c", verdict="maybe"), "line 2: field 'verdict'"),
        (_row(id="s/c", facets=["x"]), "line 2: field 'facets'"),
    ],
)
def test_compare_with_a_malformed_line_is_bad_input_not_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, expected: str
) -> None:
    baseline = _write_rows(tmp_path / "base.jsonl", _row(id="s/a"), _row(id="s/b"))
    candidate = _write_rows(tmp_path / "cand.jsonl", _row(id="s/a"), line, _row(id="s/b"))
    assert ttsbench(["compare", str(baseline), str(candidate), "--fail-on-regression"]) == EXIT_USAGE
    assert expected in capsys.readouterr().err


def test_a_corrupt_line_in_the_middle_is_never_skipped(tmp_path: Path) -> None:
    path = _write_rows(tmp_path / "r.jsonl", _row(id="s/a"), "{garbage", _row(id="s/b"))
    with pytest.raises(ResultsFileError, match=r"r\.jsonl: line 2: not valid JSON"):
        read_results(path)


def test_a_partial_last_line_is_dropped_only_when_resuming(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(_row(id="s/a") + "\n" + _row(id="s/b")[:40], encoding="utf-8")
    with pytest.raises(ResultsFileError, match="line 2"):
        read_results(path)
    assert [row.id for row in read_results(path, partial_last_line=True)] == ["s/a"]


def test_a_non_utf8_results_file_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(_row(id="s/a").encode() + b"\n\xff\xfe\n")
    assert ttsbench(["leaderboard", str(path)]) == EXIT_USAGE
    assert f"{path}: not UTF-8" in capsys.readouterr().err


def test_compare_against_an_empty_candidate_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = _write_rows(tmp_path / "base.jsonl", _row(id="s/a"))
    candidate = tmp_path / "cand.jsonl"
    candidate.write_text("", encoding="utf-8")
    assert ttsbench(["compare", str(baseline), str(candidate), "--fail-on-regression"]) == EXIT_USAGE
    assert "no results" in capsys.readouterr().err


def test_targets_missing_from_the_candidate_fail_the_regression_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = _write_rows(tmp_path / "base.jsonl", _row(id="s/a"), _row(id="s/b"))
    candidate = _write_rows(tmp_path / "cand.jsonl", _row(id="s/a"))
    assert ttsbench(["compare", str(baseline), str(candidate), "--fail-on-regression"]) == EXIT_REFUSED
    assert "1 target(s) of the baseline not run: s/b" in capsys.readouterr().out
    assert ttsbench(["compare", str(baseline), str(candidate)]) == EXIT_OK


def test_a_regression_is_refused(tmp_path: Path) -> None:
    baseline = _write_rows(tmp_path / "base.jsonl", _row(id="s/a"))
    candidate = _write_rows(tmp_path / "cand.jsonl", _row(id="s/a", verdict="wrong"))
    assert ttsbench(["compare", str(baseline), str(candidate), "--fail-on-regression"]) == EXIT_REFUSED


# --- transcripts files ------------------------------------------------------------------------

CASES = """\
suite: t
language: en
scorer: numbers
items:
  - {id: a, category: years, text: "In 2026.", expect: {values: ["2026"]}}
"""


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"id": "t/a", "asr": {"r1": 5}}\n', "line 1: field 'asr.r1' must be a transcript string"),
        (b'{"id": "t/a", "text": "In 2026."}\n\xff\n', "not UTF-8"),
        (b'{"id": "t/a", "text": "In 2026."}\n[1]\n', "line 2: field 'id'"),
        (b'{"id": "t/a", "asr": {}}\n', "line 1: field 'asr'"),
    ],
)
def test_rescore_with_a_bad_transcripts_file_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str
) -> None:
    cases = tmp_path / "t.yaml"
    cases.write_text(CASES, encoding="utf-8")
    transcripts = tmp_path / "heard.jsonl"
    transcripts.write_bytes(content)
    assert ttsbench(["rescore", str(cases), "--transcripts", str(transcripts)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert str(transcripts) in err and expected in err


# --- every subcommand -------------------------------------------------------------------------


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_exits_2_on_a_missing_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    missing = str(tmp_path / "nope.jsonl")
    argv = {
        "rescore": ["rescore", str(tmp_path / "nope.yaml"), "--transcripts", missing],
        "compare": ["compare", missing, missing],
        "dashboard": ["dashboard", str(tmp_path / "nope"), "-o", str(tmp_path / "site")],
    }.get(command, [command, missing])
    try:
        status = ttsbench(argv)
    except SystemExit as exc:  # argparse refuses the arguments themselves: also bad input
        status = exc.code
    assert status == EXIT_USAGE
    assert "Traceback" not in capsys.readouterr().err


# --- rows written twice -----------------------------------------------------------------------


def test_a_file_two_sessions_appended_to_counts_each_target_once_per_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        _row(id=f"s/{n}", run_id=run, verdict=verdict)
        for run, verdict in (("r1", "correct"), ("r2", "wrong"))
        for n in "ab"
    ]
    path = _write_rows(tmp_path / "r.jsonl", *rows)
    assert ttsbench(["leaderboard", str(path), "--format", "json"]) == EXIT_OK
    (entry,) = json.loads(capsys.readouterr().out)["entries"]  # one system, one date: the later run stands
    assert (entry["correct"], entry["wrong"], entry["unknown"]) == (0, 2, 0)


def test_a_resumed_retry_replaces_the_earlier_row_of_its_run(tmp_path: Path) -> None:
    path = _write_rows(
        tmp_path / "r.jsonl",
        _row(id="s/a", run_id="r1", verdict="error"),
        _row(id="s/b", run_id="r1"),
        _row(id="s/a", run_id="r1", verdict="correct"),
    )
    assert [(row.id, row.verdict) for row in read_results(path)] == [("s/b", "correct"), ("s/a", "correct")]
