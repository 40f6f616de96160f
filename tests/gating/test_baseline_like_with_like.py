"""Baselines compare like with like: a target whose content changed since the baseline (its text,
expected value, scorer, readings target, text contract or language) keeps its id but asks another
question, so it is listed as changed and never paired: not a regression, not a fix."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from result_rows import make_result

from pytest_ttsbench.gating.baseline import compare
from pytest_ttsbench.reporting.comparison import comparison_lines
from pytest_ttsbench.run_model.item_content import CONTENT_FIELDS, content_changes, content_sha256
from pytest_ttsbench.run_model.results import ItemResult, read_results, write_results

VERDICTS = st.sampled_from(["correct", "wrong", "unknown", "error"])
TEXTS = st.text(min_size=1, max_size=40)
EXPECTED = st.dictionaries(
    st.sampled_from(["values", "keyword", "expected", "alternates"]),
    st.one_of(st.lists(st.text(max_size=8), max_size=3), st.text(max_size=8)),
    min_size=1,
    max_size=3,
)
CONTENT: dict[str, st.SearchStrategy[Any]] = {
    "text": TEXTS,
    "language": st.sampled_from(["en", "en-US", "ar", "zh", "th"]),
    "contract": st.sampled_from(["raw", "mono", "bilingual"]),
    "scorer": st.sampled_from(["numbers", "keyword", "readings", "text"]),
    "target": st.one_of(st.none(), st.text(min_size=1, max_size=6)),
    "expected": EXPECTED,
}
assert set(CONTENT) == set(CONTENT_FIELDS)
# A readings target's span is part of its id: an edited span is another target (see the test below).
EDITABLE = [name for name in CONTENT_FIELDS if name != "target"]


def _row(verdict: str, repeat: int = 0, *, recorded: bool = True, **content: Any) -> ItemResult:
    row = make_result(id="s/item", suite="s", verdict=verdict, repeat=repeat, **content)
    return dataclasses.replace(row, content_sha256=content_sha256(row) if recorded else None)


@st.composite
def edited_items(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], set[str]]:
    """An item's content, the same item after an edit of one or more content fields, and which."""
    before = {name: draw(strategy) for name, strategy in CONTENT.items()}
    edited = draw(st.sets(st.sampled_from(EDITABLE), min_size=1))
    after = dict(before)
    for name in edited:
        after[name] = draw(CONTENT[name].filter(lambda value, old=before[name]: value != old))
    return before, after, edited


@settings(max_examples=300, deadline=None)
@given(
    edited_items(),
    st.lists(VERDICTS, min_size=1, max_size=3),
    st.lists(VERDICTS, min_size=1, max_size=3),
    st.booleans(),
    st.booleans(),
)
def test_an_edited_item_is_never_paired(
    edit: tuple[dict[str, Any], dict[str, Any], set[str]],
    before_verdicts: list[str],
    after_verdicts: list[str],
    baseline_has_hash: bool,
    candidate_has_hash: bool,
) -> None:
    before_content, after_content, edited = edit
    baseline = [_row(v, k, recorded=baseline_has_hash, **before_content) for k, v in enumerate(before_verdicts)]
    candidate = [_row(v, k, recorded=candidate_has_hash, **after_content) for k, v in enumerate(after_verdicts)]
    result = compare(baseline, candidate)
    key = baseline[0].key  # s/item, or s/item/<span> for a readings target
    assert result.changed == [key]
    assert (result.regressions, result.fixes, result.flaky, result.unchanged) == ([], [], [], 0)
    assert (result.new, result.missing, result.by_category) == ([], [], {})
    assert set(result.changed_details[key].fields) == edited
    assert result.to_dict()["changed"] == [key]


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(CONTENT),
    VERDICTS,
    VERDICTS,
    st.booleans(),
    st.text(max_size=20),
    st.sampled_from(["years", "dates"]),
)
def test_an_unedited_item_is_always_paired(
    content: dict[str, Any], was: str, now: str, baseline_has_hash: bool, heard: str, category: str
) -> None:
    # What the run heard, its verdict and even its category may change: the question did not.
    baseline = [_row(was, recorded=baseline_has_hash, **content)]
    candidate = [dataclasses.replace(_row(now, **content), transcript=heard, category=category)]
    result = compare(baseline, candidate)
    assert result.changed == [] and result.paired == 1


