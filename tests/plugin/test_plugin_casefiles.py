"""Bad case files: each kind is a collection error naming the file, the item and the field."""

from __future__ import annotations

import pytest
from plugin_projects import NUMERALS, write_project

GOOD_ITEM = """\
  - id: ok-1
    category: years
    text: "The plant opened in 2026."
    expect: {values: ["2026"]}
"""


def _suite(items: str, header: str = "suite: broken\nlanguage: en\nscorer: numbers\n") -> str:
    return header + "items:\n" + items


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("suite: broken\nitems: [\n", "*broken.yaml:3: field '(file)': not valid YAML*"),
        (
            _suite(GOOD_ITEM + "  - id: ok-1\n    category: years\n    text: again\n    expect: {values: ['1']}\n"),
            "*broken.yaml:9: item 'ok-1': field 'id': duplicate id 'ok-1' in suite",
        ),
        (
            _suite(
                "  - id: s-1\n    category: years\n    scorer: nmubers\n    text: x 1\n    expect: {values: ['1']}\n"
            ),
            "*broken.yaml:7: item 's-1': field 'scorer': unknown scorer 'nmubers'; known scorers: *numbers*",
        ),
        (
            _suite("  - id: e-1\n    category: years\n    text: '   '\n    expect: {values: ['1']}\n"),
            "*broken.yaml:7: item 'e-1': field 'text': '   ' does not match*",
        ),
        (
            _suite("  - id: e-2\n    category: years\n    text: ''\n    expect: {values: ['1']}\n"),
            "*broken.yaml:7: item 'e-2': field 'text': '' should be non-empty*",
        ),
        (
            _suite("  - id: x-1\n    category: years\n    text: In 2026.\n    expect: {values: [2026]}\n"),
            "*broken.yaml:8: item 'x-1': field 'expect.values[[]0[]]': 2026 is not of type 'string'",
        ),
        (
            _suite("  - id: x-2\n    category: years\n    text: In 2026.\n    expect: {value: ['2026']}\n"),
            "*broken.yaml:8: item 'x-2': field 'expect.values': a required field is missing",
        ),
        (
            _suite("  - id: x-3\n    category: years\n    text: In 2026.\n    expect: {values: ['20x6']}\n"),
            "*broken.yaml:8: item 'x-3': field 'expect.values[[]0[]]': '20x6' does not match*",
        ),
        (
            _suite("  - id: 'bad id!'\n    category: years\n    text: In 2026.\n    expect: {values: ['2026']}\n"),
            "*broken.yaml:5: item 'bad id!': field 'id': 'bad id!' does not match*",
        ),
        (
            _suite("  - id: m-1\n    text: In 2026.\n    expect: {values: ['2026']}\n"),
            "*broken.yaml:5: item 'm-1': field 'category': a required field is missing",
        ),
        (
            _suite(GOOD_ITEM, header="suite: Broken_Suite\nlanguage: en\nscorer: numbers\n"),
            "*broken.yaml:1: field 'suite': 'Broken_Suite' does not match*",
        ),
        (
            _suite(
                "  - id: r-1\n    category: c\n    scorer: readings\n    language: zh\n    text: 歼-20\n"
                "    expect: {targets: [{span: 歼-20, positive: [歼二十], negative: [歼二十]}]}\n"
            ),
            "*broken.yaml:10: item 'r-1': field 'expect.targets[[]0[]]': readings both positive and negative*",
        ),
        (
            _suite(
                "  - id: l-1\n    category: c\n    language: th\n    text: ปี 2026\n    expect: {values: ['2026']}\n"
            ),
            "*broken.yaml:7: item 'l-1': field 'language': scorer 'numbers' has no number parser for language 'th'",
        ),
        (
            _suite("  - id: t-1\n    category: years\n    txt: In 2026.\n    expect: {values: ['2026']}\n"),
            "*broken.yaml:7: item 't-1': field 'txt': not a field here; did you mean 'text'?",
        ),
        (
            _suite(GOOD_ITEM, header="sutie: broken\nlanguage: en\nscorer: numbers\n"),
            "*broken.yaml:1: field 'sutie': not a field here; did you mean 'suite'?",
        ),
    ],
)
def test_bad_case_file_names_file_item_and_field(pytester: pytest.Pytester, body: str, expected: str) -> None:
    write_project(pytester, cases={"good.yaml": NUMERALS, "broken.yaml": body})
    result = pytester.runpytest("--tts-engine=replay", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting cases/broken.yaml*", expected])
    # nothing was synthesized: collection errors stop the run before any item runs, and no gate
    # summary adds a second, wrong reason ("the session did not finish")
    assert "passed" not in result.stdout.str()
    assert "ttsbench summary" not in result.stdout.str() and "gate FAILED" not in result.stdout.str()


def test_every_problem_is_listed_and_other_files_still_collect(pytester: pytest.Pytester) -> None:
    body = _suite(
        "  - id: a-1\n    category: years\n    text: ''\n    expect: {values: ['1']}\n"
        "  - id: a-2\n    category: years\n    text: ok 1\n    scorer: nope\n    expect: {values: ['1']}\n"
    )
    write_project(pytester, cases={"good.yaml": NUMERALS, "broken.yaml": body, "also-broken.yaml": "items: 3\n"})
    result = pytester.runpytest("--tts-engine=replay", "--collect-only", "-q")
    result.stdout.fnmatch_lines_random(
        [
            "*broken.yaml:7: item 'a-1': field 'text'*",
            "*broken.yaml:12: item 'a-2': field 'scorer'*",
            "*also-broken.yaml:1: field 'items': 3 is not of type 'array'",
            "*also-broken.yaml:1: field 'suite': a required field is missing",
            "cases/good.yaml::demo-numerals[[]years/year-2026[]]",
        ]
    )


def test_duplicate_suite_names_across_files(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"a.yaml": NUMERALS, "b.yaml": NUMERALS})
    result = pytester.runpytest("--tts-engine=replay", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*b.yaml: field 'suite': suite name 'demo-numerals' is already used by *a.yaml"])
