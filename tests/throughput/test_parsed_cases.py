"""Collecting fast: parsed case files reused by content, schema checks compiled once; errors unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file, schema_errors
from pytest_ttsbench.cases.schema import CASE_FILE_SCHEMA
from pytest_ttsbench.support.cache import ClipCache
from pytest_ttsbench.support.yaml_documents import YamlSyntaxError, load_yaml, load_yaml_cached

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


# --- the case files' YAML built without PyYAML's generator constructors (yaml_documents._construct) ---

_SHARED = st.lists(st.integers(0, 3), min_size=1, max_size=3)
_YAML_SCALARS = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.dates(),
    st.datetimes(),
    st.binary(max_size=8),
)
_YAML_VALUES = st.recursive(
    _YAML_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=6), st.integers(-5, 5), st.booleans()), children, max_size=4),
    ),
    max_leaves=16,
)


def _with_shared(value: object, shared: list[int], pool: list[object]) -> object:
    """``value`` with some of its lists and mappings replaced by objects used twice (YAML anchors and aliases)."""
    if isinstance(value, list):
        return [pool[shared[i % len(shared)] % len(pool)] if pool and i % 2 else v for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _with_shared(v, shared, pool) for k, v in value.items()}
    return value


def _identities(value: object, seen: dict[int, int] | None = None) -> object:
    """The shape of ``value``'s sharing: each list or dict numbered by first appearance."""
    seen = {} if seen is None else seen
    if isinstance(value, list | dict):
        number = seen.setdefault(id(value), len(seen))
        children = value.values() if isinstance(value, dict) else value
        return (number, [_identities(child, seen) for child in children])
    return None


@settings(max_examples=200, deadline=None)
@given(value=_YAML_VALUES, pool=st.lists(_YAML_VALUES, max_size=3), shared=_SHARED, flow=st.booleans())
def test_a_document_is_built_as_pyyaml_builds_it(
    value: object, pool: list[object], shared: list[int], flow: bool
) -> None:
    """Dates, numbers, bytes, keys that are not strings, shared nodes: the same objects, shared alike."""
    import yaml

    document = {"items": [_with_shared(value, shared, pool), *pool], "pool": pool}
    text = yaml.safe_dump(document, default_flow_style=flow, allow_unicode=True)
    ours = load_yaml(text)
    theirs = yaml.load(text, Loader=yaml.CSafeLoader)
    assert ours == theirs
    assert _identities(ours) == _identities(theirs)


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {a: 1, b: 2}\nitem: {<<: *b, b: 3}\n",  # a merge key
        "s: !!set {a, b}\n",
        "o: !!omap [{a: 1}, {b: 2}]\n",
        "p: !!pairs [{a: 1}, {a: 2}]\n",
        "= : x\n",  # the value key
        "? [a, b]\n: unhashable\n",  # a collection as a key
        "m: !!str {a: 1}\n",
        "when: 2026-13-45\n",  # a scalar PyYAML's constructor refuses
        "x: !custom 1\n",
        "a: &x 1\nb: *x\nc: 0x1F\nd: 1_000\ne: .inf\nf: ~\ng: yes\n",
        "deep: " + "[" * 400 + "]" * 400 + "\n",
    ],
)
def test_what_is_not_plain_is_pyyaml_s_objects_or_its_error(text: str) -> None:
    import yaml

    try:
        expected = yaml.load(text, Loader=yaml.CSafeLoader)
    except Exception as exc:  # whatever PyYAML raises (a bad date is a ValueError)
        with pytest.raises(YamlSyntaxError if isinstance(exc, yaml.YAMLError) else type(exc)) as raised:
            load_yaml(text)
        assert str(raised.value) == str(exc)
    else:
        assert load_yaml(text) == expected
