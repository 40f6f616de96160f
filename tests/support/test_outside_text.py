"""Text from outside is made safe where it leaves the process (support/outside_text.py, issue 36):
on the terminal and in a CI log (no raw control, no bidi mark, no line a runner takes as a workflow
command unless ours), in CSV (no formula), in XML (valid characters only)."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET

from boundary_invariants import RAW_CONTROL
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_ttsbench.support.outside_text import (
    GuardedStream,
    csv_cell,
    csv_text,
    shown,
    shown_block,
    workflow_command,
    xml_text,
)

PROBE = "quota exceeded\x1b[2J\x1b]0;PWNED\x07\n::error file=app.py,line=1::INJECTED\r\n::add-mask::R3MASK"

#: text built from what an attacker would send: controls, breaks, colons, command words, bidi marks
HOSTILE = st.lists(
    st.sampled_from(
        [
            "::",
            ":",
            "##[",
            "error file=a,line=1::",
            "add-mask::",
            "stop-commands::",
            "\n",
            "\r",
            "\r\n",
            " ",
            "\t",
            "\x1b[2J",
            "\x1b[31m",
            "\x1b]0;T\x07",
            "\x85",
            "\x9b",
            "\u202e",
            "\u2066",
            "\u2028",
            "\x00",
            "\x7f",
            "word",
            "ü",
            "数",
        ]
    )
    | st.text(max_size=4),
    max_size=14,
).map("".join)

SAFE = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp", "Cs")), max_size=40).filter(
    lambda t: "##[" not in t and not t.lstrip().startswith("::")
)


def written(text: str, cuts: list[int], markup: bool = False) -> str:
    out = io.StringIO()
    guard = GuardedStream(out, markup=markup)
    points = sorted({min(c, len(text)) for c in cuts})
    for start, end in zip([0, *points], [*points, len(text)], strict=True):
        guard.write(text[start:end])
    guard.close_line()
    return out.getvalue()


def assert_no_command_lines(output: str, allowed: set[str] = frozenset()) -> None:
    for line in re.split(r"\r\n|\r|\n", output):
        assert not line.lstrip().startswith("::") or line in allowed, line
        assert "##[" not in line


@given(HOSTILE)
@example(PROBE)
def test_shown_is_one_safe_line(text: str) -> None:
    line = shown(text)
    assert RAW_CONTROL.search(line) is None and "\n" not in line and "\r" not in line
    assert_no_command_lines(line)


@given(SAFE)
def test_shown_leaves_ordinary_text_alone(text: str) -> None:
    assert shown(text) == text.replace("\t", "\\t")


@given(HOSTILE)
def test_shown_block_keeps_lines_and_makes_each_safe(text: str) -> None:
    block = shown_block(text)
    assert RAW_CONTROL.search(block) is None and "\r" not in block
    assert_no_command_lines(block)


@given(HOSTILE, st.lists(st.integers(0, 60), max_size=6), st.booleans())
@example(PROBE, [15, 16, 40], False)
def test_the_terminal_guard_lets_nothing_raw_through_however_the_text_is_split(text, cuts, markup) -> None:
    output = written(text, cuts, markup)
    # with markup (a terminal) the writer's colour sequences and carriage returns are let through
    leftover = re.sub(r"\x1b\[[0-9;]*m|\r", "", output) if markup else output
    assert RAW_CONTROL.search(leftover) is None
    assert_no_command_lines(output)


@given(st.lists(SAFE, max_size=5).map("\n".join), st.lists(st.integers(0, 60), max_size=6))
def test_the_terminal_guard_is_invisible_on_ordinary_output(text, cuts) -> None:
    assert written(text, cuts) == text


@given(HOSTILE, st.dictionaries(st.sampled_from(["file", "line", "title"]), HOSTILE, max_size=3))
def test_our_workflow_commands_pass_the_guard_as_one_line_that_carries_the_payload(message, properties) -> None:
    line = workflow_command("error", message, **properties)
    assert line.startswith("::error") and "\n" not in line and "\r" not in line
    assert RAW_CONTROL.search(line) is None
    # the payload cannot end the command: properties hold no "::" or ",", the message no line break
    head, _, payload = line.partition("::")[2].partition("::")
    assert "%0A" in payload or "\n" not in message
    for value in properties.values():
        assert "," not in _escaped_property_part(head, value)
    output = written(f"before\n{line}\nafter {PROBE}\n", [3, 9, 30])
    assert output.splitlines()[1] == line
    assert_no_command_lines(output, {line})


def _escaped_property_part(head: str, value: str) -> str:
    return value.replace("%", "%25").replace(",", "%2C") if value else ""


def test_a_line_that_only_looks_like_ours_is_broken() -> None:
    ours = workflow_command("warning", "3 bounds breached", file="ttsbench.yaml")
    assert written(ours + " extra\n", [5]).startswith("\\x3a:warning")
    assert written(ours + "\n", [2, 7]) == ours + "\n"


@given(st.lists(st.lists(HOSTILE | st.integers() | st.none(), min_size=1, max_size=4), max_size=4))
@example([['=HYPERLINK("http://x","click")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", 3, -4]])
def test_no_csv_cell_is_a_formula(rows) -> None:
    parsed = list(csv.reader(io.StringIO(csv_text(rows), newline="")))
    assert len(parsed) == len(rows)
    for row, written_row in zip(rows, parsed, strict=True):
        for cell, text in zip(row, written_row, strict=True):
            if isinstance(cell, str):
                assert not text.startswith(("=", "+", "-", "@", "\t", "\r")), text
                assert text in (cell, "'" + cell)
    assert csv_cell(-4) == -4 and csv_cell("plain") == "plain"


@given(HOSTILE | st.text())
def test_xml_text_is_always_valid_xml(text: str) -> None:
    element = ET.Element("property", value=xml_text(text))
    element.text = xml_text(text)
    ET.fromstring(ET.tostring(element))
