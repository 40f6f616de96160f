"""Rules that compose: every short-form, zero, sub-unit, scale and sign rule inside every frame.

Each rule is written once, as a (reading, value) pair, and checked inside each frame it can
appear in: alone, in a decimal, a currency amount, a unit, a range and a date. A reading that
changes the value is checked the same way and must be rejected. The issue's probes (一千五点三,
新元, "three nil", "four thousand million", "three pounds forty-five", ألفا before a noun,
تحت الصفر, riyals with halalas) are members of these families; on main they were each misjudged.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer
from pytest_ttsbench.scorers.semantic_zh import SemanticScorer

NUMBERS = NumbersScorer()
SEMANTIC = SemanticScorer()


def numbers(language: str, transcript: str, values: list[str], text: str = "") -> str:
    return NUMBERS.score(transcript, {"values": values}, ScoreContext(language=language, text=text)).outcome


# --- Chinese: zero and short-form rules --------------------------------------------------------

#: (integer part as said, its value): the zero keeps the place, the short form fills it.
ZH_INTEGER_PARTS = [
    ("一千五", "1500"),
    ("一千零五", "1005"),
    ("一万五", "15000"),
    ("一万零五", "10005"),
    ("三百二", "320"),
    ("三百零二", "302"),
    ("两千零二", "2002"),
]
#: Frames: how a number sits in a transcript, and the expected values it gives for an integer part.
ZH_FRAMES: dict[str, Callable[[str, str], tuple[str, list[str]]]] = {
    "alone": lambda said, value: (f"共{said}人", [value]),
    "decimal": lambda said, value: (f"{said}点三", [f"{value}.3"]),
    "range": lambda said, value: (f"{said}到{said}点五", [value, f"{value}.5"]),
    "percent": lambda said, value: (f"百分之{said}点二", [f"{value}.2"]),
    "negative": lambda said, value: (f"零下{said}点五度", [f"-{value}.5"]),
}


@pytest.mark.parametrize("frame", sorted(ZH_FRAMES))
@pytest.mark.parametrize(("said", "value"), ZH_INTEGER_PARTS)
def test_chinese_zero_and_short_forms_hold_in_every_frame(frame: str, said: str, value: str) -> None:
    transcript, expected = ZH_FRAMES[frame](said, value)
    assert numbers("zh", transcript, expected) == "correct", transcript
    # The reading with the zero the other way round is another number, in every frame.
    other = said.replace("零", "") if "零" in said else said[:2] + "零" + said[2:]
    other_transcript, _ = ZH_FRAMES[frame](other, value)
    assert numbers("zh", other_transcript, expected) == "wrong", other_transcript


@pytest.mark.parametrize(("said", "value"), ZH_INTEGER_PARTS)
@pytest.mark.parametrize(("unit", "code"), [("块", "CNY"), ("新元", "SGD"), ("美金", "USD"), ("港币", "HKD")])
def test_chinese_short_forms_in_currency_amounts(said: str, value: str, unit: str, code: str) -> None:
    expect = {"type": "currency", "amount": value, "currency": code}
    context = ScoreContext(language="zh", text=f"{value}{code}")
    assert SEMANTIC.score(f"{said}{unit}", expect, context).outcome == "correct"
    other = said.replace("零", "") if "零" in said else said[:2] + "零" + said[2:]
    assert SEMANTIC.score(f"{other}{unit}", expect, context).outcome == "wrong"


@pytest.mark.parametrize(("said", "value"), [("一千五", "1500"), ("一千零五", "1005"), ("两万零五", "20005")])
def test_chinese_short_forms_in_units(said: str, value: str) -> None:
    expect = {"type": "unit", "value": value, "unit": "m", "exponent": 2}
    context = ScoreContext(language="zh", text=f"{value}m²")
    assert SEMANTIC.score(f"{said}平方米", expect, context).outcome == "correct"
    assert SEMANTIC.score(f"{said}米", expect, context).outcome == "wrong"


def test_the_issue_probe_a_dropped_zero_before_the_decimal_point() -> None:
    assert numbers("zh", "一千五点三", ["1500.3"]) == "correct"
    assert numbers("zh", "一千五点三", ["1005.3"]) == "wrong"
    assert numbers("zh", "一千零五点三", ["1500.3"]) == "wrong"


def test_xinyuan_is_the_singapore_dollar() -> None:
    expect = {"type": "currency", "amount": "100", "currency": "SGD"}
    context = ScoreContext(language="zh", text="S$100")
    assert SEMANTIC.score("一百新元", expect, context).outcome == "correct"
    assert SEMANTIC.score("一百港元", expect, context).outcome == "wrong"


# --- English: scales, scores, sub-units, signs --------------------------------------------------

EN_SCALES = [
    ("four thousand million", "4000000000"),
    ("two hundred thousand million", "200000000000"),
    ("a thousand million", "1000000000"),
    ("two million million", "2000000000000"),
    ("one hundred and one thousand", "101000"),
    ("two thousand, one hundred", "2100"),
]
EN_FRAMES: dict[str, Callable[[str, str], tuple[str, list[str], str]]] = {
    "alone": lambda said, value: (f"about {said} people", [value], ""),
    "currency": lambda said, value: (f"{said} pounds", [value], f"£{value}"),
    "negative": lambda said, value: (f"minus {said}", [f"-{value}"], ""),
    "range": lambda said, value: (f"from {said} to five", [value, "5"], ""),
    "decimal": lambda said, value: (f"{said} point five", [f"{value}.5"], ""),
}


@pytest.mark.parametrize("frame", sorted(EN_FRAMES))
@pytest.mark.parametrize(("said", "value"), EN_SCALES)
def test_english_scale_paraphrases_hold_in_every_frame(frame: str, said: str, value: str) -> None:
    transcript, expected, text = EN_FRAMES[frame](said, value)
    assert numbers("en", transcript, expected, text) == "correct", transcript
    # A wrong scale word is another number, or scale words no one reads as one ("two hundred
    # hundred million": unknown, never correct).
    wrong = said.replace("thousand", "hundred", 1) if "thousand" in said else said.replace("million", "thousand")
    wrong_transcript, _, _ = EN_FRAMES[frame](wrong, value)
    assert numbers("en", wrong_transcript, expected, text) != "correct", wrong_transcript


@pytest.mark.parametrize(
    ("transcript", "values"),
    [("they won three nil", ["3", "0"]), ("it finished two-nil", ["2", "0"]), ("nil percent", ["0"])],
)
def test_english_nil_is_zero(transcript: str, values: list[str]) -> None:
    assert numbers("en", transcript, values) == "correct"


@pytest.mark.parametrize(
    "transcript",
    [
        "it costs three pounds forty-five.",
        "three pounds forty-five a month",
        "three quid forty-five",
        "three pounds and forty-five",
        "three pounds, forty-five pence",
        "three pounds sterling, forty-five pence",
    ],
)
def test_english_sub_units_with_or_without_their_word(transcript: str) -> None:
    assert numbers("en", transcript, ["3.45"], "£3.45") == "correct"
    assert numbers("en", transcript, ["3.54"], "£3.54") == "wrong"


def test_english_unnamed_sub_units_do_not_take_a_counted_noun() -> None:
    assert numbers("en", "five pounds twenty people", ["5.20"], "£5.20") == "wrong"
    assert numbers("en", "three euros forty-five", ["3.45"], "£3.45") == "wrong"  # another currency


# --- Arabic: construct duals, sign words, sub-units ---------------------------------------------

AR_CASES = [
    # construct dual before a noun, in each frame
    ("ألفا دولار", ["2000"], "2000 دولار"),
    ("مليونا نسمة", ["2000000"], ""),
    ("ألفا ريال وخمسون هللة", ["2000.50"], "2000.50 ريال"),
    ("ثلاثة ملايين وألفا دولار", ["3002000"], ""),
    # the singular with an undotted tanween stays one thousand
    ("ألفا ومئتين وخمسين دولارا", ["1250"], ""),
    ("عشرين ألفا دولار", ["20000"], ""),
    # the sign said as "below zero", with decimals and counted degrees
    ("ثلاث درجات تحت الصفر", ["-3"], ""),
    ("خمس درجات دون الصفر", ["-5"], ""),
    ("ثلاثة فاصلة خمسة تحت الصفر", ["-3.5"], ""),
    ("ألفا درجة تحت الصفر", ["-2000"], ""),
    # sub-units: halalas, piastres, cents, fils (1000 to the dinar, 100 to the dirham)
    ("خمسة ريالات وعشرون هللة", ["5.20"], "5.20 ريال"),
    ("اثنا عشر جنيها وخمسون قرشا", ["12.50"], ""),
    ("ثلاثة دولارات وخمسون سنتا", ["3.50"], "$3.50"),
    ("عشرة دنانير وخمسمائة فلس", ["10.5"], ""),
    ("عشرة دراهم وخمسون فلسا", ["10.50"], ""),
]


@pytest.mark.parametrize(("transcript", "values", "text"), AR_CASES)
def test_arabic_rules_hold_in_every_frame(transcript: str, values: list[str], text: str) -> None:
    assert numbers("ar", transcript, values, text) == "correct"


@pytest.mark.parametrize(
    ("transcript", "values"),
    [
        ("ألفا دولار", ["1000"]),  # the dual is two thousand
        ("ثلاث درجات تحت الصفر", ["3"]),  # the sign word is not lost
        ("خمسة ريالات وعشرون هللة", ["5"]),  # nor the sub-unit
        ("خمسة ريالات وعشرون طالبا", ["5.20"]),  # twenty students are no halalas
    ],
)
def test_arabic_value_changes_are_rejected(transcript: str, values: list[str]) -> None:
    assert numbers("ar", transcript, values) == "wrong"


# --- Chinese: width and script are folded before any rule -------------------------------------


@pytest.mark.parametrize(
    ("transcript", "values"),
    [
        ("兩千零五點三", ["2005.3"]),  # Traditional (OpenCC t2s)
        ("一千五點三", ["1500.3"]),
        ("１２３點５", ["123.5"]),  # full width (NFKC)
        ("負三點五", ["-3.5"]),
        ("百分之１５", ["15"]),
    ],
)
def test_chinese_traditional_and_full_width_forms_fold_first(transcript: str, values: list[str]) -> None:
    assert numbers("zh", transcript, values) == "correct"


@pytest.mark.parametrize(("transcript", "code"), [("一百港幣", "HKD"), ("一百新加坡幣", "SGD"), ("一百美金", "USD")])
def test_chinese_currency_names_in_traditional_script(transcript: str, code: str) -> None:
    expect = {"type": "currency", "amount": "100", "currency": code}
    assert SEMANTIC.score(transcript, expect, ScoreContext(language="zh", text=f"100{code}")).outcome == "correct"


# --- what is genuinely ambiguous is never correct for the strict numeric scorers -------------


@pytest.mark.parametrize(
    ("language", "transcript", "values", "text"),
    [
        ("en", "three forty-five", ["3.45"], "£3.45"),  # 3:45, or 345, or £3.45: no currency said
        ("en", "three fifty", ["3.50"], "$3.50"),
        ("zh", "十二块零五", ["12.05"], "¥12.05"),  # no 分: 12.05, or 12 and 5
        ("ar", "ألفا", ["2000"], ""),  # no noun after it: the singular with tanween as well
    ],
)
def test_ambiguous_readings_are_wrong_for_strict_scorers(
    language: str, transcript: str, values: list[str], text: str
) -> None:
    assert numbers(language, transcript, values, text) == "wrong"


def test_a_skipped_jiao_is_said_with_zero() -> None:
    expect = {"type": "currency", "amount": "12.05", "currency": "CNY"}
    context = ScoreContext(language="zh", text="¥12.05")
    assert SEMANTIC.score("十二块零五分", expect, context).outcome == "correct"
    assert SEMANTIC.score("十二块五分", expect, context).outcome == "wrong"
    assert SEMANTIC.score("十二块零五", expect, context).outcome == "wrong"


@pytest.mark.parametrize(
    ("transcript", "values"),
    [
        ("一点十分出发", ["1", "10"]),  # 十分 after an hour's 点 is ten minutes, not "very"
        ("三点半见", ["3", "30"]),
        ("一点一刻", ["1", "15"]),  # not the decimal 1.1
        ("八点三刻", ["8", "45"]),
        ("三点零五分", ["3", "05"]),
    ],
)
def test_chinese_clock_times_with_minute_words(transcript: str, values: list[str]) -> None:
    assert numbers("zh", transcript, values) == "correct"
    assert numbers("zh", transcript, [values[0], "20"]) == "wrong"


def test_chinese_very_stays_no_number() -> None:
    assert numbers("zh", "这十分重要，共三人", ["3"]) == "correct"
    assert numbers("zh", "这十分重要，共三人", ["10", "3"]) == "wrong"


@pytest.mark.parametrize(
    ("transcript", "value"),
    [
        ("two point five thousand million", "2500000000"),
        ("one and a half thousand million", "1500000000"),
        ("2.5 thousand million", "2500000000"),
    ],
)
def test_english_stacked_scales_after_a_decimal_or_fraction(transcript: str, value: str) -> None:
    assert numbers("en", transcript, [value]) == "correct"
    assert numbers("en", transcript, ["2500000"]) == "wrong"


@pytest.mark.parametrize(
    ("transcript", "amount"), [("三毛五", "0.35"), ("五毛钱", "0.5"), ("两角", "0.2"), ("八分钱", "0.08")]
)
def test_chinese_amounts_under_one_yuan(transcript: str, amount: str) -> None:
    expect = {"type": "currency", "amount": amount, "currency": "CNY"}
    context = ScoreContext(language="zh", text=f"¥{amount}")
    assert SEMANTIC.score(transcript, expect, context).outcome == "correct"
    expect_other = {"type": "currency", "amount": "0.9", "currency": "CNY"}
    assert SEMANTIC.score(transcript, expect_other, context).outcome == "wrong"
