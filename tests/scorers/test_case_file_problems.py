"""A case-file mistake names file, line, item and field, and a misspelled field its closest name
(issue 38, point 5): property-based over where the slip is and what it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.cases.loader import item_lines, load_case_file
from pytest_ttsbench.cases.model import CaseFileError
from pytest_ttsbench.cases.schema import CASE_FILE_SCHEMA, ITEM_SCHEMA

ITEM = '  - id: item-{n}\n    category: years\n    text: "In 2026 ({n})."\n    expect: {{values: ["2026"]}}\n'
HEADER = "suite: demo\nlanguage: en\nscorer: numbers\n"


def _slips(name: str) -> list[str]:
    """The names one keyboard slip away from ``name``: a letter dropped, or two neighbours swapped."""
    dropped = [name[:i] + name[i + 1 :] for i in range(len(name))]
    swapped = [name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(len(name) - 1)]
    return sorted({slip for slip in dropped + swapped if len(slip) > 2} - set(ITEM_SCHEMA["properties"]))


ITEM_FIELDS = ["category", "text", "expect", "scorer", "language", "facets", "domain"]


@settings(max_examples=60, deadline=None)
@given(count=st.integers(1, 6), data=st.data())
def test_a_misspelled_item_field_is_named_with_its_line_and_the_closest_field(
    tmp_path_factory: pytest.TempPathFactory, count: int, data: st.DataObject
) -> None:
    which = data.draw(st.integers(0, count - 1))
    meant = data.draw(st.sampled_from(ITEM_FIELDS))
    slip = data.draw(st.sampled_from(_slips(meant)))
    items = [ITEM.format(n=n) for n in range(count)]
    items[which] += f"    {slip}: x\n"
    path = tmp_path_factory.mktemp("cases") / "demo.yaml"
    path.write_text(HEADER + "items:\n" + "".join(items), encoding="utf-8")
    line = 4 + sum(len(item.splitlines()) for item in items[: which + 1])  # the slip is its item's last line
    with pytest.raises(CaseFileError) as raised:
        load_case_file(path)
    [problem] = raised.value.problems
    assert (problem.path, problem.line, problem.item, problem.field) == (path, line, f"item-{which}", slip)
    assert problem.message.startswith("not a field here; did you mean ")
    assert str(problem).startswith(f"{path}:{line}: item 'item-{which}': field '{slip}': ")


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_misspelled_or_missing_top_level_field_is_named_never_top_level(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    meant = data.draw(st.sampled_from(["suite", "language", "scorer"]))
    slip = data.draw(st.sampled_from(_slips(meant)))
    path = tmp_path_factory.mktemp("cases") / "demo.yaml"
    path.write_text(HEADER.replace(f"{meant}:", f"{slip}:") + "items:\n" + ITEM.format(n=0), encoding="utf-8")
    with pytest.raises(CaseFileError) as raised:
        load_case_file(path)
    fields = {problem.field: problem for problem in raised.value.problems}
    assert set(fields) == {slip, meant}, raised.value
    assert fields[slip].line == 1 + ["suite", "language", "scorer"].index(meant)
    assert fields[meant].message == "a required field is missing"
    assert "(top level)" not in str(raised.value)
    suggested = fields[slip].message.removeprefix("not a field here; did you mean '").removesuffix("'?")
    assert suggested in CASE_FILE_SCHEMA["properties"], fields[slip].message


def test_item_lines_are_the_lines_of_each_id(tmp_path: Path) -> None:
    text = HEADER + "items:\n" + "".join(ITEM.format(n=n) for n in range(3))
    assert item_lines(text) == {"item-0": 5, "item-1": 9, "item-2": 13}
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    assert [item.line for item in load_case_file(path).items] == [5, 9, 13]
