"""The number scorers against oracles no one here wrote.

Values are generated in every form a scorer claims and rendered by independent libraries:
num2words for English and Arabic, cn2an for Chinese, and Babel's CLDR data for currency names.
Each rendering must be accepted for its value, and the rendering of a value-changing
perturbation (a digit dropped, inserted, replaced or transposed, a lost sign or sub-unit, a
scale off by a thousand) must be rejected. For Chinese, cn2an is also the judge of spoken
short forms and zeros: a 零 dropped from a rendering must be read as whatever cn2an reads it as.

A rendering the scorer does not handle yet fails the property unless a gap in
``oracle_gaps.GAPS`` claims it; that list is printed after every run.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import cn2an
import pytest
from babel.numbers import get_currency_name
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from num2words import num2words
from oracle_gaps import GAPS, Gap, defective

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer
from pytest_ttsbench.scorers.semantic_zh import SemanticScorer

# Moderate, deterministic: the same examples on every run and every machine.
ORACLE = settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
NUMBERS = NumbersScorer()


def verdict(language: str, rendering: str, values: list[str], text: str = "") -> str:
    return NUMBERS.score(rendering, {"values": values}, ScoreContext(language=language, text=text)).outcome


def claimed(language: str, form: str, rendering: str) -> Gap | None:
    return next((gap for gap in GAPS if gap.claims(language, form, rendering)), None)


def assert_accepted(language: str, form: str, rendering: str, values: list[str], text: str = "") -> None:
    assume(not defective(language, rendering))
    status = verdict(language, rendering, values, text)
    if status != "correct" and claimed(language, form, rendering) is None:
        raise AssertionError(f"{language} {form}: {rendering!r} for {values} is {status}, and no gap claims it")


def assert_rejected(language: str, rendering: str, values: list[str], text: str = "") -> None:
    if defective(language, rendering):
        return
    status = verdict(language, rendering, values, text)
    assert status == "wrong", f"{language}: {rendering!r} accepted for {values}"


# --- value-changing perturbations, shared by the languages -------------------------------------


def digit_perturbations(value: int) -> set[int]:
    """Every value one slip away: a digit dropped, inserted, replaced, two transposed; ×/÷ 1000."""
    digits = str(value)
    found: set[str] = set()
    for i in range(len(digits)):
        found.add(digits[:i] + digits[i + 1 :])
        found.add(digits[:i] + str((int(digits[i]) + 1) % 10) + digits[i + 1 :])
        if i + 1 < len(digits) and digits[i] != digits[i + 1]:
            found.add(digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :])
    for i in range(len(digits) + 1):
        found.add(digits[:i] + "7" + digits[i:])
    others = {int(d) for d in found if d and not (len(d) > 1 and d.startswith("0"))}
    others |= {value * 1000} | ({value // 1000} if value % 1000 == 0 and value >= 1000 else set())
    return others - {value}


def pick(values: set[int], index: int) -> int:
    ordered = sorted(values)
    return ordered[index % len(ordered)]


# --- English: num2words -------------------------------------------------------------------------

EN_FORMS: dict[str, tuple[Callable[[int], str], st.SearchStrategy[int]]] = {
    "cardinal": (lambda v: num2words(v, lang="en"), st.integers(0, 10**12)),
    "ordinal": (lambda v: num2words(v, lang="en", to="ordinal"), st.integers(1, 10**6)),
    "year": (lambda v: num2words(v, lang="en", to="year"), st.integers(1100, 2099)),
    "negative": (lambda v: num2words(-v, lang="en"), st.integers(1, 10**6)),
    "percent": (lambda v: num2words(v, lang="en") + " percent", st.integers(0, 1000)),
}


@pytest.mark.parametrize("form", sorted(EN_FORMS))
@ORACLE
@given(data=st.data())
def test_english_integer_forms(form: str, data: st.DataObject) -> None:
    render, values = EN_FORMS[form]
    value = data.draw(values)
    sign = "-" if form == "negative" else ""
    assert_accepted("en", form, render(value), [sign + str(value)])
    other = pick(digit_perturbations(value), data.draw(st.integers(0, 50)))
    assume(form != "year" or 1100 <= other <= 2099)
    assume(form != "ordinal" or other >= 1)
    assert_rejected("en", render(other), [sign + str(value)])
    if form == "negative":
        assert_rejected("en", num2words(value, lang="en"), ["-" + str(value)])  # the sign lost


@ORACLE
@given(whole=st.integers(0, 99999), places=st.integers(1, 3), data=st.data())
def test_english_decimals(whole: int, places: int, data: st.DataObject) -> None:
    fraction = data.draw(st.integers(0, 10**places - 1))
    value = Decimal(f"{whole}.{fraction:0{places}d}")
    assert_accepted("en", "decimal", num2words(value, lang="en"), [str(value)])
    other = Decimal(f"{pick(digit_perturbations(whole), fraction)}.{fraction:0{places}d}")
    assert_rejected("en", num2words(other, lang="en"), [str(value)])


EN_CURRENCIES = ("USD", "EUR", "GBP")


@ORACLE
@given(whole=st.integers(1, 9999), cents=st.integers(1, 99), code=st.sampled_from(EN_CURRENCIES))
def test_english_currency_with_sub_units(whole: int, cents: int, code: str) -> None:
    """num2words' 'twelve dollars, five cents'; the sub-unit or another currency must not pass."""
    amount = f"{whole}.{cents:02d}"
    written = f"{get_currency_name(code, locale='en')} {amount}"
    rendering = num2words(Decimal(amount), lang="en", to="currency", currency=code)
    assert_accepted("en", "currency", rendering, [amount], written)
    assert_rejected("en", num2words(whole, lang="en", to="currency", currency=code), [amount], written)
    other = next(c for c in EN_CURRENCIES if c != code)
    assert_rejected("en", num2words(Decimal(amount), lang="en", to="currency", currency=other), [amount], written)


