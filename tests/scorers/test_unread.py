"""Wrong only on evidence: number-like material the parser cannot read makes a verdict ``unknown``.

A ``numbers`` target is ``wrong`` when the transcript says another value, or no number at all;
where it holds number words, scale words or numerals the parser does not read whole, the verdict
is ``unknown`` with that span in the evidence (``unread``), and the numbers parsed inside the span
are not taken as evidence either way (the "two" of "two zillion" is not 2).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from num2words import num2words

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.number_tokens import Material, NumberToken, numeral_material
from pytest_ttsbench.scorers.numbers import NumbersScorer, material_finder_for, unread_spans
from pytest_ttsbench.scorers.numbers_en import parse_numbers
from pytest_ttsbench.verdict import Verdict, explain_evidence

PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
NUMBERS = NumbersScorer()


def judge(transcript: str, values: list[str], language: str = "en", text: str = "") -> Verdict:
    return NUMBERS.score(transcript, {"values": values}, ScoreContext(language=language, text=text))


# --- the shared mechanism -----------------------------------------------------------------------


def test_a_span_is_unread_when_any_of_its_pieces_lies_outside_every_token() -> None:
    text = "two zillion and five"
    material = [Material(0, 3), Material(4, 11), Material(12, 15, joiner=True), Material(16, 20)]
    tokens = [NumberToken("2", 0, 3), NumberToken("5", 16, 20)]
    assert unread_spans(text, tokens, material) == [(0, 20)]  # one span: the joiner holds it together
    assert unread_spans(text, [NumberToken("2000000000005", 0, 20)], material) == []


def test_joiners_alone_are_no_material_and_separate_numbers_stay_apart() -> None:
    text = "a cat, two dogs and a zillion"
    material = [Material(0, 1, joiner=True), Material(7, 10), Material(16, 19, joiner=True), Material(22, 29)]
    assert unread_spans(text, [NumberToken("2", 7, 10)], material) == [(22, 29)]


def test_a_language_without_a_finder_has_its_numerals_as_material() -> None:
    assert [(m.start, m.end) for m in numeral_material("x ½ and ٣٤ or 7")] == [(2, 3), (8, 10), (14, 15)]
    assert material_finder_for("xx-YY") is numeral_material
    assert material_finder_for("en-GB") is material_finder_for("en")


# --- the numbers scorer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "values", "unread"),
    [
        ("It was forty below last night.", ["-40"], ["forty below"]),
        ("He won two zillion points.", ["2000000"], ["two zillion"]),
        ("Add ½ a cup.", ["0.5"], ["½"]),
        ("It sold for about five gazillion.", ["5"], ["five gazillion"]),  # the 5 inside is no evidence
    ],
)
def test_unread_material_makes_the_verdict_unknown_and_is_named(
    transcript: str, values: list[str], unread: list[str]
) -> None:
    verdict = judge(transcript, values)
    assert verdict.outcome == "unknown"
    assert list(verdict.unread) == unread
    assert verdict.evidence()["unread"] == unread
    assert "unread: " + ", ".join(repr(u) for u in unread) in explain_evidence(verdict.evidence())


@pytest.mark.parametrize(
    ("transcript", "values"),
    [
        ("It was forty last night.", ["-40"]),  # another value where the target is
        ("He won twenty points.", ["30"]),
        ("Nothing was said about it.", ["12"]),  # no numeric material at all
        ("It was minus five.", ["5"]),  # another sign
    ],
)
def test_other_values_or_none_are_wrong_with_nothing_unread(transcript: str, values: list[str]) -> None:
    verdict = judge(transcript, values)
    assert verdict.outcome == "wrong"
    assert "unread" not in verdict.evidence()


def test_unread_material_elsewhere_leaves_a_heard_value_correct() -> None:
    assert judge("Five of us met two zillion fans.", ["5"]).outcome == "correct"


# --- properties over generated readings ---------------------------------------------------------

values = st.one_of(
    st.integers(min_value=0, max_value=10**9),
    st.decimals(min_value=0, max_value=10**4, places=2, allow_nan=False, allow_infinity=False),
)
carriers = st.sampled_from(
    ["{} ", "It came to {} in the end.", "We counted {}, then stopped.", "About {} people came."]
)
#: Number-like words the English grammar does not read: in any order with number words, the
#: phrase they make is not one value the parser can read.
UNREAD_WORDS = ["zillion", "gazillion", "below", "odd", "halves", "thirds", "½", "¾"]


def _spoken(value: int | Decimal) -> str:
    return num2words(value) if isinstance(value, int) else num2words(value).replace(",", "")


def _words_of(value: int) -> list[str]:
    return _spoken(value).replace("-", " ").replace(",", "").split()


@PROPERTY
@given(value=values, carrier=carriers, data=st.data())
def test_an_unreadable_number_phrase_in_the_targets_place_is_never_wrong(
    value: int | Decimal, carrier: str, data: st.DataObject
) -> None:
    words = _words_of(data.draw(st.integers(min_value=1, max_value=999), label="other number"))
    unread = data.draw(st.sampled_from(UNREAD_WORDS), label="unread word")
    at = data.draw(st.integers(min_value=1, max_value=len(words)), label="where")
    phrase = " ".join([*words[:at], unread, *words[at:]])
    transcript = carrier.format(phrase)
    covered = [t for t in parse_numbers(transcript) if t.start <= transcript.index(unread) < t.end]
    assume(not covered)  # the grammar reads none of it as part of a number
    verdict = judge(transcript, [str(value)])
    assert verdict.outcome != "wrong", (transcript, verdict.evidence())
    if verdict.outcome == "unknown":
        assert verdict.unread, verdict.evidence()


@PROPERTY
@given(value=values, other=values, carrier=carriers)
def test_another_readable_value_in_the_targets_place_is_never_correct(
    value: int | Decimal, other: int | Decimal, carrier: str
) -> None:
    assume(Decimal(value) != Decimal(other))
    transcript = carrier.format(_spoken(other))
    verdict = judge(transcript, [str(value)])
    assert verdict.outcome != "correct", (transcript, verdict.evidence())
    assert verdict.outcome == "wrong" or verdict.unread


def test_every_finder_names_material_the_property_words_use() -> None:
    finder = material_finder_for("en")
    for word in UNREAD_WORDS:
        text = f"five {word}"
        assert any(text[m.start : m.end] == word and not m.joiner for m in finder(text)), word
