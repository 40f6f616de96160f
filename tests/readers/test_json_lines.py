"""One JSON-lines reader (issue 27, item 6): results, transcripts and benchmark source files alike.

The three readers had been written three ways; two split the file with ``str.splitlines``, which
also ends a line at a raw U+2028, U+0085 or form feed inside a JSON string. ``json.dumps`` with
``ensure_ascii=False`` (how every JSON-lines file here is written) leaves those characters as they
are, so a transcript or benchmark sentence holding one was read as two broken lines.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pytest_ttsbench
from pytest_ttsbench.cases.loader import CaseFileError
from pytest_ttsbench.cases.sources import jsonl_source_data
from pytest_ttsbench.run_model.results import ResultsFileError, read_results
from pytest_ttsbench.run_model.transcripts import SINGLE_ROUTE, TranscriptsError, load_transcripts
from pytest_ttsbench.support.json_documents import read_json_lines

#: characters str.splitlines breaks a line at that JSON leaves raw inside a string
LINE_BREAKS_INSIDE_STRINGS = "\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e"

_texts = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(list(LINE_BREAKS_INSIDE_STRINGS)))
_documents = st.dictionaries(st.text(max_size=5), st.one_of(_texts, st.integers(), st.none()), max_size=4)


@given(st.lists(_documents, max_size=6), st.booleans())
def test_every_written_row_is_read_back_whole(
    tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, object]], newline: bool
) -> None:
    path = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    text = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    path.write_text(text + ("\n" if newline and rows else ""), encoding="utf-8")
    read = read_json_lines(path)
    assert [line.value for line in read] == rows
    assert [line.number for line in read] == list(range(1, len(rows) + 1))
    assert all(line.problem is None for line in read)
    assert [line.unfinished for line in read] == [not newline and i == len(rows) - 1 for i in range(len(rows))]


def test_a_bad_line_is_returned_with_its_file_line_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 1, "a": 2}\n{broken\n', encoding="utf-8")
    first, duplicate, broken = read_json_lines(path)
    assert (first.number, first.value, first.problem) == (1, {"a": 1}, None)
    assert duplicate.where == f"{path}: line 3"
    assert duplicate.problem is not None and "duplicate key 'a'" in duplicate.problem
    assert broken.where == f"{path}: line 4"
    assert (
        broken.problem is not None and broken.problem.startswith("not valid JSON:") and "(column 2)" in broken.problem
    )


# --- each reader built on it ------------------------------------------------------------------


def test_a_transcript_holding_a_raw_line_separator_is_read_as_one_row(tmp_path: Path) -> None:
    path = tmp_path / "heard.jsonl"
    rows = [{"id": "t/a", "text": f"In 2026{sep}and after."} for sep in LINE_BREAKS_INSIDE_STRINGS]
    rows = [dict(row, id=f"t/{n}") for n, row in enumerate(rows)]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    store = load_transcripts(path)
    assert {key: routes[SINGLE_ROUTE] for key, routes in store.rows.items()} == {r["id"]: r["text"] for r in rows}


def test_a_thai_benchmark_record_holding_a_raw_line_separator_is_one_item(tmp_path: Path) -> None:
    path = tmp_path / "eval_set.jsonl"
    record = {"id": "th-1", "category": "name", "text": "สวัสดี\u2028ครับ", "keyword": "สวัสดี", "expected": ["สวัสดี"]}
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    data = jsonl_source_data(path)
    assert [item["text"] for item in data["items"]] == ["สวัสดี\u2028ครับ"]


def test_every_reader_names_the_file_and_line_of_a_bad_line(tmp_path: Path) -> None:
    transcripts = tmp_path / "heard.jsonl"
    transcripts.write_text('{"id": "t/a", "text": "x"}\n{"id": \n', encoding="utf-8")
    with pytest.raises(TranscriptsError, match=rf"{transcripts}: line 2: not valid JSON: .* \(column \d+\)"):
        load_transcripts(transcripts)
    results = tmp_path / "r.jsonl"
    results.write_text('{"engine": "e"\n', encoding="utf-8")
    with pytest.raises(ResultsFileError, match=rf"{results}: line 1: not valid JSON"):
        read_results(results)
    source = tmp_path / "eval_set.jsonl"
    good = {"id": "th-1", "category": "name", "text": "ก", "keyword": "ก", "expected": ["ก"]}
    source.write_text(json.dumps(good) + "\n{nope\n[1]\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as raised:
        jsonl_source_data(source)
    message = str(raised.value)
    assert "line 2" in message and "not valid JSON" in message  # every bad line, not only the first
    assert "line 3" in message and "each line must be a JSON object" in message


# --- the seam ---------------------------------------------------------------------------------

PACKAGE = Path(pytest_ttsbench.__file__).parent


def test_no_module_reads_json_lines_itself() -> None:
    """``load_json(..., first_line=N)`` is how a row of a JSON-lines file is read: only the reader does it."""
    readers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(k.arg == "first_line" for k in node.keywords):
                readers.append(name)
    assert set(readers) == {"support/json_documents.py"}
