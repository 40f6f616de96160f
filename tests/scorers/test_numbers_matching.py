"""The shared ``numbers`` matching: same values, multisets, joining and regrouping digit groups.

These tests build tokens straight from numerals in a string, so they hold for every language's
parser: what is tested is the matcher, not English.
"""

from __future__ import annotations

import re

import pytest

from pytest_ttsbench.scorers.numbers import NumberToken, match_values, same_value


def numerals(text: str) -> list[NumberToken]:
    """Tokens for the numerals written in ``text``; a "-" is a sign only where no numeral precedes it."""
    pattern = r"(?:(?<![\w.])-)?(?:\d+(?:\.\d+)?|\.\d+)"
    return [NumberToken(m.group(), m.start(), m.end()) for m in re.finditer(pattern, text)]


def missing(expected: list[str], text: str, tokens: list[NumberToken] | None = None) -> list[str]:
    return match_values(expected, numerals(text) if tokens is None else tokens, text)[1]


@pytest.mark.parametrize(
    ("expected", "heard", "same"),
    [
        ("3.50", "3.5", True),  # numerically equal decimals
        ("3.5", "3.50", True),
        ("2026", "2026", True),
        ("-4", "-4.0", True),
        ("0.5", ".5", True),
        ("0123", "0123", True),  # a digit string matches digit for digit
        ("0123", "123", False),  # ...and not without its zero
        ("123", "0123", False),
        ("05", "5", False),
        ("5", "05", False),
        ("-4", "4", False),  # the sign is part of the value
        ("4", "-4", False),
        ("3.14", "3.1", False),
        ("2.75", "0.75", False),
        ("0", "0", True),  # a lone zero is a number, not a digit string
        ("0", "0.0", True),
    ],
)
def test_same_value(expected: str, heard: str, same: bool) -> None:
    assert same_value(expected, heard) is same


@pytest.mark.parametrize(
    ("expected", "text", "left_missing"),
    [
        # multiset: every expected value needs a token of its own
        (["5", "5"], "5 apples and 5 pears", []),
        (["5", "5"], "5 apples and 6 pears", ["5"]),
        (["6", "30"], "6:30", []),
        (["30", "6"], "6:30", []),  # order does not matter
        (["10", "12"], "10-12 weeks", []),
        # integers heard back to back (only spaces between) are joined for one expected integer
        (["1984"], "in 19 84", []),
        (["2026"], "in 20 26", []),
        (["555"], "5 5 5", []),
        (["1905"], "19 0 5", []),
        # ...but never across a word, a comma or a hyphen between groups of several digits
        (["2026"], "from 20 to 26", ["2026"]),
        (["2026"], "20, 26", ["2026"]),
        (["2026"], "20-26", ["2026"]),
        (["2026"], "2020 26", ["2026"]),
        # single digits read one by one may be written with hyphens or commas
        (["555", "0123"], "5-5-5-0-1-2-3", []),
        (["555", "0123"], "5, 5, 5, 0, 1, 2, 3", []),
        (["5550123"], "5, 5, 5, 0, 1, 2, 3", []),
        (["555", "0123"], "5, 5, 5, 1, 2, 3", ["0123"]),  # the zero was not heard
        (["555", "0123"], "5, 5, 5, 0, 1, 8", ["0123"]),
        # a phone number read in other groups: later groups with a leading zero may regroup
        (["555", "0123"], "5550123", []),
        (["555", "0123"], "555 0123", []),
        (["5550123"], "555 0123", []),
        (["12", "05"], "at 1205 sharp", []),
        (["12", "05"], "at 1206 sharp", ["12", "05"]),
        # without a leading zero a boundary is audible, so no regrouping: 2026 is not 20 and 26
        (["20", "26"], "2026", ["20", "26"]),
        (["6", "30"], "630", ["6", "30"]),
        # joins and regroupings only use plain integers
        (["35"], "3 .5", ["35"]),
        (["44"], "-4 4", ["44"]),
        # decimals are never made by joining
        (["3.14"], "3 14", ["3.14"]),
    ],
)
def test_match_values(expected: list[str], text: str, left_missing: list[str]) -> None:
    assert missing(expected, text) == left_missing


def test_matched_and_missing_keep_expected_order() -> None:
    matched, left = match_values(["1", "2", "3"], numerals("3 and 1"), "3 and 1")
    assert matched == ["1", "3"]
    assert left == ["2"]


def test_each_token_serves_one_value() -> None:
    # "555" may come from the three 5s, but then they cannot also be the expected "5".
    assert missing(["555", "5"], "5 5 5") == ["5"]
    assert missing(["555", "5"], "5 5 5, 5") == []


def test_best_assignment_not_first_fit() -> None:
    # First-fit would give "5" the first token and leave "56" unmatched; the matcher must not.
    assert missing(["5", "56"], "5 6, 5") == []


def test_overlapping_tokens_are_alternatives() -> None:
    # A parser may read "20 second" as 22 or as 20 (twenty seconds): either, but not both.
    text = "20 second"
    tokens = [NumberToken("20", 0, 2), NumberToken("22", 0, 9)]
    assert missing(["22"], text, tokens) == []
    assert missing(["20"], text, tokens) == []
    assert len(missing(["20", "22"], text, tokens)) == 1


def test_overlapping_alternative_not_joined_with_itself() -> None:
    # Alternatives "23.15" / "23" + "15" over the same characters: "2315" must not borrow from both.
    text = "at 23.15"
    tokens = [NumberToken("23", 3, 5), NumberToken("23.15", 3, 8), NumberToken("15", 6, 8)]
    assert missing(["23", "15"], text, tokens) == []
    assert missing(["23.15"], text, tokens) == []
    assert missing(["23.15", "15"], text, tokens) == ["15"]


def test_empty_transcript_misses_everything() -> None:
    assert match_values(["1", "2"], [], "") == ([], ["1", "2"])
