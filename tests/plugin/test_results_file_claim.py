"""Two runs told to write one results file: the second is refused while the first is going, whatever it asks.

Run A is a real pytest process paused inside its first item (its conftest waits for a file the
test creates); run B, started meanwhile with the same ``--tts-results``, must stop at
configuration naming the file and A's process, and leave A's rows alone. A's file does not
exist yet when B starts (rows appear as items finish), which is why the check for an existing
file alone let both runs write.
"""

from __future__ import annotations

import pytest
from plugin_projects import (
    NUMERALS,
    PASSING_TRANSCRIPTS,
    PAUSE_AFTER_FIRST_ITEM,
    read_jsonl,
    start_paused_run,
    write_project,
)

from pytest_ttsbench.run_model.results import claim_path

RESULTS = "--tts-results=out/results.jsonl"
IDS = ["demo-numerals/pct-45", "demo-numerals/time-0630", "demo-numerals/year-2026"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS}, transcripts=PASSING_TRANSCRIPTS)
    (pytester.path / "conftest.py").write_text(PAUSE_AFTER_FIRST_ITEM, encoding="utf-8")
    return pytester


@pytest.mark.parametrize("run_a", [["-p", "no:xdist"], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_second_run_into_a_results_file_being_written_is_refused(project: pytest.Pytester, run_a: list[str]) -> None:
    results = project.path / "out" / "results.jsonl"
    run, go = start_paused_run(project.path, "--tts-engine=replay", RESULTS, *run_a)
    try:
        for asked in ([], ["--tts-append"], ["--tts-resume"]):
            refused = project.runpytest_subprocess("--tts-engine=replay", RESULTS, "-p", "no:xdist", *asked)
            assert refused.ret == pytest.ExitCode.USAGE_ERROR, asked
            refused.stderr.fnmatch_lines(
                [
                    f"*--tts-results {results}: another run is writing this results file "
                    f"(process {run.pid}, started *, engines replay)*"
                ]
            )
            assert "demo-numerals" not in refused.stdout.str()  # stopped before collecting a single item
    finally:
        go.touch()
        output = run.communicate(timeout=120)[0]
    assert run.returncode == 0, output
    assert "gate passed" in output
    rows = read_jsonl(results)
    assert sorted(row["id"] for row in rows) == IDS
    assert len({row["run_id"] for row in rows}) == 1  # A's rows only, none of B's
    assert not claim_path(results).exists()  # released with A


def test_the_file_is_free_again_once_the_writing_run_ends(project: pytest.Pytester) -> None:
    first = project.runpytest_subprocess("--tts-engine=replay", RESULTS, "-p", "no:xdist")
    assert first.ret == pytest.ExitCode.OK
    appended = project.runpytest_subprocess("--tts-engine=replay", RESULTS, "-p", "no:xdist", "--tts-append")
    assert appended.ret == pytest.ExitCode.OK
    rows = read_jsonl(project.path / "out" / "results.jsonl")
    assert len(rows) == 6 and len({row["run_id"] for row in rows}) == 2


def test_a_run_killed_while_writing_leaves_a_claim_that_blocks_nothing(project: pytest.Pytester) -> None:
    run, _ = start_paused_run(project.path, "--tts-engine=replay", RESULTS, "-p", "no:xdist")
    run.kill()  # SIGKILL: no cleanup runs, the lock file stays
    run.communicate(timeout=60)
    results = project.path / "out" / "results.jsonl"
    assert claim_path(results).exists()
    resumed = project.runpytest_subprocess("--tts-engine=replay", RESULTS, "-p", "no:xdist", "--tts-resume")
    assert resumed.ret == pytest.ExitCode.OK
    assert sorted(row["id"] for row in read_jsonl(results)) == IDS
    assert not claim_path(results).exists()


def test_a_listing_claims_nothing(project: pytest.Pytester) -> None:
    run, go = start_paused_run(project.path, "--tts-engine=replay", RESULTS, "-p", "no:xdist")
    try:
        listed = project.runpytest_subprocess("--tts-engine=replay", RESULTS, "-p", "no:xdist", "--co")
        assert listed.ret == pytest.ExitCode.OK  # a listing writes nothing, so another writer is no concern of it
    finally:
        go.touch()
        run.communicate(timeout=120)
    assert run.returncode == 0
