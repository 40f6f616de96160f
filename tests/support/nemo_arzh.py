"""Arabic and Chinese in the NeMo corpus harness (``nemo_corpus``): their written values and their
value-changing perturbations.

The generic :func:`nemo_corpus.written_values` reads numerals between word boundaries, which
Chinese text has none of (``第5000``, ``1.5万美元``), and NeMo's Arabic pairs write a decimal comma
(``7,99``). So each language here reads its written side itself, the way a pack writes its values:

* Chinese: Arabic numerals with 万/亿 after them multiplied (``1.5万`` = 15000), a sign (负, ``-``);
  ``N/M``, ``M分之N`` and ``K又…`` fractions as their decimal value (their parts where it never
  ends); a year keeps its digits as written (``05年`` is 零五); a clock time is its hour, its
  minutes in two digits and its seconds; ``5点1刻`` and ``5点差3分`` are the times they say (5:15,
  4:57).
* Arabic: Western digits with a comma before decimals (NeMo's convention in these files), a sign,
  fractions as above; an amount with a leading zero (``$09``) is the number 9.

Perturbations replace one word (Chinese: one character or word, no spaces to bound it; Arabic: a
word after an optional clitic و/ب/ل) by another that changes the value.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from nemo_corpus import Exclusion, Pair, available, load_exclusions, load_pairs

from pytest_ttsbench.scorers import numbers_ar, numbers_zh
from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer, same_value
from pytest_ttsbench.scorers.zh_fold import fold_chinese

# --- Chinese ------------------------------------------------------------------------------------

_ZH_SCALES = {"万": 10**4, "亿": 10**8, "萬": 10**4, "億": 10**8}
_ZH_NUMBER = re.compile(
    r"(?P<sign>负|(?<![\d.])-)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<scale>[万亿]+)?"
)
_ZH_FRACTION = re.compile(
    r"(?P<sign>负|-)?(?:(?P<whole>\d+)又)?(?:(?P<top>\d+)/(?P<bottom>\d+)|(?P<under>\d+)分之(?P<over>\d+))"
)
_ZH_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
_ZH_QUARTERS = re.compile(r"(\d{1,2})点(\d)刻")
_ZH_SHORT_OF = re.compile(r"(\d{1,2})点差(\d{1,2})分")
_ZH_DATE_PARTS = re.compile(r"(\d{1,2})[/.·](\d{1,2})[/.·](\d{1,4})|(\d{4})[/.·](\d{1,2})[/.·](\d{1,2})")


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _fraction_values(sign: str, whole: str | None, top: str, bottom: str) -> list[str]:
    """A fraction's decimal value (with its whole part), or its parts where the value never ends."""
    minus = "-" if sign else ""
    rest = int(bottom)
    for prime in (2, 5):
        while rest and rest % prime == 0:
            rest //= prime
    if rest == 1:
        value = Decimal(int(whole or 0)) + Decimal(int(top)) / Decimal(int(bottom))
        return [minus + _plain(value)]
    return [*([minus + whole] if whole else []), (minus if not whole else "") + top, bottom]


def written_values_zh(written: str, cls: str) -> list[str] | str:
    """The values a Chinese item with ``written`` as its text expects, or why it has none."""
    text = fold_chinese(written.replace("²", " ").replace("³", " "))  # m²: a power, not a 2
    text = re.sub(r"(?:负|-)百分之", "百分之-", text)  # -百分之1 is -1%
    values: list[str] = []
    if cls == "date" and (parts := _ZH_DATE_PARTS.search(text)):
        found = [p for p in parts.groups() if p is not None]
        year, month, day = found  # 2019/2/10, and 12/2/2 said 一二年二月二日: the year first either way
        return [year, str(int(month)), str(int(day))]
    for match in _ZH_SHORT_OF.finditer(text):
        hour, minutes = int(match.group(1)), int(match.group(2))
        values += [str(hour - 1 if hour > 1 else 12), f"{60 - minutes:02d}"]
    text = _ZH_SHORT_OF.sub(" ", text)
    for match in _ZH_QUARTERS.finditer(text):
        values += [str(int(match.group(1))), f"{15 * int(match.group(2)):02d}"]
    text = _ZH_QUARTERS.sub(" ", text)
    for match in _ZH_CLOCK.finditer(text):
        hour, minutes, seconds = match.groups()
        values += [str(int(hour)), minutes] + ([str(int(seconds))] if seconds else [])
    text = _ZH_CLOCK.sub(" ", text)
    for match in _ZH_FRACTION.finditer(text):
        top, bottom = (match["top"], match["bottom"]) if match["top"] else (match["over"], match["under"])
        values += _fraction_values(match["sign"] or "", match["whole"], top, bottom)
    text = _ZH_FRACTION.sub(" ", text)
    for match in _ZH_NUMBER.finditer(text):
        raw = match["num"].replace(",", "")
        after = text[match.end() : match.end() + 1]
        if after == "年" and raw.isdigit():
            values.append(("-" if match["sign"] else "") + raw)  # a year keeps its digits: 05年
            continue
        value = Decimal(raw)
        for scale in match["scale"] or "":
            value *= _ZH_SCALES[scale]
        number = raw if raw.isdigit() and not match["scale"] and not raw.startswith("0") else _plain(value)
        if raw.isdigit() and raw.startswith("0") and len(raw) > 1 and not match["scale"]:
            number = str(int(raw))  # 02月, 08号: a month or a day said as its number
        values.append(("-" if match["sign"] else "") + number)
    return values or "no numeral in the written side"