@ORACLE
@given(hour=st.integers(1, 12), minute=st.integers(0, 59))
def test_english_clock_times(hour: int, minute: int) -> None:
    """Hours and minutes in num2words' words, the way a time is said: six thirty, six oh five."""
    minutes = "o'clock" if minute == 0 else num2words(minute, lang="en")
    if 0 < minute < 10:
        minutes = "oh " + minutes
    assert_accepted("en", "clock time", f"at {num2words(hour, lang='en')} {minutes}", [str(hour), f"{minute:02d}"])
    wrong_hour = hour % 12 + 1
    assert_rejected("en", f"at {num2words(wrong_hour, lang='en')} {minutes}", [str(hour), f"{minute:02d}"])


@ORACLE
@given(low=st.integers(1, 99), high=st.integers(1, 99))
def test_english_ranges_keep_both_ends(low: int, high: int) -> None:
    rendering = f"{num2words(low, lang='en')} to {num2words(high, lang='en')}"
    assert_accepted("en", "range", rendering, [str(low), str(high)])
    assert_rejected("en", rendering, [f"{low}{high}"])  # a range never joins into one number


@ORACLE
@given(digits=st.text("0123456789", min_size=3, max_size=10))
def test_english_digit_strings(digits: str) -> None:
    rendering = " ".join(num2words(int(d), lang="en") for d in digits)
    assert_accepted("en", "digit string", rendering, [digits])
    assert_rejected("en", " ".join(num2words(int(d), lang="en") for d in digits[:-1]), [digits])


# --- English and Arabic: ICU's RBNF spell-out rules (PyICU, the `oracles` extra) ----------------

ICU_RULES = {
    "en": {
        "cardinal": "%spellout-cardinal",
        "cardinal verbose": "%spellout-cardinal-verbose",  # "one hundred and one thousand"
        "ordinal": "%spellout-ordinal",
        "ordinal verbose": "%spellout-ordinal-verbose",
        "year": "%spellout-numbering-year",
    },
    "ar": {"cardinal": "%spellout-cardinal-masculine", "ordinal": "%spellout-ordinal-masculine"},
    "zh": {
        "cardinal": "%spellout-cardinal",
        "cardinal 两": "%spellout-cardinal-alternate2",
        "ordinal": "%spellout-ordinal",
        "year": "%spellout-numbering-year",
    },
}
ICU_VALUES = {
    "cardinal": st.integers(0, 10**9),
    "cardinal 两": st.integers(0, 10**9),
    "cardinal verbose": st.integers(0, 10**9),
    "ordinal verbose": st.integers(1, 10**6),
    "ordinal": st.integers(1, 10**4),
    "year": st.integers(1100, 2099),
}


