"""Hostile outside text through real runs: a provider's error message, an item's text and an engine
name reach the terminal, the CI log, JUnit XML and CSV only made safe (support/outside_text.py)."""

from __future__ import annotations

import csv
import io
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from boundary_invariants import assert_outputs_clean, assert_terminal_clean
from result_rows import make_result
from tts_providers import FakeOpenAI, Fault

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.results import write_results

KEY_ENV = "TTSBENCH_OUTSIDE_TEXT_KEY"
KEY = "sk-outside-text-9a8b7c6d-never-shown"
PROBE = "quota exceeded\x1b[2J\x1b]0;PWNED\x07\n::error file=app.py,line=1::INJECTED-BY-PROVIDER\r\n::add-mask::R3MASK"
CASES = """\
suite: hostile
language: en
scorer: numbers
items:
  - {id: one, category: c, text: "It opened in 2026.\\n::warning::item text \\e]0;T\\a", expect: {values: ["2026"]}}
  - {id: two, category: c, text: "It opened in 2026.", expect: {values: ["2026"]}}
"""


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    fake = FakeOpenAI(key=KEY).start()
    yield fake
    fake.stop()


def test_a_hostile_provider_message_reaches_no_terminal_or_report_raw(
    pytester: pytest.Pytester, provider: FakeOpenAI
) -> None:
    provider.enqueue(*[Fault("error", status=400, message=PROBE + " key " + KEY) for _ in range(4)])
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "hostile.yaml").write_text(CASES, encoding="utf-8")
    (pytester.path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            f"""\
            engines:
              vendor: {{type: openai, base_url: "{provider.url}/v1", model: tts-1, voice: alloy,
                        api_key_env: {KEY_ENV}, response_format: wav}}
            """
        ),
        encoding="utf-8",
    )
    result = pytester.runpytest_subprocess(
        "--tts-engine=vendor", "--tts-results=out/r.jsonl", "--junitxml=out/junit.xml", "-rA", "-p", "no:cacheprovider"
    )
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 1
    assert "INJECTED-BY-PROVIDER" in output  # shown, escaped, not dropped
    assert "\\x1b]0;PWNED\\x07" in output or "\\x1b]0;PWNED" in output
    assert_terminal_clean(output, [KEY])
    assert_outputs_clean(pytester.path / "out", [KEY])
    ET.parse(pytester.path / "out" / "junit.xml")  # JUnit XML stays a valid document


def test_a_formula_engine_name_stays_text_in_the_exported_table(tmp_path: Path, capsys) -> None:
    name = '=HYPERLINK("http://evil.example","click")'
    rows = [make_result(engine=name, id=f"s/{i}", verdict="correct") for i in range(3)]
    write_results(tmp_path / "run" / "results.jsonl", rows)
    assert main(["leaderboard", str(tmp_path / "run"), "--format", "csv"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    cells = [cell for row in table[1:] for cell in row]
    assert "'" + name in cells and name not in cells
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@", "\t", "\r"))]


def test_the_command_escapes_outside_text_it_prints(tmp_path: Path, capsys) -> None:
    rows = [make_result(engine="e\x1b]0;T\x07\n::error::x", id="s/1", verdict="correct")]
    write_results(tmp_path / "run" / "results.jsonl", rows)
    assert main(["leaderboard", str(tmp_path / "run")]) == 0
    captured = capsys.readouterr()
    assert_terminal_clean(captured.out + captured.err)
    assert "\\x1b]0;T\\x07" in captured.out