_ZH_DIGITS = "零一二三四五六七八九"
PERTURBATIONS_ZH: tuple[tuple[str, str, str], ...] = (
    *(("digit", a, b) for a, b in zip("一二两三四五六七八九", "二三三四五六七八九一", strict=True)),
    ("scale", "亿", "千"), ("scale", "万", "千"), ("scale", "千", "百"), ("scale", "百", "十"),
    ("sign", "负", ""),
    ("sub-unit", "毛", "块"), ("sub-unit", "角", "元"),
    ("currency", "美元", "欧元"), ("currency", "欧元", "英镑"), ("currency", "英镑", "美元"),
    ("currency", "韩元", "日元"), ("currency", "日元", "韩元"), ("currency", "人民币", "美元"),
)  # fmt: skip

# --- Arabic -------------------------------------------------------------------------------------

_AR_NUMBER = re.compile(r"(?P<sign>(?<![\w)])-)?(?P<num>\d+(?:[.,]\d+)?)")
_AR_FRACTION = re.compile(r"(?<![\d/.,])(?:(?P<whole>\d+)\s+)?(?P<top>\d+)/(?P<bottom>\d+)(?![\d/])")


def written_values_ar(written: str, cls: str) -> list[str] | str:
    """The values an Arabic item with ``written`` as its text expects, or why it has none.

    NeMo's Arabic files write the decimal comma (``7,99`` is 7.99, ``658,888`` is 658.888).
    """
    values: list[str] = []
    for match in _AR_FRACTION.finditer(written):
        values += _fraction_values("", match["whole"], match["top"], match["bottom"])
    text = _AR_FRACTION.sub(" ", written)
    for match in _AR_NUMBER.finditer(text):
        raw = match["num"].replace(",", ".")
        number = raw if "." in raw else str(int(raw))
        values.append(("-" if match["sign"] else "") + number)
    return values or "no numeral in the written side"


PERTURBATIONS_AR: tuple[tuple[str, str, str], ...] = (
    *(("digit", a, b) for a, b in (
        ("واحد", "اثنان"), ("اثنان", "ثلاثة"), ("ثلاثة", "أربعة"), ("أربعة", "خمسة"), ("خمسة", "ستة"),
        ("ستة", "سبعة"), ("سبعة", "ثمانية"), ("ثمانية", "تسعة"), ("تسعة", "واحد"), ("ثلاث", "أربع"),
        ("خمس", "ست"), ("ست", "سبع"), ("سبع", "ثمان"), ("تسع", "خمس"),
    )),
    *(("tens", a, b) for a, b in (
        ("عشرون", "ثلاثون"), ("ثلاثون", "أربعون"), ("أربعون", "خمسون"), ("خمسون", "ستون"), ("ستون", "سبعون"),
        ("سبعون", "ثمانون"), ("ثمانون", "تسعون"), ("تسعون", "عشرون"), ("عشرة", "عشرين"), ("عشر", "عشرين"),
    )),
    ("scale", "مئة", "ألف"), ("scale", "اَلاف", "ملايين"), ("scale", "آلاف", "ملايين"), ("scale", "ألف", "مليون"),
    ("scale", "ألفان", "مليونان"),
    ("denominator", "مئة", "ألف"), ("denominator", "عشرة", "مئة"), ("denominator", "أرباع", "أخماس"),
    ("denominator", "أعشار", "أخماس"), ("denominator", "أسداس", "أرباع"), ("denominator", "أخماس", "أعشار"),
    ("sub-unit", "سنت", "دولار"), ("sub-unit", "سنتات", "دولارات"),
    ("currency", "دولار", "يورو"), ("currency", "يورو", "دولار"), ("currency", "دينار", "ريال"),
    ("currency", "ريال", "دينار"), ("currency", "درهم", "دينار"),
)  # fmt: skip

#: Kinds that change money: applied to the money class only.
MONEY_KINDS = ("sub-unit", "currency")


def _material(spoken: str, written: str, cls: str, language: str) -> list[tuple[int, int]]:
    """Where the spoken side says the written values: the first span of the parser's number material
    that holds a token of one of them (so 一份 in 一份煎饼卖五块 is left alone)."""
    module = numbers_zh if language == "zh" else numbers_ar
    spans = [(m.start, m.end) for m in module.number_material(spoken) if not m.joiner]
    values = written_values(written, cls, language)
    if not isinstance(values, list):
        return spans
    tokens = [t for t in module.parse_numbers(spoken) if any(same_value(v, t.value) for v in values)]
    valued = [(a, b) for a, b in spans if any(t.start < b and a < t.end for t in tokens)]
    return valued[:1] or spans[:1]


