"""English readings people say, by class, with num2words as the oracle for the number words.

Each test draws members of a class (Indian scales, fractions composed with a scale, a unit or a
percent, per mille against percent, each currency's sub-unit, clock words that count back or add,
score words), renders the numbers in them with num2words, and checks the reading both ways: the
reading is ``correct`` for its value, and the same words with the value changed are never
``correct``.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from num2words import num2words

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer

CLASS = settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
NUMBERS = NumbersScorer()


def verdict(transcript: str, values: list[str], text: str = "") -> str:
    return NUMBERS.score(transcript, {"values": values}, ScoreContext(language="en", text=text)).outcome


def words(number: int) -> str:
    return num2words(number)


def plain(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- Indian scale words -------------------------------------------------------------------------

SCALE_WORDS = {"lakh": 10**5, "lakhs": 10**5, "crore": 10**7, "crores": 10**7}


@CLASS
@given(
    crore=st.integers(0, 99),
    lakh=st.integers(0, 99),
    rest=st.integers(0, 99_999),
    plural=st.booleans(),
    rupees=st.booleans(),
)
def test_lakh_and_crore_compose_like_any_scale(crore: int, lakh: int, rest: int, plural: bool, rupees: bool) -> None:
    assume(crore or lakh)
    parts = []
    if crore:
        parts.append(f"{words(crore)} crore{'s' if plural and crore > 1 else ''}")
    if lakh:
        parts.append(f"{words(lakh)} lakh{'s' if plural and lakh > 1 else ''}")
    if rest:
        parts.append(words(rest))
    value = crore * 10**7 + lakh * 10**5 + rest
    said = " ".join(parts) + (" rupees" if rupees else "")
    text = f"₹{value:,}" if rupees else f"{value:,}"
    assert verdict(f"It cost {said}.", [str(value)], text) == "correct", said
    # The other scale word is another number.
    swapped = said.replace("crore", "@").replace("lakh", "crore").replace("@", "lakh")
    if crore != lakh:
        assert verdict(f"It cost {swapped}.", [str(value)], text) != "correct", swapped


@CLASS
@given(
    count=st.integers(1, 99), scale=st.sampled_from(sorted(SCALE_WORDS)), fraction=st.sampled_from(["half", "quarter"])
)
def test_a_mixed_number_of_lakhs_or_crores(count: int, scale: str, fraction: str) -> None:
    part = Decimal("0.5") if fraction == "half" else Decimal("0.25")
    value = plain((count + part) * SCALE_WORDS[scale])
    said = f"{words(count)} and a {fraction} {scale} rupees"
    assert verdict(said, [value], f"₹{value}") == "correct", said
    # Without its fraction it is another number.
    assert verdict(said.replace(f" and a {fraction}", ""), [value], f"₹{value}") != "correct"


# --- fractions composed with a scale, a unit, a currency or a percent ---------------------------

DENOMINATORS = [2, 4, 5, 8, 10, 20, 100]


def fraction_noun(numerator: int, denominator: int) -> str:
    noun = {2: "half", 4: "quarter"}.get(denominator) or num2words(denominator, to="ordinal").removeprefix("one ")
    if numerator == 1:
        return noun
    return "halves" if noun == "half" else f"{noun}s"


fractions = st.sampled_from(DENOMINATORS).flatmap(lambda d: st.tuples(st.integers(1, d - 1), st.just(d)))


@CLASS
@given(
    fraction=fractions,
    scale=st.sampled_from([("thousand", 10**3), ("million", 10**6), ("billion", 10**9), ("lakh", 10**5)]),
)
def test_a_fraction_of_a_scale(fraction: tuple[int, int], scale: tuple[str, int]) -> None:
    numerator, denominator = fraction
    value = plain(Decimal(numerator) / denominator * scale[1])
    said = f"{words(numerator)} {fraction_noun(numerator, denominator)} of a {scale[0]}"
    assert verdict(f"about {said} people", [value]) == "correct", said
    other = plain(Decimal(numerator) / denominator)
    assert verdict(f"about {said} people", [other]) != "correct", said


@CLASS
@given(fraction=fractions, unit=st.sampled_from(["litre", "kilometre", "mile", "kilogram", "cup", "hour"]))
def test_a_fraction_of_a_unit(fraction: tuple[int, int], unit: str) -> None:
    numerator, denominator = fraction
    value = plain(Decimal(numerator) / denominator)
    said = f"{words(numerator)} {fraction_noun(numerator, denominator)} of a {unit}"
    assert verdict(f"Add {said}.", [value]) == "correct", said
    assert verdict(f"Add {said}.", [str(numerator)]) != "correct", said


@CLASS
@given(fraction=fractions, one=st.sampled_from(["one", "a"]))
def test_a_fraction_of_one_percent(fraction: tuple[int, int], one: str) -> None:
    numerator, denominator = fraction
    value = plain(Decimal(numerator) / denominator)
    said = f"{words(numerator)} {fraction_noun(numerator, denominator)} of {one} percent"
    assert verdict(f"Rates rose {said}.", [value], f"Rates rose {value}%.") == "correct", said
    # The "one" of "of one percent" belongs to the fraction: it is not 1%.
    assert verdict(f"Rates rose {said}.", ["1"], "Rates rose 1%.") != "correct", said


@CLASS
@given(
    whole=st.integers(1, 999),
    fraction=fractions,
    unit=st.sampled_from(["kilometres", "litres", "million", "thousand dollars", "percent", "hours"]),
)
def test_a_mixed_number_with_a_unit_or_scale(whole: int, fraction: tuple[int, int], unit: str) -> None:
    numerator, denominator = fraction
    # "three hundred and two quarters" is also (three hundred and two) quarters: left out.
    assume(numerator == 1 or whole % 100)
    part = Decimal(whole) + Decimal(numerator) / denominator
    scale = 10**6 if unit == "million" else 10**3 if unit.startswith("thousand") else 1
    value = plain(part * scale)
    count = "a" if numerator == 1 else words(numerator)
    said = f"{words(whole)} and {count} {fraction_noun(numerator, denominator)} {unit}"
    assert verdict(f"It was {said}.", [value]) == "correct", said
    assert verdict(f"It was {said}.", [str(whole * scale)]) != "correct", said


# --- per mille is not percent -------------------------------------------------------------------

amounts = st.one_of(st.integers(1, 999).map(str), st.integers(1, 999).map(lambda n: plain(Decimal(n) / 10)))


def spoken(value: str) -> str:
    return num2words(Decimal(value)) if "." in value else words(int(value))


@CLASS
@given(value=amounts, mille=st.sampled_from(["per mille", "per mil", "per thousand"]))
def test_per_mille_never_satisfies_a_percent(value: str, mille: str) -> None:
    assert verdict(f"It rose {spoken(value)} percent.", [value], f"It rose {value}%.") == "correct"
    assert verdict(f"It rose {spoken(value)} {mille}.", [value], f"It rose {value}%.") == "wrong"
    assert verdict(f"It rose {spoken(value)} {mille}.", [value], f"It rose {value}‰.") == "correct"
    assert verdict(f"It rose {spoken(value)} percent.", [value], f"It rose {value}‰.") == "wrong"


# --- sub-units have their own value -------------------------------------------------------------

CURRENCIES = [("USD", "$", "cents"), ("EUR", "€", "cents"), ("GBP", "£", "pence"), ("INR", "₹", "paise")]


@CLASS
@given(currency=st.sampled_from(CURRENCIES), whole=st.integers(1, 9999), sub=st.integers(1, 99))
def test_an_amount_with_its_sub_unit(currency: tuple[str, str, str], whole: int, sub: int) -> None:
    code, sign, _ = currency
    value = f"{whole}.{sub:02d}"
    said = num2words(Decimal(value), to="currency", currency=code)
    assert verdict(f"It came to {said}.", [value], f"It came to {sign}{value}.") == "correct", said
    other = f"{whole}.{(sub % 99) + 1:02d}"
    assert verdict(f"It came to {said}.", [other], f"It came to {sign}{other}.") != "correct", said


@CLASS
@given(currency=st.sampled_from(CURRENCIES), sub=st.integers(2, 99), glued=st.booleans())
def test_a_sub_unit_is_never_the_whole_unit(currency: tuple[str, str, str], sub: int, glued: bool) -> None:
    code, sign, name = currency
    said = f"{sub}p" if glued and code == "GBP" else f"{words(sub)} {name}"
    # "20p" / "twenty pence" for £20: pence are not pounds.
    assert verdict(f"It was {said}.", [str(sub)], f"It was {sign}{sub}.") == "wrong", said
    # ... and they are what they are: 0.20 of the unit.
    assert verdict(f"It was {said}.", [f"0.{sub:02d}"], f"It was {sign}0.{sub:02d}.") == "correct", said


@CLASS
@given(whole=st.integers(1, 999), sub=st.integers(1, 99))
def test_pounds_then_an_unnamed_sub_unit(whole: int, sub: int) -> None:
    said = f"{words(whole)} pounds {words(sub)}"
    assert verdict(f"That's {said}.", [f"{whole}.{sub:02d}"], f"That's £{whole}.{sub:02d}.") == "correct", said


@CLASS
@given(sub=st.integers(1, 99), other=st.sampled_from([("dollars", "cents"), ("euros", "cents")]))
def test_a_sub_unit_does_not_make_another_currency_right(sub: int, other: tuple[str, str]) -> None:
    said = f"two {other[0]} {words(sub)} pence"
    assert verdict(said, [f"2.{sub:02d}"], f"£2.{sub:02d}") != "correct", said


# --- clock words that count back or add ---------------------------------------------------------


@CLASS
@given(
    hour=st.integers(1, 12),
    minutes=st.sampled_from([5, 10, 15, 20, 25]),
    to=st.sampled_from(["at {m} to {h}", "{m} till {h}", "at {m} minutes to {h}", "by {m} of {h}"]),
)
def test_minutes_to_the_hour_count_back(hour: int, minutes: int, to: str) -> None:
    said = to.format(m="quarter" if minutes == 15 and "minutes" not in to else words(minutes), h=words(hour))
    before = hour - 1 or 12
    assert verdict(said, [str(before), f"{60 - minutes:02d}"]) == "correct", said
    assert verdict(said, [str(hour), f"{60 - minutes:02d}"]) != "correct", said


@CLASS
@given(hour=st.integers(1, 12), minutes=st.sampled_from([5, 10, 15, 20, 25, 30]))
def test_minutes_past_the_hour_add(hour: int, minutes: int) -> None:
    said_minutes = {15: "quarter", 30: "half"}.get(minutes, words(minutes))
    said = f"{said_minutes} past {words(hour)}"
    assert verdict(said, [str(hour), f"{minutes:02d}"]) == "correct", said
    assert verdict(said, [str(hour % 12 + 1), f"{minutes:02d}"]) != "correct", said


# --- score words --------------------------------------------------------------------------------


@CLASS
@given(score=st.integers(1, 15), zero=st.sampled_from(["love", "nil", "-love", "-nil"]))
def test_love_and_nil_are_a_scores_zero(score: int, zero: str) -> None:
    said = f"It finished {words(score)}{zero if zero.startswith('-') else ' ' + zero}."
    assert verdict(said, [str(score), "0"], f"It finished {score}-0.") == "correct", said
    assert verdict(said, [str(score), "1"], f"It finished {score}-1.") != "correct", said


# --- units: a value said in another unit is another measure -------------------------------------

UNITS = [("km", "kilometres", "miles"), ("kg", "kilograms", "pounds"), ("°C", "degrees celsius", "degrees fahrenheit")]


@CLASS
@given(value=amounts, unit=st.sampled_from(UNITS), spaced=st.booleans())
def test_a_value_in_another_unit_is_wrong(value: str, unit: tuple[str, str, str], spaced: bool) -> None:
    sign, name, other = unit
    text = f"It is {value}{' ' if spaced else ''}{sign} away."
    assert verdict(f"It is {spoken(value)} {name} away.", [value], text) == "correct"
    assert verdict(f"It is {spoken(value)} {other} away.", [value], text) == "wrong"
    assert verdict(f"It is {spoken(value)} away.", [value], text) == "correct"  # the unit unsaid: judged on the value
