"""``semantic``: the meaning a written Chinese form must keep when it is read aloud, by type.

The ``numbers`` scorer asks "were these values heard?". Some written forms carry more than a
value, and a reading can keep the value and still lose the meaning. Each ``expect`` names its
type and what must survive:

* ``{type: decimal, value: "3168.846"}`` — the number with every decimal digit, trailing zeros
  included (0.50 read as 零点五 loses a digit). A 万/亿 after the digits is part of the unit word
  (``3168.846万元``), so the digits are compared as read before it.
* ``{type: identifier, digits: "001000000066"}`` — a digit string read digit by digit: every
  digit in order, leading and repeated zeros kept (幺 is 1). Digit groups heard back to back are
  joined; a quantity reading (一千…) is not a digit string and fails. Without punctuation a count
  may run into the digits (零零六六零零五分钟): a last digit word before 分钟/天/个… may be left off.
* ``{type: currency, amount: "640", currency: USD | [USD, CAD, …]}`` — the amount, with a
  currency reading from the allowed set next to it (before it: 港币一百元; after it: 一百港元).
  Which set to allow follows the written form (:func:`currencies_in_written`): a bare ``$`` admits
  any dollar, a bare ``¥`` yuan or yen, while ``US$``, ``HK$``, ``CAD``, ``JPY`` or a currency name
  demand that currency.
* ``{type: formula, op: multiply | divide, operands: ["9", "14"]}`` — both operands and the
  operator between them (乘/乘以/×/* ; 除以/÷//, and A分之B = B ÷ A). A product may be read in
  either order; a quotient may not. The result alone (一百二十六) or a lost operator (九十四) fails.
* ``{type: unit, value: "12", unit: cm, exponent: 2}`` — the value, the unit (through an alias
  table: 厘米/cm/公分) and the power (平方/²/^2 → 2, 立方/³/^3 → 3, none → 1); all three must match.

The verdict is correct or wrong; ``heard`` lists what was parsed from the transcript, so a wrong
verdict shows what was found next to what is missing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.currencies import CURRENCIES as CURRENCY_TABLE
from pytest_ttsbench.scorers.currencies import names
from pytest_ttsbench.scorers.numbers import same_value
from pytest_ttsbench.scorers.numbers_zh import (
    ZhNumber,
    colloquial_amount,
    fraction_value,
    normalize,
    parse_spans,
    unit_decimal,
)
from pytest_ttsbench.verdict import Verdict

LANGUAGES = ("zh", "cmn")

# --- currencies -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Currency:
    """A currency: its Chinese readings, and the written marks that name it unambiguously."""

    code: str
    names: tuple[str, ...]
    marks: tuple[str, ...]


# From the one currency table (scorers/currencies.py): CLDR's Chinese display name (from the
# checked-in CLDR table, no Babel at run time), then the colloquial names (美金, 刀, 港币, 新元, 块 …).
CURRENCIES: dict[str, Currency] = {
    code: Currency(code, names(code, "zh"), currency.marks)
    for code, currency in CURRENCY_TABLE.items()
    if names(code, "zh")
}
DOLLARS = ("USD", "HKD", "CAD", "AUD", "NZD", "SGD", "TWD")
# Written symbols that name a family, not one currency: what each admits in a reading.
AMBIGUOUS_MARKS: dict[str, tuple[str, ...]] = {"$": DOLLARS, "¥": ("CNY", "JPY"), "￥": ("CNY", "JPY")}
# The same symbols in a transcript: a recognizer writes them for what it most likely heard (美元, 元).
_TRANSCRIPT_SYMBOLS = {"$": "USD", "¥": "CNY", "￥": "CNY"}
# Readings that name no country: valid after the amount only, and overruled by a name next to them.
_GENERIC = ("元", "块钱", "块")
# Short names heard only after an amount (一百刀, 五十欧), never before one; 欧 not where it opens a
# word of its own (欧洲, 欧盟, 欧美).
_AFTER_ONLY = ("刀", "欧")
_NOT_AFTER_SHORT_NAME = set("洲盟美式亚版")


def _upper_ascii(text: str) -> str:
    """Latin letters upper-cased and nothing else, so offsets stay valid (str.upper() can lengthen text)."""
    return "".join(ch.upper() if ch.isascii() else ch for ch in text)


def _transcript_readings() -> list[tuple[str, str]]:
    """(form, currency code) for every reading a transcript may hold, longest first so 港元 wins over 元."""
    table = [(name, c.code) for c in CURRENCIES.values() for name in c.names]
    table += [(_upper_ascii(mark), c.code) for c in CURRENCIES.values() for mark in c.marks]
    table += list(_TRANSCRIPT_SYMBOLS.items())
    return sorted(table, key=lambda pair: len(pair[0]), reverse=True)


_TRANSCRIPT_READINGS = _transcript_readings()
_LATIN_LETTER = re.compile(r"[A-Za-z]")


def currencies_in_written(text: str) -> tuple[str, ...]:
    """The currencies a written form admits in its reading, sorted (what ``expect.currency`` should hold).

    Unambiguous marks and names (``HK$``, ``CAD``, ``日元``) admit their currency, ``$`` any dollar
    and ``¥`` yuan or yen; a bare 元 admits yuan.
    """
    found: set[str] = set()
    upper = _upper_ascii(text)
    pos = 0
    marks = sorted(
        [
            (_upper_ascii(m), (c.code,))
            for c in CURRENCIES.values()
            for m in (*c.marks, *c.names)
            if m not in _AFTER_ONLY
        ]
        + [(m, codes) for m, codes in AMBIGUOUS_MARKS.items()],
        key=lambda pair: len(pair[0]),
        reverse=True,
    )
    while pos < len(upper):
        for mark, codes in marks:
            if upper.startswith(mark, pos) and not _inside_latin_word(upper, pos, mark):
                found.update(codes)
                pos += len(mark)
                break
        else:
            pos += 1
    return tuple(sorted(found))


def _inside_latin_word(text: str, pos: int, form: str) -> bool:
    """True when a Latin code such as ``USD`` is only part of a longer Latin word at ``pos``."""
    if not form[0].isascii() or not form[0].isalpha():
        return False
    before = text[pos - 1] if pos > 0 else ""
    after = text[pos + len(form)] if pos + len(form) < len(text) else ""
    return bool(_LATIN_LETTER.match(before)) or (form[-1].isalpha() and bool(_LATIN_LETTER.match(after)))


def _currency_next_to(text: str, number: ZhNumber) -> tuple[str, str] | None:
    """The currency read next to ``number``: (code, reading as heard), or None.

    A name before the amount (港币一百元, US$640) names the currency even when a generic 元/块
    follows; otherwise the reading after it counts, and a name right after a generic one
    (一百元港币) overrules it.
    """
    upper = _upper_ascii(text)
    head = upper[: number.start].rstrip()
    for form, code in _TRANSCRIPT_READINGS:
        if (
            form not in _GENERIC
            and form not in _AFTER_ONLY
            and head.endswith(form)
            and not _inside_latin_word(head, len(head) - len(form), form)
        ):
            return code, text[len(head) - len(form) : len(head)]
    pos = number.end
    while pos < len(upper) and upper[pos].isspace():
        pos += 1
    for form, code in _TRANSCRIPT_READINGS:
        if upper.startswith(form, pos) and not _inside_latin_word(upper, pos, form):
            if form in _AFTER_ONLY and upper[pos + len(form) : pos + len(form) + 1] in _NOT_AFTER_SHORT_NAME:
                continue
            if form in _GENERIC:
                after = pos + len(form)
                for name, named in _TRANSCRIPT_READINGS:
                    if name not in _GENERIC and upper.startswith(name, after):
                        return named, text[after : after + len(name)]
            return code, text[pos : pos + len(form)]
    return None


# --- units ------------------------------------------------------------------------------------

# Base unit → the forms a reading or a recognizer uses for it. Latin forms are case-sensitive
# (mW is not MW), with the common upper-case spellings listed where they are unambiguous.
UNITS: dict[str, tuple[str, ...]] = {
    "km": ("千米", "公里", "km", "KM"),
    "m": ("米", "公尺", "m"),
    "dm": ("分米", "dm"),
    "cm": ("厘米", "公分", "cm", "CM"),
    "mm": ("毫米", "mm"),
    "µm": ("微米", "µm", "μm", "um"),
    "nm": ("纳米", "奈米", "nm"),
    "in": ("英寸", "in"),
    "ft": ("英尺", "ft"),
    "t": ("吨", "t"),
    "kg": ("千克", "公斤", "kg", "KG", "Kg"),
    "g": ("克", "g"),
    "mg": ("毫克", "mg"),
    "L": ("升", "公升", "L", "l"),
    "mL": ("毫升", "mL", "ml"),
    "W": ("瓦", "瓦特", "W"),
    "kW": ("千瓦", "kW", "KW"),
    "MW": ("兆瓦", "MW"),
    "GW": ("吉瓦", "GW"),
    "kWh": ("千瓦时", "度电", "kWh", "KWH", "kwh"),
    "MWh": ("兆瓦时", "MWh"),
    "V": ("伏", "伏特", "V"),
    "kV": ("千伏", "kV", "KV"),
    "A": ("安", "安培", "A"),
    "mA": ("毫安", "mA"),
    "mAh": ("毫安时", "mAh"),
    "Hz": ("赫兹", "赫", "Hz"),
    "kHz": ("千赫", "千赫兹", "kHz"),
    "MHz": ("兆赫", "兆赫兹", "MHz"),
    "GHz": ("吉赫", "吉赫兹", "GHz"),
    "Pa": ("帕", "帕斯卡", "Pa"),
    "kPa": ("千帕", "kPa"),
    "MPa": ("兆帕", "MPa"),
    "N": ("牛", "牛顿", "N"),
    "N·m": ("牛米", "牛顿米", "牛·米", "N·m", "N.m", "Nm"),
    "℃": ("摄氏度", "℃", "°C", "度"),
    "s": ("秒", "s"),
    "ms": ("毫秒", "ms"),
    "min": ("分钟", "min"),
    "h": ("小时", "h"),
    "km/h": ("公里每小时", "千米每小时", "公里/小时", "千米/小时", "km/h"),
    "m/s": ("米每秒", "米/秒", "m/s"),
}
LENGTH_UNITS = frozenset({"km", "m", "dm", "cm", "mm", "µm", "nm", "in", "ft"})
# Spellings accepted in ``expect.unit`` besides the keys of UNITS.
UNIT_SPELLINGS: dict[str, str] = {"um": "µm", "μm": "µm", "Nm": "N·m", "°C": "℃"}
# Colloquial forms that carry their own power: 平米 is a square metre.
_POWERED_ALIASES: dict[str, tuple[str, int]] = {"平米": ("m", 2), "平": ("m", 2)}
# After a number, 平 opens these words instead of naming square metres (三平方公里 is read whole).
_NOT_AFTER_PING = set("方均安台衡价稳")

_ALIASES: list[tuple[str, str]] = sorted(
    [(alias, unit) for unit, aliases in UNITS.items() for alias in aliases]
    + [(alias, unit) for alias, (unit, _) in _POWERED_ALIASES.items()],
    key=lambda pair: len(pair[0]),
    reverse=True,
)
_POWER_WORDS = {"平方": 2, "立方": 3}
_POWER_MARKS = {"²": 2, "³": 3, "^2": 2, "^3": 3}


def canonical_unit(unit: str) -> str | None:
    """The base-unit key for a unit as written in ``expect`` (``um`` → ``µm``), or None."""
    return unit if unit in UNITS else UNIT_SPELLINGS.get(unit)


@dataclass(frozen=True)
class UnitReading:
    """A number heard with a unit after it."""

    value: str
    unit: str
    exponent: int
    heard: str

    def describe(self) -> str:
        return f"{unit_text(self.value, self.unit, self.exponent)} ({self.heard})"


def unit_text(value: str, unit: str, exponent: int) -> str:
    """``12 cm^2``: a value with its unit and power, as evidence shows it."""
    return f"{value} {unit}^{exponent}" if exponent != 1 else f"{value} {unit}"


def _unit_at(text: str, pos: int) -> tuple[str, int, int] | None:
    """(unit, power, end) for a unit written at ``pos``, with its power words or marks."""
    power = 0
    for word, value in _POWER_WORDS.items():
        if text.startswith(word, pos):
            power, pos = value, pos + len(word)
            break
    for alias, unit in _ALIASES:
        if not text.startswith(alias, pos) or (power and alias in _POWERED_ALIASES):
            continue
        end = pos + len(alias)
        nxt = text[end] if end < len(text) else ""
        if alias[-1].isascii() and alias[-1].isalpha() and nxt.isascii() and nxt.isalpha():
            continue  # "m" is not the start of "min" or "mAh"
        if alias == "平" and nxt in _NOT_AFTER_PING:
            continue
        if alias in _POWERED_ALIASES:
            power = power or _POWERED_ALIASES[alias][1]
        for mark, value in _POWER_MARKS.items():
            if text.startswith(mark, end):
                power, end = power or value, end + len(mark)
                break
        else:
            # "cm2" as a recognizer writes cm²: a 2 or 3 right after a Latin unit, alone.
            if alias[-1].isascii() and text[end : end + 1] in ("2", "3") and not text[end + 1 : end + 2].isdigit():
                power, end = power or int(text[end]), end + 1
        return unit, power or 1, end
    if power:
        return "m", power, pos  # 一百二十平方, 三十立方: square or cubic metres, the metre unsaid
    return None


# Said before the number, these make a following distance a speed: 时速一百二十公里 is 120 km/h.
_PER_HOUR_BEFORE = ("时速", "每小时")
# Before the number, 华氏 makes a following 度 Fahrenheit, which is no ℃.
_FAHRENHEIT_BEFORE = "华氏"


def _unit_readings(text: str, numbers: Sequence[ZhNumber]) -> list[UnitReading]:
    readings: list[UnitReading] = []
    for number in numbers:
        if number.kind == "percent" or (number.kind == "fraction" and fraction_value(number) is None):
            continue
        if number.kind == "fraction":  # 四分之三升 is 0.75 L
            number = replace(number, value=fraction_value(number) or number.value)
        pos = number.end
        while pos < len(text) and text[pos].isspace():
            pos += 1
        found = _unit_at(text, pos)
        before = "".join(text[: number.start].split())
        if found is not None and found[0] == "℃" and before.endswith(_FAHRENHEIT_BEFORE):
            found = None
        if found is not None and found[0] in ("km", "m") and found[1] == 1 and before.endswith(_PER_HOUR_BEFORE):
            found = (f"{found[0]}/h" if found[0] == "km" else found[0], 1, found[2])
        if found is not None:
            unit, power, end = found
            # 一米八 is 1.8 m, 两公里半 2.5 km: the tenths or the half said after the unit (numbers_zh)
            measured = unit_decimal(text, number) if pos == number.end else None
            value, end = (measured[0], max(end, measured[1])) if measured else (number.value, end)
            readings.append(UnitReading(value, unit, power, text[number.start : end]))
        # 三千米 may be 3000 m or 3 km: when the number ends in 千 and 千 starts a unit, try both.
        if number.kind == "integer" and text[number.end - 1] == "千":
            kilo = _unit_at(text, number.end - 1)
            if kilo is not None and kilo[2] > number.end:
                value = _plain(Decimal(number.value) / 1000)
                readings.append(UnitReading(value, kilo[0], kilo[1], text[number.start : kilo[2]]))
    return readings


# --- formulas ---------------------------------------------------------------------------------

OPERATORS: dict[str, str] = {
    "乘以": "multiply",
    "乘": "multiply",
    "×": "multiply",
    "*": "multiply",
    "x": "multiply",
    "X": "multiply",
    "✕": "multiply",
    "除以": "divide",
    "÷": "divide",
    "/": "divide",
    "∕": "divide",
}
_SYMBOL = {"multiply": "×", "divide": "÷"}
# "A除B" (without 以) divides B by A: 十四除九 is 9 ÷ 14, the written order reversed.
_REVERSED_DIVIDE = "除"
# "A和B相乘": A and B multiplied.
_BOTH_WORDS = ("和", "与", "跟")
_MULTIPLIED = "相乘"


@dataclass(frozen=True)
class Formula:
    """Two operands and the operator heard between them."""

    op: str
    left: str
    right: str

    def describe(self) -> str:
        return f"{self.left} {_SYMBOL[self.op]} {self.right}"


def _formulas(text: str, numbers: Sequence[ZhNumber]) -> list[Formula]:
    found: list[Formula] = []
    for number in numbers:
        if number.kind == "fraction":
            denominator, numerator = number.parts
            found.append(Formula("divide", numerator.value, denominator.value))
    for left, right in itertools.pairwise(numbers):
        gap = "".join(text[left.end : right.start].split())
        if "fraction" in (left.kind, right.kind):
            continue
        if gap in OPERATORS:
            found.append(Formula(OPERATORS[gap], left.value, right.value))
        elif gap == _REVERSED_DIVIDE:
            found.append(Formula("divide", right.value, left.value))
        elif gap in _BOTH_WORDS and "".join(text[right.end :].split()).startswith(_MULTIPLIED):
            found.append(Formula("multiply", left.value, right.value))
    return found


# --- identifiers ------------------------------------------------------------------------------

# The same joiners as the shared ``numbers`` matcher: a comma or any word between two groups
# ends the identifier (验证码为零零六六零零，五分钟 is 006600, then 5).
_DIGIT_GAP = re.compile(r"[\s\-‐‑–]*")
# Words that open a counted phrase. Recognizers often write no punctuation, so the count after an
# identifier runs into it (验证码零零六六零零五分钟内有效); a last digit word right before one of these
# may be that count instead of part of the identifier.
_COUNTED = ("分钟", "秒", "小时", "天", "日", "周", "年", "个", "次", "位", "名", "件", "台", "家", "层", "号")


@dataclass(frozen=True)
class DigitRun:
    """A digit string heard, groups heard back to back joined, and where it ends in the text."""

    digits: str
    end: int
    last_is_word: bool

    def readings(self, text: str) -> tuple[str, ...]:
        """The run, and the run without a last digit word that opens a counted phrase."""
        if self.last_is_word and len(self.digits) > 1 and text.startswith(_COUNTED, self.end):
            return (self.digits, self.digits[:-1])
        return (self.digits,)


def _digit_runs(text: str, numbers: Sequence[ZhNumber]) -> list[DigitRun]:
    """Digit strings heard, with groups heard back to back (only spaces or hyphens between) joined."""
    runs: list[DigitRun] = []
    previous: ZhNumber | None = None
    for number in numbers:
        if number.kind != "digits" or number.value.startswith("-"):
            previous = None
            continue
        word = not text[number.end - 1].isascii()
        if previous is not None and runs and _DIGIT_GAP.fullmatch(text, previous.end, number.start):
            runs[-1] = DigitRun(runs[-1].digits + number.value, number.end, word)
        else:
            runs.append(DigitRun(number.value, number.end, word))
        previous = number
    return runs


# --- shared helpers ---------------------------------------------------------------------------


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _split_decimal(value: str) -> tuple[bool, int, str]:
    """(negative, integer part, fraction digits as written) of a decimal string."""
    negative = value.startswith("-")
    integer, _, fraction = value.lstrip("-").partition(".")
    return negative, int(integer or "0"), fraction


def _flatten(numbers: Sequence[ZhNumber]) -> list[ZhNumber]:
    """The plain numbers: a percentage's number and a fraction's two numbers count on their own."""
    flat: list[ZhNumber] = []
    for number in numbers:
        flat.extend(number.parts if number.kind in ("percent", "fraction") else (number,))
    return flat


def _describe_all(numbers: Sequence[ZhNumber]) -> tuple[str, ...]:
    return tuple(n.describe() for n in numbers)


# --- the expect schema ------------------------------------------------------------------------

_NUMBER = r"^-?[0-9]+(\.[0-9]+)?\Z"
_UNSIGNED = r"^[0-9]+(\.[0-9]+)?\Z"
_CURRENCY_CODE = {"enum": sorted(CURRENCIES)}
# Values are strings on purpose: a YAML float would turn 0.50 into 0.5 before the scorer sees it.
_TYPE_SCHEMAS: dict[str, dict[str, Any]] = {
    "decimal": {
        "required": ["value"],
        "properties": {"value": {"type": "string", "pattern": r"^-?[0-9]+\.[0-9]+\Z"}},
    },
    "identifier": {
        "required": ["digits"],
        "properties": {"digits": {"type": "string", "pattern": r"^[0-9]{2,}\Z"}},
    },
    "currency": {
        "required": ["amount", "currency"],
        "properties": {
            "amount": {"type": "string", "pattern": _UNSIGNED},
            "currency": {
                "oneOf": [
                    _CURRENCY_CODE,
                    {"type": "array", "minItems": 1, "uniqueItems": True, "items": _CURRENCY_CODE},
                ]
            },
        },
    },
    "formula": {
        "required": ["op", "operands"],
        "properties": {
            "op": {"enum": ["multiply", "divide"]},
            "operands": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {"type": "string", "pattern": _NUMBER},
            },
        },
    },
    "unit": {
        "required": ["value", "unit"],
        "properties": {
            "value": {"type": "string", "pattern": _NUMBER},
            "unit": {"enum": sorted({*UNITS, *UNIT_SPELLINGS})},
            "exponent": {"type": "integer", "enum": [1, 2, 3]},
        },
    },
}

EXPECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"enum": list(_TYPE_SCHEMAS)}},
    # One if/then per type rather than a bare oneOf: a failure then names the field that is
    # wrong (expect.value) instead of "not valid under any of the given schemas".
    "allOf": [
        {
            "if": {"properties": {"type": {"const": name}}, "required": ["type"]},
            "then": {
                "additionalProperties": False,
                "required": schema["required"],
                "properties": {"type": {"const": name}, **schema["properties"]},
            },
        }
        for name, schema in _TYPE_SCHEMAS.items()
    ],
}


def _allowed_currencies(expect: Mapping[str, Any]) -> tuple[str, ...]:
    currency = expect["currency"]
    return (currency,) if isinstance(currency, str) else tuple(currency)


# --- the scorer -------------------------------------------------------------------------------


class SemanticScorer(Scorer):
    name: ClassVar[str] = "semantic"
    expect_schema: ClassVar[Mapping[str, Any]] = EXPECT_SCHEMA

    def check(self, expect: Mapping[str, Any], language: str) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        if language.lower().split("-")[0] not in LANGUAGES:
            problems.append(("language", f"scorer 'semantic' reads Chinese only, not {language!r}"))
        kind = expect.get("type")
        if kind == "formula" and expect.get("op") == "divide":
            operands = expect.get("operands", [])
            if len(operands) == 2 and _is_zero(operands[1]):
                problems.append(("expect.operands[1]", "a divisor of zero has no reading to check"))
        if kind == "unit":
            unit = canonical_unit(str(expect.get("unit", "")))
            if expect.get("exponent", 1) != 1 and unit is not None and unit not in LENGTH_UNITS:
                problems.append(
                    ("expect.exponent", f"only length units take a power (平方/立方), not {expect.get('unit')!r}")
                )
        return problems

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        kind = expect["type"]
        if kind == "decimal":
            return f"decimal {expect['value']} with every decimal digit"
        if kind == "identifier":
            return f"digits {expect['digits']} read one by one"
        if kind == "currency":
            return f"amount {expect['amount']} in {' or '.join(_allowed_currencies(expect))}"
        if kind == "formula":
            left, right = expect["operands"]
            return f"formula {left} {_SYMBOL[expect['op']]} {right}"
        unit = canonical_unit(expect["unit"]) or expect["unit"]
        return "unit " + unit_text(expect["value"], unit, int(expect.get("exponent", 1)))

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        text = normalize(transcript)
        numbers = parse_spans(text)
        kind = expect.get("type")
        if kind == "decimal":
            return _score_decimal(expect, numbers)
        if kind == "identifier":
            return _score_identifier(text, expect, numbers)
        if kind == "currency":
            return _score_currency(text, expect, numbers)
        if kind == "formula":
            return _score_formula(text, expect, numbers)
        if kind == "unit":
            return _score_unit(text, expect, numbers)
        return Verdict("error", note=f"unknown semantic type {kind!r}")


def _is_zero(value: str) -> bool:
    try:
        return Decimal(value) == 0
    except InvalidOperation:
        return False


def _score_decimal(expect: Mapping[str, Any], numbers: Sequence[ZhNumber]) -> Verdict:
    expected = expect["value"]
    negative, integer, fraction = _split_decimal(expected)
    heard = _describe_all(numbers)
    flat = _flatten(numbers)
    for number in flat:
        if number.kind == "decimal" and _split_decimal(number.mantissa) == (negative, integer, fraction):
            return Verdict("correct", matched=(expected,), heard=heard)
    note = "no number with these decimal digits was heard"
    for number in flat:
        heard_negative, heard_integer, heard_fraction = _split_decimal(number.mantissa)
        if heard_integer != integer:
            continue
        if not heard_fraction:
            note = f"integer part {integer} heard without its decimal digits"
        elif heard_negative != negative:
            note = "the sign differs"
        else:
            note = f"decimal digits .{heard_fraction} heard for .{fraction}"
        break
    return Verdict("wrong", missing=(expected,), heard=heard, note=note)


def _score_identifier(text: str, expect: Mapping[str, Any], numbers: Sequence[ZhNumber]) -> Verdict:
    expected = expect["digits"]
    runs = _digit_runs(text, numbers)
    quantities = [n for n in numbers if n.kind != "digits"]
    heard = tuple(f"digits {run.digits}" for run in runs) + tuple(f"quantity {n.describe()}" for n in quantities)
    if any(expected in run.readings(text) for run in runs):
        return Verdict("correct", matched=(expected,), heard=heard)
    if any(same_value(expected.lstrip("0") or "0", n.value) for n in quantities):
        note = "read as a quantity, not digit by digit"
    elif expected.startswith("0") and any(expected.lstrip("0") in run.readings(text) for run in runs):
        note = "leading zeros dropped"
    elif runs:
        closest = max((run.digits for run in runs), key=len)
        note = f"{len(closest)} digits heard in the longest run, {len(expected)} expected"
    else:
        note = "no digit string was heard"
    return Verdict("wrong", missing=(expected,), heard=heard, note=note)


def _score_currency(text: str, expect: Mapping[str, Any], numbers: Sequence[ZhNumber]) -> Verdict:
    amount = expect["amount"]
    allowed = _allowed_currencies(expect)
    wanted = f"{amount} {'/'.join(allowed)}"
    if "CNY" in allowed:
        for number in numbers:
            colloquial = colloquial_amount(text, number)
            if colloquial is not None and same_value(amount, colloquial.value):
                heard_as = text[number.start : colloquial.end].strip()
                return Verdict("correct", matched=(wanted,), heard=(f"{colloquial.value} CNY ({heard_as})",))
    candidates = [n for n in numbers if n.kind not in ("percent", "fraction") and same_value(amount, n.value)]
    pairs: list[str] = []
    for number in candidates:
        reading = _currency_next_to(text, number)
        if reading is None:
            pairs.append(f"{number.describe()} (no currency)")
            continue
        code, heard_as = reading
        pairs.append(f"{number.describe()} {code} ({heard_as})")
        if code in allowed:
            return Verdict("correct", matched=(wanted,), heard=tuple(pairs))
    if not candidates:
        return Verdict("wrong", missing=(wanted,), heard=_describe_all(numbers), note=f"amount {amount} not heard")
    return Verdict(
        "wrong",
        missing=(wanted,),
        heard=tuple(pairs),
        note=f"amount heard, but no reading of {' or '.join(allowed)} next to it",
    )


def _score_formula(text: str, expect: Mapping[str, Any], numbers: Sequence[ZhNumber]) -> Verdict:
    op = expect["op"]
    left, right = expect["operands"]
    wanted = Formula(op, left, right).describe()
    formulas = _formulas(text, numbers)
    heard = tuple(f.describe() for f in formulas) + _describe_all(numbers)
    for found in formulas:
        if found.op != op:
            continue
        in_order = same_value(left, found.left) and same_value(right, found.right)
        swapped = op == "multiply" and same_value(left, found.right) and same_value(right, found.left)
        if in_order or swapped:
            return Verdict("correct", matched=(wanted,), heard=heard)
    result = Decimal(left) * Decimal(right) if op == "multiply" else Decimal(left) / Decimal(right)
    if any(f.op != op for f in formulas):
        note = "a different operator was heard"
    elif any(_same_decimal(result, n.value) for n in _flatten(numbers)):
        note = f"only the result {_plain(result)} was heard"
    elif formulas:
        note = "the operator was heard with other operands"
    else:
        note = "no operator was heard between two numbers"
    return Verdict("wrong", missing=(wanted,), heard=heard, note=note)


def _same_decimal(expected: Decimal, heard: str) -> bool:
    try:
        return Decimal(heard) == expected
    except InvalidOperation:
        return False


def _score_unit(text: str, expect: Mapping[str, Any], numbers: Sequence[ZhNumber]) -> Verdict:
    value = expect["value"]
    unit = canonical_unit(expect["unit"]) or expect["unit"]
    exponent = int(expect.get("exponent", 1))
    wanted = unit_text(value, unit, exponent)
    readings = _unit_readings(text, numbers)
    heard = tuple(r.describe() for r in readings) or _describe_all(numbers)
    for reading in readings:
        if same_value(value, reading.value) and reading.unit == unit and reading.exponent == exponent:
            return Verdict("correct", matched=(wanted,), heard=heard)
    with_value = [r for r in readings if same_value(value, r.value)]
    if any(r.unit == unit for r in with_value):
        note = f"the power differs: {exponent} expected"
    elif with_value:
        note = f"another unit was heard, {unit} expected"
    elif any(same_value(value, n.value) for n in numbers):
        note = f"{value} heard without a unit"
    else:
        note = f"{value} not heard"
    return Verdict("wrong", missing=(wanted,), heard=heard, note=note)