def icu_spellout(language: str, value: int | Decimal, rule: str) -> str:
    icu = pytest.importorskip("icu", reason="PyICU (pip install '.[oracles]'; it compiles against libicu-dev)")
    formatter = icu.RuleBasedNumberFormat(icu.URBNFRuleSetTag.SPELLOUT, icu.Locale(language))
    return str(formatter.format(value if isinstance(value, int) else float(value), rule))


@pytest.mark.parametrize(("language", "form"), [(lang, form) for lang, rules in ICU_RULES.items() for form in rules])
@ORACLE
@given(data=st.data())
def test_icu_spellout(language: str, form: str, data: st.DataObject) -> None:
    value = data.draw(ICU_VALUES[form])
    rule = ICU_RULES[language][form]
    assert_accepted(language, f"icu {form}", icu_spellout(language, value, rule), [str(value)])
    other = pick(digit_perturbations(value), data.draw(st.integers(0, 50)))
    assume(form != "year" or 1100 <= other <= 2099)
    assume(other >= 1 or form.startswith("cardinal"))
    assert_rejected(language, icu_spellout(language, other, rule), [str(value)])


@pytest.mark.parametrize("language", sorted(ICU_RULES))
@ORACLE
@given(whole=st.integers(1, 9999), fraction=st.integers(1, 99), negative=st.booleans())
def test_icu_decimals_and_signs(language: str, whole: int, fraction: int, negative: bool) -> None:
    value = Decimal(f"{'-' if negative else ''}{whole}.{fraction:02d}".rstrip("0"))
    rule = ICU_RULES[language]["cardinal"]
    assert_accepted(language, "icu decimal", icu_spellout(language, value, rule), [str(value)])
    if negative:
        assert_rejected(language, icu_spellout(language, -value, rule), [str(value)])  # the sign lost


# --- Arabic: num2words --------------------------------------------------------------------------

AR_FORMS: dict[str, tuple[Callable[[int], str], st.SearchStrategy[int]]] = {
    "cardinal": (lambda v: num2words(v, lang="ar"), st.integers(0, 10**9)),
    "negative": (lambda v: num2words(-v, lang="ar"), st.integers(1, 10**6)),
    "percent": (lambda v: num2words(v, lang="ar") + " في المائة", st.integers(1, 1000)),
}


@pytest.mark.parametrize("form", sorted(AR_FORMS))
@ORACLE
@given(data=st.data())
def test_arabic_integer_forms(form: str, data: st.DataObject) -> None:
    render, values = AR_FORMS[form]
    value = data.draw(values)
    sign = "-" if form == "negative" else ""
    assert_accepted("ar", form, render(value), [sign + str(value)])
    other = pick(digit_perturbations(value), data.draw(st.integers(0, 50)))
    assert_rejected("ar", render(other), [sign + str(value)])
    if form == "negative":
        assert_rejected("ar", num2words(value, lang="ar"), ["-" + str(value)])


@ORACLE
@given(whole=st.integers(3, 999), sub=st.integers(1, 99), code=st.sampled_from(("SAR", "EGP")))
def test_arabic_currency_with_sub_units(whole: int, sub: int, code: str) -> None:
    """Riyals with halalas, pounds with piastres, as num2words says them."""
    amount = f"{whole}.{sub:02d}"
    written = f"{amount} {get_currency_name(code, locale='ar')}"
    rendering = num2words(Decimal(amount), lang="ar", to="currency", currency=code)
    assert_accepted("ar", "currency", rendering, [amount], written)
    assert_rejected("ar", num2words(whole, lang="ar", to="currency", currency=code), [amount], written)


# --- Chinese: cn2an -----------------------------------------------------------------------------


def cn(value: int | Decimal | str) -> str:
    return str(cn2an.an2cn(str(value), "low"))


