"""The two strict readers (YAML and JSON) refuse a key given twice at any depth, naming it and its lines.

Property tests generate nested mappings (and lists of mappings, as case files hold their items),
write them out with one key repeated somewhere, and check that the reader names that key, the
line of its second occurrence and the line of its first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.support.json_documents import DuplicateKeyError, load_json
from pytest_ttsbench.support.yaml_documents import DuplicateYamlKeyError, YamlSyntaxError, load_yaml

# Keys no YAML resolver reads as anything but a plain string (never "yes", "on", "null", "1").
KEYS = st.text("abcdefghij_", min_size=1, max_size=6).map(lambda s: f"k{s}")
SCALARS = st.one_of(st.integers(-1000, 1000), st.booleans(), st.none(), st.text("xyz 09.", max_size=8))


@dataclass(eq=False)
class Mapping:
    """A mapping as ordered pairs, so a key can be given twice."""

    pairs: list[tuple[str, object]] = field(default_factory=list)


def _mappings(children: st.SearchStrategy[object]) -> st.SearchStrategy[Mapping]:
    return st.dictionaries(KEYS, children, min_size=1, max_size=4).map(lambda d: Mapping(list(d.items())))


VALUES: st.SearchStrategy[object] = st.recursive(
    SCALARS,
    lambda children: st.one_of(_mappings(children), st.lists(_mappings(children), min_size=1, max_size=3)),
    max_leaves=12,
)
DOCUMENTS = _mappings(VALUES)


def all_mappings(value: object) -> list[Mapping]:
    found: list[Mapping] = []
    if isinstance(value, Mapping):
        found.append(value)
        for _, child in value.pairs:
            found += all_mappings(child)
    elif isinstance(value, list):
        for child in value:
            found += all_mappings(child)
    return found


def with_duplicate(document: Mapping, data: st.DataObject) -> tuple[Mapping, int, str]:
    """``document`` with one mapping's key given again later in it: (that mapping, the pair's index, key)."""
    target = data.draw(st.sampled_from(all_mappings(document)))
    original = data.draw(st.integers(0, len(target.pairs) - 1))
    key = target.pairs[original][0]
    where = data.draw(st.integers(original + 1, len(target.pairs)))
    target.pairs.insert(where, (key, data.draw(SCALARS)))
    return target, where, key


class Lines:
    """Text being written, remembering the line each (mapping, pair index) went on."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line_of: dict[tuple[int, int], int] = {}

    def add(self, text: str, mapping: Mapping | None = None, index: int = 0) -> None:
        self.lines.append(text)
        if mapping is not None:
            self.line_of[(id(mapping), index)] = len(self.lines)


def yaml_text(document: Mapping) -> Lines:
    out = Lines()

    def mapping(m: Mapping, indent: int, dash: bool = False) -> None:
        for index, (key, value) in enumerate(m.pairs):
            lead = " " * indent
            if dash and index == 0:
                lead = " " * (indent - 2) + "- "
            if isinstance(value, Mapping):
                out.add(f"{lead}{key}:", m, index)
                mapping(value, indent + 2)
            elif isinstance(value, list):
                out.add(f"{lead}{key}:", m, index)
                for item in value:
                    assert isinstance(item, Mapping)
                    mapping(item, indent + 4, dash=True)
            else:
                out.add(f"{lead}{key}: {json.dumps(value)}", m, index)

    mapping(document, 0)
    return out


def json_text(document: Mapping) -> Lines:
    """One pair per line, so each key has a line of its own."""
    out = Lines()

    def value_of(value: object, indent: int, prefix: str, suffix: str, m: Mapping | None, index: int) -> None:
        pad = " " * indent
        if isinstance(value, Mapping):
            out.add(f"{pad}{prefix}{{", m, index)
            for i, (key, child) in enumerate(value.pairs):
                comma = "," if i < len(value.pairs) - 1 else ""
                value_of(child, indent + 2, f"{json.dumps(key)}: ", comma, value, i)
            out.add(f"{pad}}}{suffix}")
        elif isinstance(value, list):
            out.add(f"{pad}{prefix}[", m, index)
            for i, child in enumerate(value):
                value_of(child, indent + 2, "", "," if i < len(value) - 1 else "", None, 0)
            out.add(f"{pad}]{suffix}")
        else:
            out.add(f"{pad}{prefix}{json.dumps(value)}{suffix}", m, index)

    value_of(document, 0, "", "", None, 0)
    return out


