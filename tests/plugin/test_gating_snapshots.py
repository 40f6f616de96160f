"""Transcript snapshots (syrupy amber files): report, strict, update, and the xdist path."""

from __future__ import annotations

import json

import pytest
from plugin_projects import NUMERALS, write_project
from plugin_projects import PASSING_TRANSCRIPTS as PASSING
from result_rows import make_result
from syrupy.extensions.amber.serializer import AmberDataSerializer

from pytest_ttsbench.gating.snapshots import compare_snapshots, received_snapshots
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.run_model.snapshot_files import read_snapshots, update_snapshots

PLAIN_NUMERALS = NUMERALS.replace("thresholds: {default: 0.5}\n", "")
# year and time correct, pct fixed: every test passes, so only the snapshots can fail the run
# the same verdicts, heard differently
REWORDED = {**PASSING, "demo-numerals/year-2026": "The plant was opened in 2026."}
# Each test runs several sessions into one results file: each adds a run (--tts-append).
RUN = ("--tts-engine=replay", "--tts-results=r.jsonl", "--tts-append")


def _replay(pytester: pytest.Pytester, transcripts: dict[str, str]) -> None:
    (pytester.path / "runs" / "replay.jsonl").write_text(
        "".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in transcripts.items()), encoding="utf-8"
    )


def _stored(pytester: pytest.Pytester) -> dict[str, str]:
    path = pytester.path / "__tts_snapshots__" / "replay.ambr"
    return {s.name: str(s.data) for s in AmberDataSerializer.read_file(str(path))}


def test_strict_fails_until_recorded_then_on_a_changed_transcript(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=PASSING)
    missing = pytester.runpytest(*RUN, "--tts-snapshot=strict")
    missing.assert_outcomes(passed=3, failed=1)  # every item passed; ttsbench::gate failed
    assert missing.ret == pytest.ExitCode.TESTS_FAILED
    missing.stdout.fnmatch_lines(["snapshots (strict) replay: 0 matched, 0 changed, 3 new*", "gate FAILED: replay: *"])

    recorded = pytester.runpytest(*RUN, "--tts-snapshot=strict", "--snapshot-update")
    assert recorded.ret == pytest.ExitCode.OK
    assert set(_stored(pytester)) == {"demo-numerals/year-2026", "demo-numerals/pct-45", "demo-numerals/time-0630"}
    assert "the plant opened in 2026" in _stored(pytester)["demo-numerals/year-2026"]  # normalized

    same = pytester.runpytest(*RUN, "--tts-snapshot=strict")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["snapshots (strict) replay: 3 matched, 0 changed, 0 new*"])

    _replay(pytester, REWORDED)
    changed = pytester.runpytest(*RUN, "--tts-snapshot=strict")
    changed.assert_outcomes(passed=3, failed=1)
    assert changed.ret == pytest.ExitCode.TESTS_FAILED
    changed.stdout.fnmatch_lines(
        [
            "  changed: demo-numerals/year-2026",
            "    was: dict({ 'transcript': 'the plant opened in 2026', })",
            "    now: dict({ 'transcript': 'the plant was opened in 2026', })",
        ]
    )


def test_report_lists_changes_without_failing_and_off_ignores_them(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=PASSING)
    pytester.runpytest(*RUN, "--tts-snapshot=report", "--snapshot-update")
    _replay(pytester, REWORDED)
    report = pytester.runpytest(*RUN, "--tts-snapshot=report")
    assert report.ret == pytest.ExitCode.OK
    report.stdout.fnmatch_lines(["snapshots (report) replay: 2 matched, 1 changed, 0 new*", "  changed: *year-2026"])
    off = pytester.runpytest(*RUN, "--tts-snapshot=off")
    assert off.ret == pytest.ExitCode.OK
    assert "snapshots (" not in off.stdout.str()