def cn_value(text: str) -> Decimal | None:
    try:
        return Decimal(str(cn2an.cn2an(text, "smart")))
    except (ValueError, KeyError):
        return None


ZH_FORMS: dict[str, tuple[Callable[[int], str], st.SearchStrategy[int]]] = {
    "cardinal": (cn, st.integers(0, 10**12)),
    "negative": (lambda v: cn(-v), st.integers(1, 10**8)),
    "percent": (lambda v: "百分之" + cn(v), st.integers(1, 1000)),
    "per-mille": (lambda v: "千分之" + cn(v), st.integers(1, 1000)),
}


@pytest.mark.parametrize("form", sorted(ZH_FORMS))
@ORACLE
@given(data=st.data())
def test_chinese_integer_forms(form: str, data: st.DataObject) -> None:
    render, values = ZH_FORMS[form]
    value = data.draw(values)
    sign = "-" if form == "negative" else ""
    assert_accepted("zh", form, render(value), [sign + str(value)])
    other = pick(digit_perturbations(value), data.draw(st.integers(0, 50)))
    assert_rejected("zh", render(other), [sign + str(value)])


@ORACLE
@given(whole=st.integers(0, 10**8), places=st.integers(1, 3), data=st.data())
def test_chinese_decimals(whole: int, places: int, data: st.DataObject) -> None:
    fraction = data.draw(st.integers(0, 10**places - 1))
    value = Decimal(f"{whole}.{fraction:0{places}d}")
    assert_accepted("zh", "decimal", cn(value), [str(value)])
    other = Decimal(f"{pick(digit_perturbations(whole), fraction)}.{fraction:0{places}d}")
    assert_rejected("zh", cn(other), [str(value)])


def zero_and_short_form_variants(rendering: str) -> list[str]:
    """The rendering with one 零 dropped, or its last unit dropped (一千五百 → 一千五)."""
    variants = [rendering[:i] + rendering[i + 1 :] for i, ch in enumerate(rendering) if ch == "零"]
    whole = rendering.split("点")[0]
    if len(whole) >= 3 and whole[-1] in "十百千万" and whole[-2] in "一二三四五六七八九" and whole[-3] in "百千万亿":
        variants.append(whole[:-1] + rendering[len(whole) :])
    return variants


@ORACLE
@given(whole=st.integers(100, 10**8), fraction=st.one_of(st.none(), st.integers(1, 99)), data=st.data())
def test_chinese_zero_and_short_forms_follow_cn2an_inside_decimals(
    whole: int, fraction: int | None, data: st.DataObject
) -> None:
    """A dropped 零 or unit changes the value to what cn2an reads, in integers and in decimals alike.

    一千零五点三 is 1005.3; 一千五点三 is the short form of 1500.3, never 1005.3.
    """
    value = Decimal(whole) if fraction is None else Decimal(f"{whole}.{fraction}")
    variants = zero_and_short_form_variants(cn(value))
    assume(variants)
    variant = variants[data.draw(st.integers(0, len(variants) - 1))]
    read = cn_value(variant)
    assume(read is not None)
    assert read is not None
    if read != value:
        assert_rejected("zh", variant, [str(value)])
    assert_accepted("zh", "short form", variant, [format(read, "f")])


@ORACLE
@given(digits=st.text("0123456789", min_size=3, max_size=12))
def test_chinese_digit_strings(digits: str) -> None:
    rendering = str(cn2an.an2cn(digits, "direct"))
    assert_accepted("zh", "digit string", rendering, [digits])
    assert_rejected("zh", rendering[:-1], [digits])


@ORACLE
@given(denominator=st.integers(2, 1000), numerator=st.integers(1, 999))
def test_chinese_fractions(denominator: int, numerator: int) -> None:
    rendering = f"{cn(denominator)}分之{cn(numerator)}"
    assert_accepted("zh", "fraction", rendering, [str(numerator), str(denominator)])


ZH_CURRENCIES = ("USD", "HKD", "SGD", "GBP", "EUR", "JPY")