@settings(max_examples=150, deadline=None)
@given(document=DOCUMENTS, data=st.data())
def test_yaml_duplicate_at_any_depth_is_named_with_its_lines(document: Mapping, data: st.DataObject) -> None:
    target, index, key = with_duplicate(document, data)
    first = next(i for i, (k, _) in enumerate(target.pairs) if k == key)
    text = yaml_text(document)
    with pytest.raises(DuplicateYamlKeyError) as caught:
        load_yaml("\n".join(text.lines) + "\n")
    assert caught.value.key == key
    assert caught.value.line == text.line_of[(id(target), index)]
    assert caught.value.first_line == text.line_of[(id(target), first)]
    assert repr(key) in str(caught.value) and f"line {caught.value.line}" in str(caught.value)


@settings(max_examples=150, deadline=None)
@given(document=DOCUMENTS, data=st.data(), first_line=st.integers(1, 50))
def test_json_duplicate_at_any_depth_is_named_with_its_lines(
    document: Mapping, data: st.DataObject, first_line: int
) -> None:
    target, index, key = with_duplicate(document, data)
    first = next(i for i, (k, _) in enumerate(target.pairs) if k == key)
    text = json_text(document)
    offset = first_line - 1
    with pytest.raises(DuplicateKeyError) as caught:
        load_json("\n".join(text.lines), first_line=first_line)
    assert caught.value.key == key
    assert caught.value.lineno == text.line_of[(id(target), index)] + offset
    assert caught.value.first_lineno == text.line_of[(id(target), first)] + offset
    assert repr(key) in str(caught.value) and f"line {caught.value.lineno}" in str(caught.value)


@settings(max_examples=100, deadline=None)
@given(document=DOCUMENTS)
def test_documents_without_duplicates_read_as_before(document: Mapping) -> None:
    """The strict readers change nothing else: the same objects as PyYAML's and json's own readers."""
    import yaml

    yaml_source = "\n".join(yaml_text(document).lines) + "\n"
    json_source = "\n".join(json_text(document).lines)
    assert load_yaml(yaml_source) == yaml.safe_load(yaml_source)
    assert load_json(json_source) == json.loads(json_source)


def test_one_line_row_names_the_key_and_leaves_the_line_to_the_caller() -> None:
    with pytest.raises(DuplicateKeyError) as caught:
        load_json('{"id": "a", "verdict": "wrong", "verdict": "correct"}', first_line=7)
    assert caught.value.lineno == 7 and caught.value.key == "verdict"
    assert caught.value.msg == "duplicate key 'verdict'"
    assert isinstance(caught.value, json.JSONDecodeError)  # every reader that refuses bad JSON refuses this


def test_yaml_keys_equal_as_python_keys_are_duplicates() -> None:
    """``1`` and ``0x1``, ``yes`` and ``true`` end up as one dict key: the second would win."""
    for text in ("1: a\n0x1: b\n", "yes: a\ntrue: b\n"):
        with pytest.raises(DuplicateYamlKeyError) as caught:
            load_yaml(text)
        assert caught.value.line == 2 and caught.value.first_line == 1


def test_a_merged_key_may_be_overridden_but_not_given_twice() -> None:
    base = "base: &b {text: one, category: years}\n"
    assert load_yaml(base + "item:\n  <<: *b\n  text: two\n")["item"] == {"text": "two", "category": "years"}
    with pytest.raises(DuplicateYamlKeyError, match="'text' at line 5"):
        load_yaml(base + "item:\n  <<: *b\n  text: two\n  text: three\n")


def test_a_duplicate_inside_an_anchored_mapping_is_found_once_however_often_it_is_used() -> None:
    with pytest.raises(DuplicateYamlKeyError) as caught:
        load_yaml("a: &x {k: 1, k: 2}\nb: [*x, *x, *x]\n")
    assert caught.value.key == "k" and caught.value.line == 1
    assert isinstance(caught.value, YamlSyntaxError)  # the readers' existing "not valid YAML" handling
