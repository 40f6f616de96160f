"""``merge``, ``rescore --out`` and ``baseline save`` claim their output as a run claims ``--tts-results``
(run_model/reruns.claimed_output): while another process writes the file they refuse, naming it, and
write nothing; the claim is gone once they finish, and never counted as part of what they wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, PASSING_TRANSCRIPTS

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.manifest import RUN_RESULTS_NAME
from pytest_ttsbench.run_model.results import claim_path
from pytest_ttsbench.support.file_lock import claim_file


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    cases = tmp_path / "numerals.yaml"
    cases.write_text(NUMERALS, encoding="utf-8")
    transcripts = tmp_path / "heard.jsonl"
    rows = [{"id": key, "text": text} for key, text in PASSING_TRANSCRIPTS.items() if key.startswith("demo-numerals")]
    transcripts.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return cases, transcripts


def rescore(inputs: tuple[Path, Path], out: Path) -> int:
    cases, transcripts = inputs
    return main(["rescore", str(cases), "--transcripts", str(transcripts), "--engine", "e", "--out", str(out)])


def test_each_command_refuses_an_output_another_process_is_writing(tmp_path: Path, inputs, capsys) -> None:
    run = tmp_path / "run" / RUN_RESULTS_NAME
    outputs = {
        "rescore": tmp_path / "claimed-rescore" / RUN_RESULTS_NAME,
        "merge": tmp_path / "claimed-merge" / RUN_RESULTS_NAME,
        "baseline save": tmp_path / "claimed-baseline" / RUN_RESULTS_NAME,
    }
    commands = {
        "rescore": lambda: rescore(inputs, outputs["rescore"]),
        "merge": lambda: main(["merge", str(run.parent), "-o", str(outputs["merge"].parent)]),
        "baseline save": lambda: main(["baseline", "save", str(run.parent), str(outputs["baseline save"].parent)]),
    }
    assert rescore(inputs, run) == 0
    for name, command in commands.items():
        claim = claim_file(claim_path(outputs[name]), "pytest --tts-results (a run)")
        try:
            assert command() != 0, name
            err = capsys.readouterr().err
            assert "another process is writing this results file" in err and "a run" in err, (name, err)
            assert not outputs[name].exists(), name
        finally:
            claim.release()
        assert command() == 0, (name, capsys.readouterr().err)
        assert outputs[name].is_file() and not claim_path(outputs[name]).exists(), name
    # the baseline's manifest lists what it holds, never the claim it held while writing
    assert main(["verify", str(outputs["baseline save"].parent)]) == 0, capsys.readouterr()