@ORACLE
@given(amount=st.integers(1, 10**6), code=st.sampled_from(ZH_CURRENCIES))
def test_chinese_currency_names_from_cldr(amount: int, code: str) -> None:
    """An amount said with the CLDR display name of its currency (Babel); another one is rejected."""
    name = get_currency_name(code, locale="zh")
    expect = {"type": "currency", "amount": str(amount), "currency": code}
    scorer = SemanticScorer()
    context = ScoreContext(language="zh", text=f"{amount} {code}")
    status = scorer.score(f"{cn(amount)}{name}", expect, context).outcome
    assert status == "correct" or claimed("zh", "currency", name), f"{cn(amount)}{name} is {status} for {code}"
    other = get_currency_name(next(c for c in ZH_CURRENCIES if c != code), locale="zh")
    assert scorer.score(f"{cn(amount)}{other}", expect, context).outcome == "wrong"


@ORACLE
@given(hour=st.integers(1, 12), minute=st.integers(1, 59))
def test_chinese_clock_times(hour: int, minute: int) -> None:
    """两点五十分, 三点零五分: the hour and two-digit minutes; a dropped 零 is five minutes, not five past."""
    minutes = cn(minute) if minute >= 10 else "零" + cn(minute)
    said = f"{cn(hour)}点{minutes}分"
    assert_accepted("zh", "clock time", said, [str(hour), f"{minute:02d}"])
    assert_rejected("zh", f"{cn(hour % 12 + 1)}点{minutes}分", [str(hour), f"{minute:02d}"])


@ORACLE
@given(low=st.integers(1, 10**4), high=st.integers(1, 10**4), joiner=st.sampled_from(("到", "至")))
def test_chinese_ranges_keep_both_ends(low: int, high: int, joiner: str) -> None:
    said = f"{cn(low)}{joiner}{cn(high)}"
    assert_accepted("zh", "range", said, [str(low), str(high)])
    assert_rejected("zh", f"{cn(low)}减{cn(high)}", [str(low), str(high)])  # a subtraction is no range


@ORACLE
@given(year=st.integers(1900, 2099), month=st.integers(1, 12), day=st.integers(1, 31))
def test_chinese_dates(year: int, month: int, day: int) -> None:
    said = f"{cn2an.an2cn(str(year), 'direct')}年{cn(month)}月{cn(day)}日"
    assert_accepted("zh", "date", said, [str(year), str(month), str(day)])
    other = pick(digit_perturbations(year), day)
    assert_rejected("zh", f"{cn2an.an2cn(str(other), 'direct')}年{cn(month)}月{cn(day)}日", [str(year)])


CN_DIGITS = "零一二三四五六七八九"


@ORACLE
@given(yuan=st.integers(1, 10**5), jiao=st.integers(0, 9), fen=st.integers(0, 9))
def test_chinese_yuan_jiao_fen(yuan: int, jiao: int, fen: int) -> None:
    """块/毛/分 with cn2an's numbers: 一百二十三块四毛五分, 十二块零五分; a lost sub-unit fails."""
    assume(jiao or fen)
    said = f"{cn(yuan)}块" + (f"{CN_DIGITS[jiao]}毛" if jiao else "零") + (f"{CN_DIGITS[fen]}分" if fen else "")
    amount = format(Decimal(yuan) + Decimal(jiao) / 10 + Decimal(fen) / 100, "f")
    expect = {"type": "currency", "amount": amount, "currency": "CNY"}
    context = ScoreContext(language="zh", text=f"¥{amount}")
    scorer = SemanticScorer()
    assert scorer.score(said, expect, context).outcome == "correct" or claimed("zh", "currency", said), said
    assert scorer.score(f"{cn(yuan)}块", expect, context).outcome == "wrong"


# --- the gap list stays honest --------------------------------------------------------------------


@pytest.mark.parametrize("gap", GAPS, ids=lambda g: f"{g.language}-{g.form}")
def test_every_gap_is_still_open(gap: Gap) -> None:
    """Each listed gap is real: its example is still rejected. Once it passes, remove the entry."""
    assert verdict(gap.language, gap.example, list(gap.values), gap.text) != "correct", (
        f"{gap.example!r} is accepted now: remove the gap from tests/support/oracle_gaps.py"
    )