def test_the_issue_example_is_listed_with_both_texts_not_as_a_regression() -> None:
    expect_2026 = {"values": ["2026"]}
    baseline = [_row("correct", text="The plant opened in 2026.", expected=expect_2026)]
    candidate = [_row("wrong", text="The plant opened in 1999.", expected={"values": ["1999"]})]
    result = compare(baseline, candidate)
    assert result.regressions == [] and result.paired == 0 and result.changed == ["s/item"]
    lines = comparison_lines(result)
    assert "0 new, 0 missing, 1 changed since the baseline (not compared)" in lines[0]
    assert "  changed since the baseline, not compared: s/item" in lines
    detail = lines[lines.index("  changed since the baseline, not compared: s/item") + 1]
    assert "'The plant opened in 2026.' -> 'The plant opened in 1999.'" in detail
    assert "expected: {'values': ['2026']} -> {'values': ['1999']}" in detail
    assert result.to_dict()["changed_details"] == [
        {
            "id": "s/item",
            "fields": ["text", "expected"],
            "before": {"text": "The plant opened in 2026.", "expected": expect_2026},
            "after": {"text": "The plant opened in 1999.", "expected": {"values": ["1999"]}},
        }
    ]


def test_a_baseline_read_from_its_file_pairs_with_the_same_item_in_memory(tmp_path: Path) -> None:
    # A candidate row in memory may hold tuples where the file holds lists: the same content.
    path = tmp_path / "base.jsonl"
    write_results(path, [_row("correct", text="It opened in 2026.", expected={"values": ["2026"]})])
    (stored,) = read_results(path)
    in_memory = _row("wrong", text="It opened in 2026.", expected={"values": ("2026",)})
    assert stored.content_sha256 == in_memory.content_sha256
    assert compare([stored], [in_memory]).regressions == ["s/item"]


def test_rows_from_before_the_hash_compare_the_fields_they_carry() -> None:
    legacy = _row("correct", recorded=False, text="", scorer="", expected={"values": ["2026"]})
    same = _row("wrong", text="It opened in 2026.", scorer="numbers", expected={"values": ["2026"]})
    assert content_changes(legacy, same) == []  # text and scorer were not recorded then: not held against it
    assert compare([legacy], [same]).regressions == ["s/item"]
    other = dataclasses.replace(same, expected={"values": ["1999"]}, content_sha256=None)
    assert content_changes(legacy, other) == ["expected"]


def test_a_recorded_hash_that_disagrees_is_named_even_when_the_fields_agree() -> None:
    row = _row("correct", text="It opened in 2026.")
    edited = dataclasses.replace(row, content_sha256="0" * 64)
    assert content_changes(row, edited) == ["content_sha256"]
    assert compare([row], [edited]).changed == ["s/item"]


ANOTHER_VALUE: dict[str, Any] = {
    "text": "x",
    "language": "ar",
    "contract": "mono",
    "scorer": "keyword",
    "target": "歼-20",
    "expected": {"values": ["1999"]},
}


@pytest.mark.parametrize("name", CONTENT_FIELDS)
def test_the_hash_covers_every_content_field(name: str) -> None:
    row = _row("correct", text="It opened in 2026.", expected={"values": ["2026"]}, scorer="numbers", target=None)
    changed: ItemResult = dataclasses.replace(row, **{name: ANOTHER_VALUE[name]})
    assert content_sha256(changed) != content_sha256(row)


def test_an_edited_readings_span_is_another_target_never_a_pair() -> None:
    result = compare([_row("correct", target="歼-20")], [_row("wrong", target="歼-10")])
    assert (result.new, result.missing, result.paired, result.changed) == (["s/item/歼-10"], ["s/item/歼-20"], 0, [])