def perturbations(spoken: str, written: str, cls: str, language: str) -> list[tuple[str, str]]:
    """(kind, changed spoken side) for each kind of value-changing substitution that applies, once
    each: a number word changed where the first number says it, the sign added before the first
    number, the sub-unit or currency changed wherever it is said."""
    table = PERTURBATIONS_ZH if language == "zh" else PERTURBATIONS_AR
    material = _material(spoken, written, cls, language)
    changed: list[tuple[str, str]] = []
    done: set[str] = set()
    for kind, word, replacement in table:
        if kind in done or (kind in MONEY_KINDS and cls != "money"):
            continue
        if kind in MONEY_KINDS:
            result = spoken.replace(word, replacement) if kind == "currency" else spoken.replace(word, replacement, 1)
        else:
            at = _first_in_material(spoken, word, material, language)
            result = spoken if at is None else spoken[:at] + replacement + spoken[at + len(word) :]
        if result != spoken:
            changed.append((kind, result))
            done.add(kind)
    sign = "负" if language == "zh" else "سالب "
    folded = fold_chinese(spoken)
    if "sign" not in done and material and "负" not in folded and cls in ("cardinal", "decimal", "measure"):
        first = material[0][0]
        if not re.match(r"零|صفر", spoken[first:]):
            changed.append(("sign", spoken[:first] + sign + spoken[first:]))  # a sign added where there was none
    return changed


def _first_in_material(spoken: str, word: str, material: list[tuple[int, int]], language: str) -> int | None:
    """Where ``word`` is first said inside the numbers (Arabic: as a whole word after its clitic)."""
    for start, end in material:
        at = spoken.find(word, start, end)
        while at >= 0:
            whole = language == "zh" or (at + len(word) == end or not spoken[at + len(word)].isalpha())
            if whole:
                return at
            at = spoken.find(word, at + 1, end)
    return None


def written_values(written: str, cls: str, language: str) -> list[str] | str:
    return written_values_zh(written, cls) if language == "zh" else written_values_ar(written, cls)


# --- the corpus tests, built once per language ----------------------------------------------------

NUMBERS = NumbersScorer()


def verdict(language: str, spoken: str, values: list[str], written: str) -> str:
    return NUMBERS.score(spoken, {"values": values}, ScoreContext(language=language, text=written)).outcome


def corpus_tests(language: str, at_least: int) -> dict[str, Any]:
    """The NeMo corpus tests of ``nemo_corpus`` for Arabic or Chinese, named for a test module's
    globals: every value-bearing pair's spoken side correct, no value-changing perturbation of it
    correct, and every exclusion still a pair of the corpus the scorer does not hold."""
    pairs = load_pairs(language) if available() else []
    excluded = load_exclusions(language)
    cases = []
    for pair in pairs:
        values = written_values(pair.written, pair.cls, language)
        if isinstance(values, list) and not any(ex.claims(pair) for ex in excluded):
            cases.append((pair, values))
    ids = [f"{pair.cls}-{pair.source}" for pair, _ in cases]

    def test_the_corpus_is_there_and_value_bearing() -> None:
        assert len(cases) >= at_least, f"only {len(cases)} value-bearing {language} pairs"

    @pytest.mark.parametrize(("pair", "values"), cases, ids=ids)
    def test_the_spoken_side_is_correct_for_the_written_value(pair: Pair, values: list[str]) -> None:
        outcome = verdict(language, pair.spoken, values, pair.written)
        assert outcome == "correct", (pair.written, pair.spoken, values, outcome)

    @pytest.mark.parametrize(("pair", "values"), cases, ids=ids)
    def test_a_value_changed_in_the_spoken_side_is_never_correct(pair: Pair, values: list[str]) -> None:
        for kind, changed in perturbations(pair.spoken, pair.written, pair.cls, language):
            assert verdict(language, changed, values, pair.written) != "correct", (kind, pair.written, changed, values)

    @pytest.mark.parametrize("exclusion", excluded, ids=[f"{ex.cls}:{ex.written}" for ex in excluded])
    def test_every_exclusion_is_a_pair_of_the_corpus_still_not_held(exclusion: Exclusion) -> None:
        pair = next((p for p in pairs if exclusion.claims(p)), None)
        assert pair is not None, f"{exclusion} is no pair of the corpus"
        values = written_values(pair.written, pair.cls, language)
        assert isinstance(values, list), f"{exclusion}: the written side has no value to judge ({values}): drop it"
        accepted = verdict(language, pair.spoken, values, pair.written) == "correct"
        assert not accepted, f"{exclusion} is held now: drop it from the exclusion list"

    tests = (
        test_the_corpus_is_there_and_value_bearing,
        test_the_spoken_side_is_correct_for_the_written_value,
        test_a_value_changed_in_the_spoken_side_is_never_correct,
        test_every_exclusion_is_a_pair_of_the_corpus_still_not_held,
    )
    return {test.__name__: test for test in tests}