def test_first_run_says_in_one_line_how_to_start(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=PASSING)
    first = pytester.runpytest(*RUN)  # the default mode, report, with nothing recorded
    assert first.ret == pytest.ExitCode.OK
    snapshot_lines = [line for line in first.stdout.lines if "snapshot" in line]
    assert snapshot_lines == [
        "snapshots: none recorded yet for replay; --snapshot-update records this run's transcripts, "
        "later runs then report what changed"
    ]
    pytester.runpytest(*RUN, "--snapshot-update")
    again = pytester.runpytest(*RUN)
    again.stdout.fnmatch_lines(
        ["snapshots (report) replay: 3 matched, 0 changed, 0 new, 0 not run [[]__tts_snapshots__/replay.ambr[]]"]
    )
    assert "none recorded yet" not in again.stdout.str()


def test_update_keeps_snapshots_of_items_that_did_not_run(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=PASSING)
    pytester.runpytest(*RUN, "--tts-snapshot=report", "--snapshot-update")
    _replay(pytester, REWORDED)
    pytester.runpytest(*RUN, "--tts-snapshot=report", "--snapshot-update", "-k", "pct")
    stored = _stored(pytester)
    assert len(stored) == 3
    assert "the plant opened in 2026" in stored["demo-numerals/year-2026"]  # not run: left as it was


def test_xdist_strict_snapshots(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"n.yaml": PLAIN_NUMERALS}, transcripts=PASSING)
    pytester.runpytest(*RUN, "--tts-snapshot=strict", "--snapshot-update")
    _replay(pytester, REWORDED)
    result = pytester.runpytest_subprocess("-n", "2", *RUN, "--tts-snapshot=strict")
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["snapshots (strict) replay: 2 matched, 1 changed, 0 new*"])
    gate = json.loads((pytester.path / "r.gate.json").read_text(encoding="utf-8"))
    assert gate["snapshots"]["engines"][0]["changed"] == ["demo-numerals/year-2026"]
    assert gate["exitstatus"] == 1


def test_one_snapshot_per_item_pooling_its_generations_order_free() -> None:
    def row(target: str | None, repeat: int, text: str, engine: str = "e") -> ItemResult:
        return make_result(
            engine=engine,
            id="s/m",
            target=target,
            language="zh",
            transcript=text,
            transcripts={"t": text},
            repeat=repeat,
        )

    rows = [row("A", 0, "x"), row("B", 0, "x"), row("A", 1, "y"), row("B", 1, "y"), row("A", 0, "z", engine="f")]
    received = received_snapshots(rows, "e")
    assert sorted(received) == ["s/m"]  # targets of one clip share it, generations are pooled
    assert "'x'" in received["s/m"].data and "'y'" in received["s/m"].data
    swapped = [row("A", 0, "y"), row("A", 1, "x")]
    assert received_snapshots(swapped, "e")["s/m"].data == received["s/m"].data  # order-free


def test_snapshots_ignore_asr_formatting_but_not_a_changed_word(tmp_path) -> None:
    path = tmp_path / "e.ambr"

    def one(text: str) -> dict:
        return received_snapshots([make_result(id="s/a", transcripts={"t": text})], "e")

    def check(received: dict):
        return compare_snapshots(read_snapshots(path), path, "e", received)

    update_snapshots(
        path, {n: r.data for n, r in one("Bake the cookies for three to five minutes, until golden.").items()}
    )
    assert check(one("bake the cookies for 3 to 5 minutes until golden")).matched == ["s/a"]
    assert check(one("Bake the cookies for 3 to 6 minutes.")).changed


def test_a_stochastic_item_matches_when_one_generation_was_heard_as_before(tmp_path) -> None:
    path = tmp_path / "e.ambr"

    def generations(*texts: str) -> dict:
        rows = [make_result(id="s/a", transcripts={"t": text}, repeat=k) for k, text in enumerate(texts)]
        return received_snapshots(rows, "e")

    def check(received: dict):
        return compare_snapshots(read_snapshots(path), path, "e", received)

    recorded = generations("We expect 20 guests.", "We expect 20 guests", "expect 20 guests")
    update_snapshots(path, {n: r.data for n, r in recorded.items()})
    again = check(generations("we'd expect 20 guests", "We expect twenty guests.", "x"))
    assert again.matched == ["s/a"]  # "we expect 20 guests" was heard before
    other = check(generations("We expect 30 guests.", "We accept 20 ghosts.", "expect 2"))
    assert [name for name, _, _ in other.changed] == ["s/a"]  # a changed voice shares nothing with the snapshot
