"""Collecting fast: parsed case files reused by content, schema checks compiled once; errors unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ttsbench.cache import ClipCache
from pytest_ttsbench.cases.loader import CaseFileError, load_case_file, schema_errors
from pytest_ttsbench.cases.schema import CASE_FILE_SCHEMA
from pytest_ttsbench.yaml_documents import load_yaml, load_yaml_cached

CASES = """\
suite: parsed
language: en
scorer: numbers
thresholds: {default: 0.5}
items:
  - {id: a, category: years, text: "In 2026.", expect: {values: ["2026"]}}
  - {id: b, category: years, text: "In 1999.", expect: {values: ["1999"]}, facets: {form: western}}
"""


def test_a_cached_parse_is_the_same_suite(tmp_path: Path) -> None:
    path = tmp_path / "parsed.yaml"
    path.write_text(CASES, encoding="utf-8")
    fresh = load_case_file(path)
    first = load_case_file(path, ClipCache(tmp_path / "cache"))
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 1
    again = load_case_file(path, ClipCache(tmp_path / "cache"))
    assert fresh == first == again


def test_an_edited_file_is_parsed_again(tmp_path: Path) -> None:
    path = tmp_path / "parsed.yaml"
    path.write_text(CASES, encoding="utf-8")
    load_case_file(path, ClipCache(tmp_path / "cache"))
    path.write_text(CASES.replace("In 2026.", "In 2027."), encoding="utf-8")
    assert load_case_file(path, ClipCache(tmp_path / "cache")).items[0].text == "In 2027."


def test_a_cached_file_is_still_validated(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(CASES.replace('expect: {values: ["1999"]}', "expect: {values: 1999}"), encoding="utf-8")
    for _ in range(2):  # the second read comes from the cache
        with pytest.raises(CaseFileError, match=r"item 'b': field 'expect.values'"):
            load_case_file(path, ClipCache(tmp_path / "cache"))


@pytest.mark.parametrize("text", ["when: 2026-05-04\n", "{1: one, 2: two}\n"])
def test_documents_json_would_change_are_not_stored(tmp_path: Path, text: str) -> None:
    assert load_yaml_cached(text, ClipCache(tmp_path)) == load_yaml(text)
    assert list(tmp_path.rglob("*.json")) == []


def test_compiled_checks_report_what_jsonschema_reports() -> None:
    good = load_yaml(CASES)
    assert schema_errors(CASE_FILE_SCHEMA, good) == []
    broken = {**good, "items": [{"id": 3, "category": "years"}]}
    messages = sorted(error.message for error in schema_errors(CASE_FILE_SCHEMA, broken))
    assert messages and all(isinstance(m, str) for m in messages)
    assert any("is not of type 'string'" in m for m in messages)
