"""compare and the baseline say what changed between runs, and do not blame the voice for a recognizer change."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, TRANSCRIPTS, write_project

from pytest_ttsbench.cli import main

CORRECT = {**TRANSCRIPTS, "demo-numerals/pct-45": "Turnout reached 45 percent this year."}


def _runs(pytester: pytest.Pytester, candidate_beam: int) -> tuple[Path, Path]:
    """A baseline where every item is right, and a candidate where pct-45 is misheard."""
    root = write_project(pytester, cases={"demo-numerals.yaml": NUMERALS}, transcripts=CORRECT)
    pytester.runpytest("--tts-engine=replay", "--tts-results=base/results.jsonl", "--tts-asr-beam-size=5")
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS})  # pct-45 heard as 54 from now on
    return root / "base" / "results.jsonl", root / "cand" / "results.jsonl"


def test_compare_flags_an_asr_change_and_does_not_call_it_a_tts_regression(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = _runs(pytester, 1)
    pytester.runpytest("--tts-engine=replay", f"--tts-results={cand}", "--tts-asr-beam-size=1")
    capsys.readouterr()
    assert main(["compare", str(base), str(cand), "--fail-on-regression"]) == 0
    captured = capsys.readouterr()
    assert "regressed: demo-numerals/pct-45" in captured.out
    assert "ASR decoding differs (replay, whisper:auto, beam_size): 5 → 1: verdict changes may be the recognizer's" in (
        captured.out
    )
    assert "not counted as TTS regressions" in captured.err
    assert main(["compare", str(base), str(cand), "--fail-on-regression", "--allow-asr-change"]) == 1
    capsys.readouterr()
    assert main(["compare", str(base), str(cand), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["recognizer_changes"] and "asr.replay.whisper:auto.beam_size: 5 → 1" in document["changes"]


def test_compare_with_the_same_recognizer_still_fails_on_a_regression(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = _runs(pytester, 5)
    pytester.runpytest("--tts-engine=replay", f"--tts-results={cand}", "--tts-asr-beam-size=5")
    assert main(["compare", str(base), str(cand), "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    assert "verdict changes may be the recognizer's" not in out and "changed since the baseline" not in out


def test_the_gate_reports_but_does_not_block_regressions_across_a_recognizer_change(pytester: pytest.Pytester) -> None:
    base, cand = _runs(pytester, 1)
    options = ["--tts-engine=replay", f"--tts-results={cand}", f"--tts-baseline={base}", "--tts-fail-on-regression"]
    result = pytester.runpytest(*options, "--tts-asr-beam-size=1")
    result.stdout.fnmatch_lines(
        [
            "*ASR decoding differs (replay, whisper:auto, beam_size): 5 → 1: verdict changes may be the recognizer's",
            "*1 regression(s) not blamed on the voice: the recognizer changed (--tts-allow-asr-change counts them)",
        ]
    )
    gate = json.loads(cand.with_name("results.gate.json").read_text(encoding="utf-8"))
    assert gate["baseline"]["blocking_regressions"] == []
    assert gate["baseline"]["unattributed_regressions"] == ["demo-numerals/pct-45"]
    assert not any("regression" in reason for reason in gate["reasons"])

    cand.unlink()
    told = pytester.runpytest(*options, "--tts-asr-beam-size=1", "--tts-allow-asr-change")
    assert told.ret == pytest.ExitCode.TESTS_FAILED
    gate = json.loads(cand.with_name("results.gate.json").read_text(encoding="utf-8"))
    assert gate["baseline"]["blocking_regressions"] == ["demo-numerals/pct-45"]
    assert any("1 regression(s) against the baseline" in reason for reason in gate["reasons"])


def test_the_dashboard_says_what_changed_and_warns_of_a_recognizer_change(tmp_path: Path) -> None:
    from result_rows import make_result

    from pytest_ttsbench.reporting.dashboard import build_dashboard
    from pytest_ttsbench.run_model.provenance import RunHeader, header_path, write_header
    from pytest_ttsbench.run_model.results import write_results

    for night, (model, verdict) in enumerate([("tiny.en", "correct"), ("base", "wrong")], start=1):
        results = tmp_path / "runs" / f"night{night}" / "results.jsonl"
        write_results(results, [make_result(engine="e", verdict=verdict, started_at=f"2026-03-0{night}T00:00:00")])
        route = {"name": "whisper:auto", "type": "whisper", "models": {"en": {"model": model}}}
        write_header(header_path(results), RunHeader(engines={"e": {"type": "espeak"}}, asr={"e": [route]}))
    index, _ = build_dashboard(tmp_path / "runs", tmp_path / "site")
    page = index.read_text(encoding="utf-8")
    assert "1 regression(s)" in page
    assert 'class="ttsbench-recognizer-changed"' in page
    warning = (
        "ASR model differs (e, whisper:auto, models.en.model): tiny.en → base: verdict changes may be the recognizer"
    )
    assert warning in html.unescape(page)
