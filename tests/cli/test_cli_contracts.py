"""Runs that sent different text contracts are never compared or ranked together silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_projects import THAI, write_project
from result_rows import make_result

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.text_variants import ContractMixError, require_one_contract


def _run(path: Path, engine: str, contract: str, verdicts: list[str]) -> Path:
    rows = [
        make_result(engine=engine, suite="th", id=f"th/k{n}", language="th", verdict=v, contract=contract)
        for n, v in enumerate(verdicts)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(row.to_json() + "\n" for row in rows), encoding="utf-8")
    return path


def test_require_one_contract_names_what_each_run_sent() -> None:
    mono = [make_result(contract="mono")]
    raw = [make_result(contract="raw")]
    assert require_one_contract({"a": mono, "b": list(mono)}) == "mono"
    assert require_one_contract({}) is None
    with pytest.raises(ContractMixError, match=r"a: mono; b: raw"):
        require_one_contract({"a": mono, "b": raw})
    with pytest.raises(ContractMixError, match=r"one: mono, raw"):
        require_one_contract({"one": mono + raw})  # one results file holding two contracts


def test_compare_refuses_a_contract_mix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = _run(tmp_path / "raw.jsonl", "e", "raw", ["correct", "wrong"])
    same = _run(tmp_path / "raw2.jsonl", "e", "raw", ["correct", "correct"])
    mono = _run(tmp_path / "mono.jsonl", "e", "mono", ["correct", "correct"])
    assert main(["compare", str(baseline), str(same)]) == 0
    capsys.readouterr()
    assert main(["compare", str(baseline), str(mono)]) == 2
    err = capsys.readouterr().err
    assert "different text contracts" in err and "raw.jsonl: raw" in err and "mono.jsonl: mono" in err
    assert main(["compare", str(baseline), str(mono), "--allow-contract-mix"]) == 0


def test_leaderboard_refuses_a_contract_mix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _run(tmp_path / "a" / "results.jsonl", "engine-a", "bilingual", ["correct", "wrong"])
    b = _run(tmp_path / "b" / "results.jsonl", "engine-b", "mono", ["correct", "correct"])
    c = _run(tmp_path / "c" / "results.jsonl", "engine-c", "bilingual", ["wrong", "wrong"])
    assert main(["leaderboard", str(a.parent), str(c.parent), "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["leaderboard", str(a.parent), str(b.parent), str(c.parent)]) == 2
    assert "engine-b" in capsys.readouterr().err
    assert main(["leaderboard", str(a.parent), str(b.parent), "--allow-contract-mix", "--format", "json"]) == 0
    entries = json.loads(capsys.readouterr().out)["entries"]
    assert [e["system"] for e in entries] == ["engine-b", "engine-a"]


def test_a_pytest_baseline_of_another_contract_is_refused(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"th.yaml": THAI}, transcripts={"demo-th/cs-1": "ผมติดตั้งแอปไลน์ใหม่"})
    pytester.runpytest("--tts-engine=replay", "--tts-results=raw.jsonl").assert_outcomes(passed=1)
    refused = pytester.runpytest("--tts-engine=replay", "--tts-contract=mono", "--tts-baseline=raw.jsonl")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*sent text contract(s) raw, this run sends 'mono'*"])
    same = pytester.runpytest("--tts-engine=replay", "--tts-baseline=raw.jsonl", "--tts-results=again.jsonl")
    same.assert_outcomes(passed=2)  # the item, and ttsbench::gate (a baseline was compared)
