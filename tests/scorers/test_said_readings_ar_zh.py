"""Readings people say in Arabic and Chinese, by class, over generated members of each class.

The number words come from oracles no one here wrote (num2words for Arabic, cn2an for Chinese);
the class supplies the frame around them: a fraction with a scale or a unit, per mille, a
currency's sub-unit with its own value, a clock that counts back (إلا, 差) or adds 12 hours
(下午), 廿/卅 in a date, a colloquial unit decimal (一米八, 两公里半, 一块五), a score. Each member
must be ``correct`` for its value and ``wrong`` for the value a careless reader would take from it
(5‰ for 5%, the 5 of 五毛 for ¥5, the 3 of 三点差五分 for 3:05).
"""

from __future__ import annotations

from decimal import Decimal

import cn2an
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from num2words import num2words

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer
from pytest_ttsbench.scorers.readings import ReadingsScorer
from pytest_ttsbench.scorers.semantic_zh import SemanticScorer

CLASS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
NUMBERS = NumbersScorer()


def outcome(language: str, transcript: str, values: list[str], text: str = "") -> str:
    return NUMBERS.score(transcript, {"values": values}, ScoreContext(language=language, text=text)).outcome


def plain(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- Chinese ------------------------------------------------------------------------------------


def cn(value: int) -> str:
    return str(cn2an.an2cn(str(value), "low"))


CN_DIGIT = "零一二三四五六七八九"


@CLASS
@given(month=st.integers(1, 12), day=st.integers(20, 39).filter(lambda d: d % 10 or d == 20))
def test_chinese_old_tens_in_dates(month: int, day: int) -> None:
    """三月廿五日 is March 25, 卅 is thirty; another day is another value."""
    tens = "廿" if day < 30 else "卅"
    said = f"{cn(month)}月{tens}{CN_DIGIT[day % 10] if day % 10 else ''}日"
    assert outcome("zh", said, [str(month), str(day)]) == "correct", said
    assert outcome("zh", said, [str(month), str(day + 1)]) == "wrong", said


FINITE_DENOMINATORS = (2, 4, 5, 8, 10, 20, 25, 50, 100)
ZH_UNITS = ("升", "米", "公斤", "小时", "吨")


@CLASS
@given(denominator=st.sampled_from(FINITE_DENOMINATORS), data=st.data(), unit=st.sampled_from(ZH_UNITS))
def test_chinese_fraction_with_a_unit(denominator: int, data: st.DataObject, unit: str) -> None:
    """四分之三升 is 0.75 L; it says neither 3 L nor 4 L."""
    numerator = data.draw(st.integers(1, denominator - 1))
    value = plain(Decimal(numerator) / denominator)
    said = f"{cn(denominator)}分之{cn(numerator)}{unit}"
    assert outcome("zh", said, [value], f"{value}{unit}") == "correct", said
    assert outcome("zh", said, [str(numerator)], f"{numerator}{unit}") == "wrong", said


@CLASS
@given(whole=st.integers(1, 9), tenth=st.integers(1, 9), unit=st.sampled_from(("米", "块", "元", "斤")))
def test_chinese_colloquial_unit_decimals(whole: int, tenth: int, unit: str) -> None:
    """一米八 is 1.8 m, 一块五 1.5 yuan: the digit after the unit is its tenth, not a number of its own."""
    said = f"{cn(whole)}{unit}{CN_DIGIT[tenth]}"
    value = f"{whole}.{tenth}"
    assert outcome("zh", said, [value], f"{value}{unit}") == "correct", said
    assert outcome("zh", said, [str(whole)], f"{whole}{unit}") == "wrong", said


@CLASS
@given(whole=st.integers(1, 99), unit=st.sampled_from(("公里", "个小时", "斤", "年", "天", "米")))
def test_chinese_half_after_a_unit(whole: int, unit: str) -> None:
    """两公里半 is 2.5 km, 一个半小时 1.5 hours."""
    said = f"{cn(whole)}{unit}半"
    assert outcome("zh", said, [f"{whole}.5"], f"{whole}.5{unit}") == "correct", said
    assert outcome("zh", said, [str(whole)], f"{whole}{unit}") == "wrong", said


@CLASS
@given(value=st.integers(1, 999), prefix=st.sampled_from(("千分之", "万分之")))
def test_chinese_per_mille_is_not_per_cent(value: int, prefix: str) -> None:
    """千分之五 is 5‰ (0.5%): it satisfies 5‰ and 0.5%, never 5%."""
    said = prefix + cn(value)
    sign, power = ("‰", 1) if prefix == "千分之" else ("‱", 2)
    as_percent = plain(Decimal(value).scaleb(-power))
    assert outcome("zh", said, [str(value)], f"{value}{sign}") == "correct", said
    assert outcome("zh", said, [as_percent], f"{as_percent}%") == "correct", said
    assert outcome("zh", said, [str(value)], f"{value}%") == "wrong", said


@CLASS
@given(yuan=st.integers(1, 999), jiao=st.integers(1, 9), word=st.sampled_from(("块", "元")))
def test_chinese_sub_units_have_their_own_value(yuan: int, jiao: int, word: str) -> None:
    """三块五毛 is 3.5 yuan; 五毛 is 0.5 yuan, and the 5 of ¥5 it is not."""
    said = f"{cn(yuan)}{word}{CN_DIGIT[jiao]}毛"
    amount = f"{yuan}.{jiao}"
    assert outcome("zh", said, [amount], f"¥{amount}") == "correct", said
    assert outcome("zh", said, [str(yuan)], f"¥{yuan}") == "wrong", said
    alone = f"{CN_DIGIT[jiao]}毛"
    assert outcome("zh", alone, [f"0.{jiao}"], f"¥0.{jiao}") == "correct", alone
    assert outcome("zh", alone, [str(jiao)], f"{jiao}毛") == "correct", alone
    assert outcome("zh", alone, [str(jiao)], f"¥{jiao}") == "wrong", alone
    assert outcome("zh", f"{CN_DIGIT[jiao]}块", [str(jiao)], f"{jiao}毛") == "wrong", alone


@CLASS
@given(hour=st.integers(2, 12), minutes=st.integers(1, 30), before=st.booleans())
def test_chinese_clock_counting_back_with_cha(hour: int, minutes: int, before: bool) -> None:
    """三点差五分 and 差五分三点 are 2:55, not 3:05."""
    said = f"差{cn(minutes)}分{cn(hour)}点" if before else f"{cn(hour)}点差{cn(minutes)}分"
    assert outcome("zh", said, [str(hour - 1), f"{60 - minutes:02d}"]) == "correct", said
    assert outcome("zh", said, [str(hour), f"{minutes:02d}"]) == "wrong", said


@CLASS
@given(hour=st.integers(1, 11), word=st.sampled_from(("下午", "晚上", "傍晚")))
def test_chinese_afternoon_adds_twelve_hours(hour: int, word: str) -> None:
    """下午三点 is 15:00; 上午三点 is not."""
    assert outcome("zh", f"{word}{cn(hour)}点", [str(hour + 12)]) == "correct"
    assert outcome("zh", f"上午{cn(hour)}点", [str(hour + 12)]) == "wrong"


@CLASS
@given(home=st.integers(0, 9), away=st.integers(0, 9))
def test_chinese_scores(home: int, away: int) -> None:
    """两比零 is 2:0, and no subtraction."""
    said = f"{'两' if home == 2 else CN_DIGIT[home]}比{CN_DIGIT[away]}"
    assert outcome("zh", said, [str(home), str(away)]) == "correct", said
    assert outcome("zh", said, [str(home), str(away + 1)]) == "wrong", said


# --- Arabic -------------------------------------------------------------------------------------


def ar(value: int) -> str:
    return str(num2words(value, lang="ar"))


AR_PARTS = {4: "أرباع", 5: "أخماس", 8: "أثمان", 10: "أعشار"}
AR_SCALES = {"ألف": 10**3, "مليون": 10**6, "مليار": 10**9}


@CLASS
@given(denominator=st.sampled_from(sorted(AR_PARTS)), data=st.data(), scale=st.sampled_from(sorted(AR_SCALES)))
def test_arabic_fraction_of_a_scale(denominator: int, data: st.DataObject, scale: str) -> None:
    """ثلاثة أرباع مليون is 750000; it is no 3 million."""
    numerator = data.draw(st.integers(3, denominator - 1))
    said = f"{ar(numerator)} {AR_PARTS[denominator]} {scale}"
    value = plain(Decimal(numerator) / denominator * AR_SCALES[scale])
    assert outcome("ar", said, [value]) == "correct", said
    assert outcome("ar", said, [str(numerator * AR_SCALES[scale])]) == "wrong", said


@CLASS
@given(denominator=st.sampled_from(sorted(AR_PARTS)), data=st.data(), unit=st.sampled_from(("لتر", "متر", "كيلوغرام")))
def test_arabic_fraction_of_a_unit(denominator: int, data: st.DataObject, unit: str) -> None:
    """ثلاثة أرباع لتر is 0.75 L."""
    numerator = data.draw(st.integers(3, denominator - 1))
    said = f"{ar(numerator)} {AR_PARTS[denominator]} {unit}"
    value = plain(Decimal(numerator) / denominator)
    assert outcome("ar", said, [value], f"{value} {unit}") == "correct", said
    assert outcome("ar", said, [str(numerator)], f"{numerator} {unit}") == "wrong", said


@CLASS
@given(whole=st.integers(1, 999), fraction=st.sampled_from(("ونصف", "وربع")))
def test_arabic_mixed_numbers(whole: int, fraction: str) -> None:
    """خمسة ونصف is 5.5; the whole alone is another value."""
    value = f"{whole}.{'5' if fraction == 'ونصف' else '25'}"
    said = f"{ar(whole)} {fraction}"
    assert outcome("ar", said, [value]) == "correct", said


@CLASS
@given(value=st.integers(1, 999))
def test_arabic_per_mille_is_not_per_cent(value: int) -> None:
    """خمسة في الألف is 5‰ (0.5%): never 5%."""
    said = f"{ar(value)} في الألف"
    assert outcome("ar", said, [str(value)], f"{value}‰") == "correct", said
    assert outcome("ar", said, [plain(Decimal(value) / 10)], f"{plain(Decimal(value) / 10)}%") == "correct", said
    assert outcome("ar", said, [str(value)], f"{value}%") == "wrong", said
    assert outcome("ar", f"{ar(value)} في المئة", [str(value)], f"{value}%") == "correct"


AR_MINOR = (("دينار", "فلس", 1000, "KWD"), ("ريال", "هللة", 100, "SAR"), ("جنيه", "قرش", 100, "EGP"))


@CLASS
@given(whole=st.integers(3, 99), data=st.data(), currency=st.sampled_from(AR_MINOR))
def test_arabic_sub_units_have_their_own_value(
    whole: int, data: st.DataObject, currency: tuple[str, str, int, str]
) -> None:
    """ديناران ومئتان وخمسون فلسًا is 2.250: a dinar is 1000 fils, a riyal 100 halalas."""
    unit, sub, per, code = currency
    count = data.draw(st.integers(1, per - 1))
    digits = len(str(per)) - 1
    amount = f"{whole}.{count:0{digits}d}"
    said = f"{ar(whole)} {unit} و{ar(count)} {sub}"
    assert outcome("ar", said, [amount], f"{amount} {code}") == "correct", said
    hundredths = plain(Decimal(whole) + Decimal(count) / 100)
    if per != 100 and count < 100:
        assert outcome("ar", said, [hundredths], f"{hundredths} {code}") == "wrong", said


AR_HOURS = {
    1: "الواحدة", 2: "الثانية", 3: "الثالثة", 4: "الرابعة", 5: "الخامسة", 6: "السادسة", 7: "السابعة",
    8: "الثامنة", 9: "التاسعة", 10: "العاشرة", 11: "الحادية عشرة", 12: "الثانية عشرة",
}  # fmt: skip


@CLASS
@given(hour=st.integers(2, 12), minutes=st.sampled_from((5, 10, 20, 25)), sentence=st.booleans())
def test_arabic_clock_counting_back_with_illa(hour: int, minutes: int, sentence: bool) -> None:
    """الثالثة إلا خمس دقائق is 2:55 (with or without الساعة), not 3:05."""
    said = f"{'الساعة ' if sentence else ''}{AR_HOURS[hour]} إلا {ar(minutes)} دقائق"
    assert outcome("ar", said, [str(hour - 1), str(60 - minutes)]) == "correct", said
    assert outcome("ar", said, [str(hour), f"{minutes:02d}"]) == "wrong", said


@pytest.mark.parametrize(
    ("said", "values", "result"),
    [
        ("الساعة الثالثة إلا ربعًا", ["2", "45"], "correct"),
        ("الساعة الثالثة إلا ثلثًا", ["2", "40"], "correct"),
        ("الثالثة والنصف", ["3", "30"], "correct"),
        ("الثالثة والربع", ["3", "15"], "correct"),
        ("الثالثة والثلث", ["3", "20"], "correct"),
        ("الساعة الثالثة مساءً", ["15"], "correct"),
        ("الساعة الثالثة صباحًا", ["15"], "wrong"),
        ("فاز الفريق بثلاثية نظيفة", ["3", "0"], "correct"),
        ("فاز بهدفين مقابل هدف", ["2", "1"], "correct"),
        ("فاز بهدف مقابل لا شيء", ["1", "0"], "correct"),
        ("فاز بهدفين نظيفين", ["2", "0"], "correct"),
        ("فاز بهدفين مقابل هدف", ["2", "2"], "wrong"),
    ],
)
def test_arabic_clock_and_score_words(said: str, values: list[str], result: str) -> None:
    assert outcome("ar", said, values) == result


@CLASS
@given(away=st.integers(0, 9), listed=st.sampled_from(("二", "两")), heard=st.sampled_from(("二", "两")))
def test_chinese_readings_take_two_either_way_before_a_score_or_unit(away: int, listed: str, heard: str) -> None:
    """A readings target listing 二比零 accepts 两比零 and the other way round; 十二比零 is no 两比零."""
    scorer = ReadingsScorer()
    context = ScoreContext(language="zh", text=f"2-{away}")
    target = {"span": f"2-{away}", "positive": [f"{listed}比{CN_DIGIT[away]}"]}
    assert scorer.score(f"比分{heard}比{CN_DIGIT[away]}", target, context).outcome == "correct"
    assert scorer.score(f"比分十{heard}比{CN_DIGIT[away]}", target, context).outcome != "correct"


@CLASS
@given(whole=st.integers(1, 9), tenth=st.integers(1, 9), denominator=st.sampled_from((2, 4, 5, 8)))
def test_chinese_semantic_units_read_the_same_grammar(whole: int, tenth: int, denominator: int) -> None:
    """The semantic scorer's units read 一米八, 两公里半 and 四分之三升 as the numbers scorer does."""
    scorer = SemanticScorer()
    context = ScoreContext(language="zh")

    def unit(said: str, value: str, name: str) -> str:
        return scorer.score(said, {"type": "unit", "value": value, "unit": name}, context).outcome

    assert unit(f"{cn(whole)}米{CN_DIGIT[tenth]}", f"{whole}.{tenth}", "m") == "correct"
    assert unit(f"{cn(whole)}米{CN_DIGIT[tenth]}", str(whole), "m") == "wrong"
    assert unit(f"{cn(whole)}公里半", f"{whole}.5", "km") == "correct"
    numerator = denominator - 1
    assert unit(f"{cn(denominator)}分之{cn(numerator)}升", plain(Decimal(numerator) / denominator), "L") == "correct"


@CLASS
@given(hour=st.integers(1, 12), minutes=st.integers(1, 29))
def test_chinese_clock_past_with_guo(hour: int, minutes: int) -> None:
    """三点过五分 is 3:05 (过 past the hour), not 3 and 5 of something else."""
    said = f"{cn(hour)}点过{cn(minutes)}分"
    assert outcome("zh", said, [str(hour), f"{minutes:02d}"]) == "correct", said
    assert outcome("zh", said, [str(hour), f"{minutes + 1:02d}"]) == "wrong", said


@CLASS
@given(hour=st.integers(1, 12), minutes=st.sampled_from((5, 10, 20, 25)))
def test_arabic_minutes_after_the_hour_without_saat(hour: int, minutes: int) -> None:
    """الثالثة وخمس دقائق tells the time without الساعة: 3:05."""
    said = f"وصلنا {AR_HOURS[hour]} و{ar(minutes)} دقائق"
    assert outcome("ar", said, [str(hour), f"{minutes:02d}"]) == "correct", said
    assert outcome("ar", said, [str(hour % 12 + 1), f"{minutes:02d}"]) == "wrong", said


@CLASS
@given(hour=st.integers(1, 11), zh_end=st.sampled_from(("", "钟", "整")))
def test_a_whole_hour_is_its_hour_and_00(hour: int, zh_end: str) -> None:
    """下午三点 and الساعة الثالثة مساءً are 15:00; the 00 never runs into the hour (300)."""
    assert outcome("zh", f"下午{cn(hour)}点{zh_end}开会", [str(hour + 12), "00"]) == "correct"
    assert outcome("zh", f"{cn(hour)}点{zh_end}", [f"{hour}00"]) == "wrong"
    assert outcome("ar", f"الساعة {AR_HOURS[hour]} مساءً", [str(hour + 12), "00"]) == "correct"
    assert outcome("ar", f"الساعة {AR_HOURS[hour]}", [f"{hour}00"]) == "wrong"
    assert outcome("ar", f"الساعة {AR_HOURS[hour]} وعشر دقائق", [str(hour), "00"]) == "wrong"
