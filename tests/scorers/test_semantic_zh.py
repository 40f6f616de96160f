"""The ``semantic`` scorer (zh), and the Chinese case packs scored both ways from recorded transcripts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import CaseFileError, parse_suite
from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.readings import ReadingsScorer
from pytest_ttsbench.scorers.registry import get_scorer
from pytest_ttsbench.scorers.semantic_zh import (
    CURRENCIES,
    DOLLARS,
    EXPECT_SCHEMA,
    UNITS,
    SemanticScorer,
    currencies_in_written,
)
from pytest_ttsbench.scorers.text import readings_canon

ROOT = Path(__file__).resolve().parents[2]
NUMERALS_FILE = pack_file("zh-numerals")
NEWS_FILE = pack_file("zh-news")
TRANSCRIPTS = ROOT / "tests" / "data" / "zh-transcripts.jsonl"

SCORER = SemanticScorer()
ZH = ScoreContext(language="zh")


def score(transcript: str, expect: dict[str, Any]) -> Any:
    return SCORER.score(transcript, expect, ZH)


def test_registered_under_its_name() -> None:
    assert isinstance(get_scorer("semantic"), SemanticScorer)


# --- the expect schema ------------------------------------------------------------------------

VALID_EXPECTS = [
    {"type": "decimal", "value": "3168.846"},
    {"type": "decimal", "value": "-18.5"},
    {"type": "identifier", "digits": "001000000066"},
    {"type": "currency", "amount": "640", "currency": "USD"},
    {"type": "currency", "amount": "15.5", "currency": ["USD", "CAD"]},
    {"type": "formula", "op": "multiply", "operands": ["9", "14"]},
    {"type": "formula", "op": "divide", "operands": ["100", "1.25"]},
    {"type": "unit", "value": "12", "unit": "cm", "exponent": 2},
    {"type": "unit", "value": "80", "unit": "um"},
]


@pytest.mark.parametrize("expect", VALID_EXPECTS)
def test_valid_expect_blocks_pass_schema_and_check(expect: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(EXPECT_SCHEMA).validate(expect)
    assert SCORER.check(expect, "zh") == []


@pytest.mark.parametrize(
    ("expect", "path", "fragment"),
    [
        ({"value": "1.5"}, [], "'type' is a required property"),
        ({"type": "ratio", "value": "1.5"}, ["type"], "is not one of"),
        ({"type": "decimal"}, [], "'value' is a required property"),
        # A YAML float would lose trailing zeros: values must be strings.
        ({"type": "decimal", "value": 0.5}, ["value"], "is not of type 'string'"),
        ({"type": "decimal", "value": "12"}, ["value"], "does not match"),
        ({"type": "decimal", "value": "1.5", "digits": "15"}, [], "'digits' was unexpected"),
        ({"type": "identifier", "digits": "12a4"}, ["digits"], "does not match"),
        ({"type": "currency", "amount": "640"}, [], "'currency' is a required property"),
        ({"type": "currency", "amount": "640", "currency": "DOLLAR"}, ["currency"], "is not valid under any"),
        ({"type": "currency", "amount": "-5", "currency": "USD"}, ["amount"], "does not match"),
        ({"type": "currency", "amount": "5", "currency": ["USD", "USD"]}, ["currency"], "is not valid under any"),
        ({"type": "formula", "op": "add", "operands": ["1", "2"]}, ["op"], "is not one of"),
        ({"type": "formula", "op": "multiply", "operands": ["9"]}, ["operands"], "is too short"),
        ({"type": "formula", "op": "multiply", "operands": ["9", "x"]}, ["operands", 1], "does not match"),
        ({"type": "unit", "value": "12", "unit": "parsec"}, ["unit"], "is not one of"),
        ({"type": "unit", "value": "12", "unit": "cm", "exponent": 4}, ["exponent"], "is not one of"),
    ],
)
def test_malformed_expect_blocks_name_the_field(expect: dict[str, Any], path: list[Any], fragment: str) -> None:
    errors = list(jsonschema.Draft202012Validator(EXPECT_SCHEMA).iter_errors(expect))
    assert any(list(e.absolute_path) == path and fragment in e.message for e in errors), [
        (list(e.absolute_path), e.message) for e in errors
    ]


@pytest.mark.parametrize(
    ("expect", "language", "field"),
    [
        ({"type": "decimal", "value": "1.5"}, "en", "language"),
        ({"type": "formula", "op": "divide", "operands": ["9", "0.0"]}, "zh", "expect.operands[1]"),
        ({"type": "unit", "value": "5", "unit": "kg", "exponent": 2}, "zh", "expect.exponent"),
    ],
)
def test_check_reports_what_the_schema_cannot(expect: dict[str, Any], language: str, field: str) -> None:
    assert [f for f, _ in SCORER.check(expect, language)] == [field]


@pytest.mark.parametrize(
    ("expect", "language"),
    [
        ({"type": "formula", "op": "multiply", "operands": ["9", "0"]}, "zh"),  # only a divisor of 0 is bad
        ({"type": "unit", "value": "5", "unit": "km", "exponent": 2}, "zh-CN"),
        ({"type": "decimal", "value": "1.5"}, "cmn"),
    ],
)
def test_check_does_not_over_fire(expect: dict[str, Any], language: str) -> None:
    assert SCORER.check(expect, language) == []


def test_loader_rejects_a_bad_item_with_its_field(tmp_path: Path) -> None:
    data = {
        "suite": "zh-bad",
        "language": "zh",
        "scorer": "semantic",
        "items": [
            {"id": "ok", "category": "decimal", "text": "0.50", "expect": {"type": "decimal", "value": "0.50"}},
            {"id": "bad", "category": "decimal", "text": "0.50", "expect": {"type": "decimal", "value": 0.5}},
        ],
    }
    with pytest.raises(CaseFileError) as caught:
        parse_suite(tmp_path / "zh-bad.yaml", data)
    assert [(p.item, p.field) for p in caught.value.problems] == [("bad", "expect.value")]


# --- decimal ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "value", "outcome"),
    [
        ("营收三千一百六十八点八四六万元", "3168.846", "correct"),
        ("营收3168.846万元", "3168.846", "correct"),
        ("营收3,168.846万元", "3168.846", "correct"),
        ("每股零点五零元", "0.50", "correct"),
        ("零下十八点五度", "-18.5", "correct"),
        ("负十八点五度", "-18.5", "correct"),
        ("差异率百分之零点零七五", "0.075", "correct"),
        # Every decimal digit: dropped, changed or extra digits fail.
        ("每股零点五元", "0.50", "wrong"),
        ("每股零点五零零元", "0.50", "wrong"),
        ("营收三千一百六十八点八万元", "3168.846", "wrong"),
        ("七点一三六", "7.1036", "wrong"),
        ("十八点五度", "-18.5", "wrong"),
        # The same digits as a quantity are not the decimal.
        ("三千一百六十八万八千四百六十元", "3168.846", "wrong"),
        ("一千零二十五兆帕", "1.025", "wrong"),
        # 点 in a word is no decimal point; a bare integer never matches a decimal.
        ("重点是三", "3.0", "wrong"),
        ("三", "3.0", "wrong"),
    ],
)
def test_decimal(transcript: str, value: str, outcome: str) -> None:
    verdict = score(transcript, {"type": "decimal", "value": value})
    assert verdict.outcome == outcome, verdict.explain()


def test_decimal_evidence_names_what_was_heard() -> None:
    verdict = score("营收三千一百六十八点八万元", {"type": "decimal", "value": "3168.846"})
    assert verdict.missing == ("3168.846",)
    assert verdict.heard == ("3168.8万",)
    assert verdict.note == "decimal digits .8 heard for .846"
    verdict = score("营收三千一百六十八点八四六万元", {"type": "decimal", "value": "3168.846"})
    assert verdict.matched == ("3168.846",) and verdict.heard == ("3168.846万",)


# --- identifier -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "digits", "outcome"),
    [
        ("运单号零零幺零零零零零零零六六", "001000000066", "correct"),
        ("运单号零零一零零零零零零零六六", "001000000066", "correct"),  # 一 as well as 幺
        ("运单号001000000066", "001000000066", "correct"),
        ("运单号 001 000 000 066", "001000000066", "correct"),
        ("运单号001-000-000-066", "001000000066", "correct"),
        ("运单号零零幺000000066", "001000000066", "correct"),  # words and digits back to back
        # Order, length and every zero.
        ("运单号零零幺零零零零零零六六", "001000000066", "wrong"),
        ("运单号零零幺零零零零零零零零六六", "001000000066", "wrong"),
        ("运单号零零幺零零零零零零零六六六", "001000000066", "wrong"),
        ("运单号幺零零零零零零零六六", "001000000066", "wrong"),
        ("运单号六六零零零零零零零幺零零", "001000000066", "wrong"),
        # A quantity reading is not a digit string.
        ("运单号十亿零六十六", "001000000066", "wrong"),
        ("分机一千零一十", "1010", "wrong"),
        # A comma or a word between groups ends the identifier.
        ("验证码零零六六零零，五分钟内有效", "006600", "correct"),
        ("验证码零零六六，零零", "006600", "wrong"),
        # Unpunctuated: a last digit word opening a count (五分钟) may be left off, nothing else.
        ("验证码零零六六零零五分钟内有效", "006600", "correct"),
        ("验证码零零六六零零五内有效", "006600", "wrong"),
        ("验证码006600五分钟内有效", "006600", "correct"),
        ("验证码0066005分钟内有效", "006600", "wrong"),
        ("验证码零零六六零五分钟内有效", "006600", "wrong"),
        # Digits in lexical words do not join the run.
        ("编号零三零五统一入库", "0305", "correct"),
    ],
)
def test_identifier(transcript: str, digits: str, outcome: str) -> None:
    verdict = score(transcript, {"type": "identifier", "digits": digits})
    assert verdict.outcome == outcome, verdict.explain()


@pytest.mark.parametrize(
    ("transcript", "note"),
    [
        ("分机一千零一十", "read as a quantity, not digit by digit"),
        ("库位三百零五", "read as a quantity, not digit by digit"),
        ("库位三零五", "leading zeros dropped"),
        ("库位零三零五五", "5 digits heard in the longest run, 4 expected"),
    ],
)
def test_identifier_evidence(transcript: str, note: str) -> None:
    digits = "1010" if "分机" in transcript else "0305"
    verdict = score(transcript, {"type": "identifier", "digits": digits})
    assert (verdict.outcome, verdict.note) == ("wrong", note)
    assert verdict.missing == (digits,)
    assert verdict.heard


# --- currency ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "currency", "outcome"),
    [
        ("报价一百港元", "HKD", "correct"),
        ("报价一百港币", "HKD", "correct"),
        ("报价港币一百元", "HKD", "correct"),  # the name before wins over 元
        ("报价一百元港币", "HKD", "correct"),  # a name right after 元 wins over it
        ("报价HK$100", "HKD", "correct"),
        ("报价100 HKD", "HKD", "correct"),
        ("报价一百美元", "HKD", "wrong"),
        ("报价一百元", "HKD", "wrong"),
        ("报价$100", "HKD", "wrong"),  # a recognizer's $ is US dollars
        ("报价一百", "HKD", "wrong"),
        ("报价两百港元", "HKD", "wrong"),
        ("港元汇率稳定，报价一百", "HKD", "wrong"),  # the reading must be next to the amount
        # A set of allowed currencies.
        ("报价一百加元", ["USD", "CAD"], "correct"),
        ("报价一百美金", ["USD", "CAD"], "correct"),
        ("报价一百欧元", ["USD", "CAD"], "wrong"),
        # Longest reading first: 澳门元 is not 澳元, 日元 is not 元, 块钱 is 块.
        ("一百澳门元", "AUD", "wrong"),
        ("一百澳门元", "MOP", "correct"),
        ("一百日元", "CNY", "wrong"),
        ("一百块钱", "CNY", "correct"),
        ("人民币一百", "CNY", "correct"),
        ("一百万美元", "USD", "wrong"),  # amount 100 not heard: this is 1000000
    ],
)
def test_currency(transcript: str, currency: str | list[str], outcome: str) -> None:
    verdict = score(transcript, {"type": "currency", "amount": "100", "currency": currency})
    assert verdict.outcome == outcome, verdict.explain()


def test_currency_amounts_are_values() -> None:
    expect = {"type": "currency", "amount": "15.50", "currency": "USD"}
    assert score("十五点五美元", expect).outcome == "correct"
    assert score("一千二百五十万美元", {**expect, "amount": "12500000"}).outcome == "correct"
    assert score("一万两千六澳元", {**expect, "amount": "12600", "currency": "AUD"}).outcome == "correct"


def test_currency_evidence_shows_what_was_read() -> None:
    verdict = score("报价一百美元", {"type": "currency", "amount": "100", "currency": "HKD"})
    assert verdict.heard == ("100 USD (美元)",)
    assert verdict.missing == ("100 HKD",)
    verdict = score("报价两百港元", {"type": "currency", "amount": "100", "currency": "HKD"})
    assert verdict.note == "amount 100 not heard" and verdict.heard == ("200",)


@pytest.mark.parametrize(("code", "name"), [(c.code, n) for c in CURRENCIES.values() for n in c.names])
def test_every_currency_name_reads_as_its_code(code: str, name: str) -> None:
    expect = {"type": "currency", "amount": "100", "currency": code}
    assert score(f"金额为一百{name}", expect).outcome == "correct"
    others = sorted(set(CURRENCIES) - {code})
    assert score(f"金额为一百{name}", {**expect, "currency": others}).outcome == "wrong"


@pytest.mark.parametrize(
    ("written", "admitted"),
    [
        ("报价为HK$100。", ("HKD",)),
        ("出厂价为US$640", ("USD",)),
        ("海运费为$1,250", tuple(sorted(DOLLARS))),
        ("定金为¥2000", ("CNY", "JPY")),
        ("定金为￥2000", ("CNY", "JPY")),
        ("月租金为CAD 3,800", ("CAD",)),
        ("样品费为JPY 5,000", ("JPY",)),
        ("货款为2,000美元", ("USD",)),
        ("金额为人民币35,000元", ("CNY",)),
        ("采购款为NT$96,000", ("TWD",)),
        ("服务费为S$880", ("SGD",)),
        ("预算为€4,500", ("EUR",)),
        # Codes only as whole words; no currency at all.
        ("型号CADX-100", ()),
        ("数量为100件", ()),
    ],
)
def test_currencies_in_written(written: str, admitted: tuple[str, ...]) -> None:
    assert currencies_in_written(written) == admitted


# --- formula ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "op", "operands", "outcome"),
    [
        ("九乘以十四", "multiply", ["9", "14"], "correct"),
        ("九乘十四", "multiply", ["9", "14"], "correct"),
        ("9×14", "multiply", ["9", "14"], "correct"),
        ("9 * 14", "multiply", ["9", "14"], "correct"),
        ("9x14", "multiply", ["9", "14"], "correct"),
        ("十四乘九", "multiply", ["9", "14"], "correct"),  # a product in either order
        ("一点五乘以零点八", "multiply", ["1.5", "0.8"], "correct"),
        ("三除以二", "divide", ["3", "2"], "correct"),
        ("3÷2", "divide", ["3", "2"], "correct"),
        ("3/2", "divide", ["3", "2"], "correct"),
        ("二分之三", "divide", ["3", "2"], "correct"),  # A分之B is B ÷ A
        ("一百除以一点二五", "divide", ["100", "1.25"], "correct"),
        # The result alone, a lost operator, the wrong operator, a swapped quotient.
        ("一百二十六", "multiply", ["9", "14"], "wrong"),
        ("九十四", "multiply", ["9", "14"], "wrong"),
        ("九十四", "divide", ["9", "4"], "wrong"),
        ("九星十四", "multiply", ["9", "14"], "wrong"),
        ("九除以十四", "multiply", ["9", "14"], "wrong"),
        ("一点五", "divide", ["3", "2"], "wrong"),
        ("三分之二", "divide", ["3", "2"], "wrong"),
        ("二除以三", "divide", ["3", "2"], "wrong"),
        ("三斜杠二", "divide", ["3", "2"], "wrong"),
        # 乘 or 除 not between two numbers is no operator.
        ("三名乘客和两名司机", "multiply", ["3", "2"], "wrong"),
        ("排除三个和两个", "divide", ["3", "2"], "wrong"),
    ],
)
def test_formula(transcript: str, op: str, operands: list[str], outcome: str) -> None:
    verdict = score(transcript, {"type": "formula", "op": op, "operands": operands})
    assert verdict.outcome == outcome, verdict.explain()


@pytest.mark.parametrize(
    ("transcript", "note"),
    [
        ("一百二十六", "only the result 126 was heard"),
        ("九十四", "no operator was heard between two numbers"),
        ("九除以十四", "a different operator was heard"),
        ("九乘以十五", "the operator was heard with other operands"),
    ],
)
def test_formula_evidence(transcript: str, note: str) -> None:
    verdict = score(transcript, {"type": "formula", "op": "multiply", "operands": ["9", "14"]})
    assert (verdict.outcome, verdict.note, verdict.missing) == ("wrong", note, ("9 × 14",))


def test_formula_heard_lists_formulas_and_values() -> None:
    verdict = score("九乘以十四", {"type": "formula", "op": "multiply", "operands": ["9", "14"]})
    assert verdict.heard == ("9 × 14", "9", "14")


# --- unit -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "expect", "outcome"),
    [
        ("十二平方厘米", {"value": "12", "unit": "cm", "exponent": 2}, "correct"),
        ("12cm²", {"value": "12", "unit": "cm", "exponent": 2}, "correct"),
        ("12 cm^2", {"value": "12", "unit": "cm", "exponent": 2}, "correct"),
        ("12cm2", {"value": "12", "unit": "cm", "exponent": 2}, "correct"),
        ("十二公分", {"value": "12", "unit": "cm"}, "correct"),
        ("三百五十平米", {"value": "350", "unit": "m", "exponent": 2}, "correct"),
        ("六十七点三立方米", {"value": "67.3", "unit": "m", "exponent": 3}, "correct"),
        ("五微米", {"value": "5", "unit": "um"}, "correct"),
        ("5μm", {"value": "5", "unit": "µm"}, "correct"),
        ("二十八奈米", {"value": "28", "unit": "nm"}, "correct"),
        ("十八公斤", {"value": "18", "unit": "kg"}, "correct"),
        ("十八千克", {"value": "18", "unit": "kg"}, "correct"),
        ("三千米", {"value": "3", "unit": "km"}, "correct"),  # 3 km …
        ("三千米", {"value": "3000", "unit": "m"}, "correct"),  # … or 3000 m
        ("七点五千瓦", {"value": "7.5", "unit": "kW"}, "correct"),
        ("二点五平方公里", {"value": "2.5", "unit": "km", "exponent": 2}, "correct"),
        # All three must match.
        ("十二厘米", {"value": "12", "unit": "cm", "exponent": 2}, "wrong"),
        ("十二立方厘米", {"value": "12", "unit": "cm", "exponent": 2}, "wrong"),
        ("十二平方毫米", {"value": "12", "unit": "cm", "exponent": 2}, "wrong"),
        ("十三平方厘米", {"value": "12", "unit": "cm", "exponent": 2}, "wrong"),
        ("十二平方", {"value": "12", "unit": "cm", "exponent": 2}, "wrong"),
        ("十二CM二", {"value": "12", "unit": "cm", "exponent": 2}, "wrong"),
        ("五米", {"value": "5", "unit": "µm"}, "wrong"),
        ("零点八帕", {"value": "0.8", "unit": "MPa"}, "wrong"),
        ("十八克", {"value": "18", "unit": "kg"}, "wrong"),
        # Latin units match whole: m is not the start of min, mAh is not mA.
        ("五min", {"value": "5", "unit": "m"}, "wrong"),
        ("五千mAh", {"value": "5000", "unit": "mA"}, "wrong"),
        ("五千mAh", {"value": "5000", "unit": "mAh"}, "correct"),
        # 平方 / 立方 without a number before them are not powers of anything.
        ("平方米单价为十二元", {"value": "12", "unit": "m", "exponent": 2}, "wrong"),
    ],
)
def test_unit(transcript: str, expect: dict[str, Any], outcome: str) -> None:
    verdict = score(transcript, {"type": "unit", **expect})
    assert verdict.outcome == outcome, verdict.explain()


@pytest.mark.parametrize(("unit", "alias"), [(u, a) for u, aliases in UNITS.items() for a in aliases])
def test_every_unit_alias_reads_as_its_unit(unit: str, alias: str) -> None:
    assert score(f"数值为十二{alias}。", {"type": "unit", "value": "12", "unit": unit}).outcome == "correct"


@pytest.mark.parametrize(
    ("transcript", "note"),
    [
        ("十二厘米", "the power differs: 2 expected"),
        ("十二平方毫米", "another unit was heard, cm expected"),
        ("十二平方", "another unit was heard, cm expected"),  # 平方 alone is square metres
        ("十二", "12 heard without a unit"),
        ("十三平方厘米", "12 not heard"),
    ],
)
def test_unit_evidence(transcript: str, note: str) -> None:
    verdict = score(transcript, {"type": "unit", "value": "12", "unit": "cm", "exponent": 2})
    assert (verdict.outcome, verdict.note, verdict.missing) == ("wrong", note, ("12 cm^2",))


def test_unit_heard_shows_value_unit_and_power() -> None:
    verdict = score("十二平方毫米", {"type": "unit", "value": "12", "unit": "cm", "exponent": 2})
    assert verdict.heard == ("12 mm^2 (十二平方毫米)",)


@pytest.mark.parametrize(
    ("expect", "text"),
    [
        ({"type": "decimal", "value": "0.50"}, "decimal 0.50 with every decimal digit"),
        ({"type": "identifier", "digits": "0305"}, "digits 0305 read one by one"),
        ({"type": "currency", "amount": "2000", "currency": ["CNY", "JPY"]}, "amount 2000 in CNY or JPY"),
        ({"type": "formula", "op": "divide", "operands": ["3", "2"]}, "formula 3 ÷ 2"),
        ({"type": "unit", "value": "80", "unit": "um"}, "unit 80 µm"),
        ({"type": "unit", "value": "12", "unit": "cm", "exponent": 2}, "unit 12 cm^2"),
    ],
)
def test_expected_text(expect: dict[str, Any], text: str) -> None:
    assert SCORER.expected_text(expect) == text


# --- the zh-numerals case pack ----------------------------------------------------------------

NUMERALS = yaml.safe_load(NUMERALS_FILE.read_text(encoding="utf-8"))
NUMERAL_ITEMS = {item["id"]: item for item in NUMERALS["items"]}
TYPES = ("decimal", "identifier", "currency", "formula", "unit")


def test_numerals_pack_shape() -> None:
    assert (NUMERALS["suite"], NUMERALS["language"], NUMERALS["scorer"]) == ("zh-numerals", "zh", "semantic")
    assert len(NUMERALS["items"]) == len(NUMERAL_ITEMS) == 75
    for kind in TYPES:
        assert sum(item["category"] == kind for item in NUMERALS["items"]) == 15, kind
    assert all(item["category"] == item["expect"]["type"] for item in NUMERALS["items"])
    assert {item["domain"] for item in NUMERALS["items"]} == {"finance", "engineering", "logistics", "operations"}


def test_numerals_pack_loads() -> None:
    suite = parse_suite(NUMERALS_FILE, NUMERALS)
    assert len(suite.items) == 75


def _template(text: str) -> str:
    """A sentence with its numbers, symbols and Latin letters taken out."""
    return re.sub(r"[0-9.,%×÷*/+\-±$¥€£²³µA-Za-z\s]+", "#", text)


def test_numerals_carriers_are_not_one_template() -> None:
    templates = [_template(item["text"]) for item in NUMERALS["items"]]
    assert len(set(templates)) == len(templates)


@pytest.mark.parametrize("item_id", sorted(NUMERAL_ITEMS))
def test_numerals_item_expect_is_valid(item_id: str) -> None:
    expect = NUMERAL_ITEMS[item_id]["expect"]
    jsonschema.Draft202012Validator(EXPECT_SCHEMA).validate(expect)
    assert SCORER.check(expect, NUMERALS["language"]) == []


@pytest.mark.parametrize("item_id", sorted(NUMERAL_ITEMS))
def test_numerals_item_text_as_written_keeps_its_meaning(item_id: str) -> None:
    """A recognizer that writes the text back in symbols has heard the meaning: the expect fits the text."""
    item = NUMERAL_ITEMS[item_id]
    verdict = SCORER.score(item["text"], item["expect"], ScoreContext(language="zh", text=item["text"]))
    assert verdict.outcome == "correct", verdict.explain()


@pytest.mark.parametrize("item_id", sorted(i for i, item in NUMERAL_ITEMS.items() if item["category"] == "currency"))
def test_numerals_currency_sets_follow_the_written_marks(item_id: str) -> None:
    expect = NUMERAL_ITEMS[item_id]["expect"]
    allowed = expect["currency"] if isinstance(expect["currency"], list) else [expect["currency"]]
    assert tuple(sorted(allowed)) == currencies_in_written(NUMERAL_ITEMS[item_id]["text"])


# --- the zh-news case pack --------------------------------------------------------------------

NEWS = yaml.safe_load(NEWS_FILE.read_text(encoding="utf-8"))
NEWS_ITEMS = {item["id"]: item for item in NEWS["items"]}
NEWS_CATEGORIES = {
    "sports_score",
    "military_model",
    "vehicle_model",
    "year_range",
    "range_hyphen",
    "unit_symbol",
    "generation_label",
    "percentage",
    "abbreviation",
    "brand_mixed",
}
READINGS = ReadingsScorer()


def test_news_pack_shape() -> None:
    assert (NEWS["suite"], NEWS["language"], NEWS["scorer"]) == ("zh-news", "zh", "readings")
    assert 28 <= len(NEWS_ITEMS) == len(NEWS["items"]) <= 40
    categories = [item["category"] for item in NEWS["items"]]
    assert set(categories) == NEWS_CATEGORIES
    assert all(categories.count(c) >= 3 for c in NEWS_CATEGORIES)
    assert len(parse_suite(NEWS_FILE, NEWS).items) == len(NEWS_ITEMS)


@pytest.mark.parametrize("item_id", sorted(NEWS_ITEMS))
def test_news_targets_are_sound(item_id: str) -> None:
    item = NEWS_ITEMS[item_id]
    assert READINGS.check(item["expect"], "zh") == []
    for target in item["expect"]["targets"]:
        assert target["span"] in item["text"]
        assert target["negative"], "every target has forbidden readings"
        for negative in target["negative"]:
            for positive in target["positive"]:
                # Negatives are matched first: one inside a positive would fail a correct reading.
                assert readings_canon(negative) not in readings_canon(positive), (negative, positive)


# --- recorded transcripts, scored both ways ---------------------------------------------------

# One entry per row of tests/data/zh-transcripts.jsonl, in file order (the zh-numerals rows,
# then the zh-news rows): the verdict the row must get, and why.
NUMERAL_VERDICTS: list[tuple[str, str, str]] = [
    ("dec-revenue", "correct", "every decimal digit, 万 after the digits"),
    ("dec-revenue", "correct", "Arabic digits as written"),
    ("dec-revenue", "wrong", "two decimal digits dropped"),
    ("dec-revenue", "wrong", "decimal digits read as a quantity"),
    ("dec-tensile", "correct", "Arabic digits"),
    ("dec-tensile", "wrong", "decimal digits swapped"),
    ("dec-stock-variance", "correct", "inside 百分之"),
    ("dec-stock-variance", "wrong", "a zero after the point lost"),
    ("dec-fx-rate", "correct", "inner zero kept"),
    ("dec-fx-rate", "wrong", "inner zero dropped"),
    ("dec-fx-rate", "wrong", "garbled: digits after the point read as a quantity"),
    ("dec-eps", "correct", "trailing zero kept"),
    ("dec-eps", "wrong", "trailing zero dropped"),
    ("dec-load-rate", "correct", "trailing zero inside 百分之"),
    ("dec-load-rate", "wrong", "trailing zero dropped"),
    ("dec-transit-time", "correct", "words"),
    ("dec-transit-time", "wrong", "decimal part lost; the other decimal does not stand in"),
    ("dec-csat", "correct", "Arabic digits"),
    ("dec-csat", "wrong", "last digit dropped"),
    ("dec-tolerance", "correct", "正负 is ± and no minus sign"),
    ("dec-tolerance", "wrong", "zeros after the point lost"),
    ("dec-cold-store", "correct", "零下 is the sign"),
    ("dec-cold-store", "correct", "负 is the sign"),
    ("dec-cold-store", "wrong", "sign lost"),
    ("dec-net-profit", "correct", "亿 after the digits"),
    ("dec-net-profit", "wrong", "inner zero dropped"),
    ("dec-pipe-pressure", "correct", "Arabic digits"),
    ("dec-pipe-pressure", "wrong", "garbled: point lost, read as a quantity"),
    ("dec-irr", "correct", "inside 百分之"),
    ("dec-irr", "wrong", "last digit dropped"),
    ("dec-fuel-surcharge", "correct", "trailing zero kept"),
    ("dec-fuel-surcharge", "wrong", "trailing zero dropped"),
    ("dec-yield", "correct", "inside 百分之"),
    ("dec-yield", "correct", "Arabic digits with %"),
    ("dec-yield", "wrong", "decimal part lost"),
    ("id-waybill", "correct", "幺 for 1, every zero"),
    ("id-waybill", "correct", "Arabic digits"),
    ("id-waybill", "wrong", "read as a quantity"),
    ("id-waybill", "wrong", "one zero lost"),
    ("id-purchase-order", "correct", "digit by digit after the letters"),
    ("id-purchase-order", "wrong", "garbled: read as a date"),
    ("id-hotline", "correct", "digit by digit"),
    ("id-hotline", "correct", "groups separated by spaces"),
    ("id-hotline", "wrong", "first group read as a quantity"),
    ("id-ticket", "correct", "leading zeros, 二线 is no digit"),
    ("id-ticket", "wrong", "read as a quantity"),
    ("id-seal", "correct", "幺幺 for 11"),
    ("id-seal", "wrong", "read as a quantity"),
    ("id-serial-tail", "correct", "末六位 stays apart"),
    ("id-serial-tail", "wrong", "leading zeros lost in a quantity"),
    ("id-serial-tail", "wrong", "one leading zero lost"),
    ("id-meeting", "correct", "digit by digit"),
    ("id-meeting", "wrong", "a zero lost"),
    ("id-batch", "correct", "Arabic digits"),
    ("id-batch", "wrong", "garbled: read as a date"),
    ("id-expense", "correct", "repeated zeros kept"),
    ("id-expense", "wrong", "read as a quantity"),
    ("id-rma", "correct", "digit by digit"),
    ("id-rma", "wrong", "read as a quantity"),
    ("id-rma", "wrong", "a zero lost"),
    ("id-bin", "correct", "leading zero kept"),
    ("id-bin", "wrong", "read as a quantity"),
    ("id-extension", "correct", "幺 for 1"),
    ("id-extension", "wrong", "read as a quantity"),
    ("id-flight", "correct", "digits after the airline code"),
    ("id-flight", "wrong", "read as a quantity"),
    ("id-vin-tail", "correct", "后八位 stays apart"),
    ("id-vin-tail", "wrong", "read as a quantity"),
    ("id-otp", "correct", "leading and trailing zeros"),
    ("id-otp", "correct", "unpunctuated: 五 opens the count 五分钟"),
    ("id-otp", "wrong", "read as a quantity"),
    ("cur-hkd-quote", "correct", "港元 after the amount"),
    ("cur-hkd-quote", "correct", "港币 before the amount wins over 元"),
    ("cur-hkd-quote", "wrong", "HK$ read as US dollars"),
    ("cur-hkd-quote", "wrong", "HK$ read as yuan"),
    ("cur-usd-ex-works", "correct", "美元"),
    ("cur-usd-ex-works", "correct", "美金, Arabic digits"),
    ("cur-usd-ex-works", "wrong", "US$ read as yuan"),
    ("cur-dollar-freight", "correct", "a bare $ admits US dollars"),
    ("cur-dollar-freight", "correct", "a bare $ admits any dollar"),
    ("cur-dollar-freight", "wrong", "currency dropped"),
    ("cur-dollar-freight", "wrong", "元 alone is no dollar"),
    ("cur-cad-rent", "correct", "加元"),
    ("cur-cad-rent", "correct", "加币"),
    ("cur-cad-rent", "wrong", "CAD read as US dollars"),
    ("cur-jpy-samples", "correct", "日元"),
    ("cur-jpy-samples", "wrong", "JPY read as yuan"),
    ("cur-yen-deposit", "correct", "a bare ¥ admits 元"),
    ("cur-yen-deposit", "correct", "人民币 before the amount"),
    ("cur-yen-deposit", "correct", "a bare ¥ admits 日元"),
    ("cur-yen-deposit", "wrong", "¥ read as dollars"),
    ("cur-yen-deposit", "wrong", "garbled: digits, no currency"),
    ("cur-eur-travel", "correct", "欧元"),
    ("cur-eur-travel", "correct", "spoken short form 四千五"),
    ("cur-eur-travel", "wrong", "€ read as yuan"),
    ("cur-gbp-network", "correct", "英镑"),
    ("cur-gbp-network", "wrong", "£ read as euros"),
    ("cur-sgd-agent", "correct", "新加坡元"),
    ("cur-sgd-agent", "correct", "新币"),
    ("cur-sgd-agent", "wrong", "S$ read as US dollars"),
    ("cur-aud-sales", "correct", "澳元"),
    ("cur-aud-sales", "correct", "spoken short form 一万两千六"),
    ("cur-aud-sales", "wrong", "A$ read as yuan"),
    ("cur-usd-name", "correct", "美元"),
    ("cur-usd-name", "wrong", "a different dollar"),
    ("cur-cny-settlement", "correct", "人民币…元"),
    ("cur-cny-settlement", "correct", "元 alone is yuan"),
    ("cur-cny-settlement", "wrong", "amount off by ten"),
    ("cur-yen-budget", "correct", "日元"),
    ("cur-yen-budget", "correct", "元"),
    ("cur-yen-budget", "wrong", "garbled: 万 after the currency"),
    ("cur-usd-unit-price", "correct", "美元"),
    ("cur-usd-unit-price", "correct", "the code as a recognizer writes it"),
    ("cur-usd-unit-price", "wrong", "currency dropped"),
    ("cur-twd-purchase", "correct", "新台币 after the amount"),
    ("cur-twd-purchase", "correct", "新台币 before the amount"),
    ("cur-twd-purchase", "wrong", "NT$ read as yuan"),
    ("cur-twd-purchase", "wrong", "NT$ read as US dollars"),
    ("fml-report-check", "correct", "乘以"),
    ("fml-report-check", "correct", "× as a recognizer writes it"),
    ("fml-report-check", "wrong", "operator lost"),
    ("fml-report-check", "wrong", "* read as 星"),
    ("fml-carton-base", "correct", "乘"),
    ("fml-carton-base", "wrong", "× read as the letter x"),
    ("fml-daily-capacity", "correct", "乘"),
    ("fml-daily-capacity", "wrong", "only the result"),
    ("fml-cost-share", "correct", "除以"),
    ("fml-cost-share", "correct", "A分之B is B ÷ A"),
    ("fml-cost-share", "wrong", "only the result"),
    ("fml-cost-share", "wrong", "operator lost"),
    ("fml-turnover", "correct", "除以"),
    ("fml-turnover", "correct", "分之"),
    ("fml-turnover", "wrong", "fraction inverted"),
    ("fml-turnover", "wrong", "/ read as 斜杠"),
    ("fml-pallets", "correct", "乘"),
    ("fml-pallets", "correct", "a product in the other order"),
    ("fml-pallets", "wrong", "operator lost"),
    ("fml-motor-factor", "correct", "decimal operands"),
    ("fml-motor-factor", "wrong", "only the result"),
    ("fml-unit-price", "correct", "除以"),
    ("fml-unit-price", "correct", "÷ as a recognizer writes it"),
    ("fml-unit-price", "wrong", "operator lost"),
    ("fml-floor-area", "correct", "乘"),
    ("fml-floor-area", "wrong", "only the result"),
    ("fml-deduction", "correct", "除以"),
    ("fml-deduction", "correct", "分之"),
    ("fml-deduction", "wrong", "fraction inverted"),
    ("fml-two-lines", "correct", "两条 does not get in the way"),
    ("fml-two-lines", "wrong", "only the result"),
    ("fml-weekly-quota", "correct", "除以"),
    ("fml-weekly-quota", "wrong", "a quotient in the other order"),
    ("fml-weekly-quota", "wrong", "operator lost"),
    ("fml-rack-load", "correct", "乘"),
    ("fml-rack-load", "wrong", "operator lost"),
    ("fml-conversion", "correct", "decimal divisor"),
    ("fml-conversion", "wrong", "only the result"),
    ("fml-overtime", "correct", "乘"),
    ("fml-overtime", "wrong", "operator lost"),
    ("unit-section-area", "correct", "平方 before the unit"),
    ("unit-section-area", "correct", "symbols as a recognizer writes them"),
    ("unit-section-area", "wrong", "power lost"),
    ("unit-section-area", "wrong", "² read as the digit 二"),
    ("unit-hall-floor", "correct", "平方米"),
    ("unit-hall-floor", "correct", "平米 is a square metre"),
    ("unit-hall-floor", "wrong", "power lost"),
    ("unit-reefer-volume", "correct", "立方米"),
    ("unit-reefer-volume", "wrong", "square for cube"),
    ("unit-reefer-volume", "wrong", "³ read as the digit 三"),
    ("unit-line-width", "correct", "纳米"),
    ("unit-line-width", "correct", "奈米"),
    ("unit-line-width", "wrong", "different unit"),
    ("unit-filter", "correct", "微米"),
    ("unit-filter", "wrong", "µ dropped"),
    ("unit-parcel-weight", "correct", "公斤"),
    ("unit-parcel-weight", "correct", "千克 after 十八"),
    ("unit-parcel-weight", "wrong", "k dropped"),
    ("unit-pipe-bore", "correct", "毫米"),
    ("unit-pipe-bore", "correct", "spoken short form 一百五"),
    ("unit-pipe-bore", "wrong", "m for mm"),
    ("unit-delivery-radius", "correct", "公里"),
    ("unit-delivery-radius", "correct", "千米 after 三十"),
    ("unit-delivery-radius", "wrong", "k dropped"),
    ("unit-water-tank", "correct", "升"),
    ("unit-water-tank", "wrong", "mL for L"),
    ("unit-fan-power", "correct", "千瓦 after a decimal"),
    ("unit-fan-power", "correct", "KW as a recognizer writes it"),
    ("unit-fan-power", "wrong", "k dropped"),
    ("unit-specimen-volume", "correct", "立方厘米"),
    ("unit-specimen-volume", "wrong", "square for cube"),
    ("unit-site-area", "correct", "平方公里"),
    ("unit-site-area", "correct", "平方千米"),
    ("unit-site-area", "wrong", "power lost"),
    ("unit-concrete", "correct", "立方米; 两台 is no unit"),
    ("unit-concrete", "wrong", "power lost"),
    ("unit-working-pressure", "correct", "兆帕"),
    ("unit-working-pressure", "correct", "MPa"),
    ("unit-working-pressure", "wrong", "M dropped"),
    ("unit-working-pressure", "wrong", "kPa for MPa"),
    ("unit-coating", "correct", "微米 for um"),
    ("unit-coating", "wrong", "um spelled out as letters"),
    ("unit-coating", "wrong", "mm for µm"),
]

# zh-news rows: one verdict per target of the item, in target order.
NEWS_VERDICTS: list[tuple[str, tuple[str, ...], str]] = [
    ("score-basketball", ("correct",), "比"),
    ("score-basketball", ("correct",), "比 with Arabic digits"),
    ("score-basketball", ("wrong",), "read as a range"),
    ("score-basketball", ("unknown",), "raw symbol kept"),
    (
        "score-volleyball",
        (
            "correct",
            "correct",
        ),
        "both scores",
    ),
    (
        "score-volleyball",
        (
            "wrong",
            "correct",
        ),
        "first read as a subtraction",
    ),
    (
        "score-volleyball",
        (
            "correct",
            "wrong",
        ),
        "second read as a range",
    ),
    ("score-football", ("correct",), "比"),
    ("score-football", ("wrong",), "read as a subtraction"),
    (
        "score-tennis",
        (
            "correct",
            "correct",
        ),
        "both sets",
    ),
    (
        "score-tennis",
        (
            "wrong",
            "wrong",
        ),
        "both read as ranges",
    ),
    (
        "mil-flanker",
        (
            "correct",
            "correct",
        ),
        "hyphens silent",
    ),
    (
        "mil-flanker",
        (
            "wrong",
            "correct",
        ),
        "负 in the first",
    ),
    (
        "mil-flanker",
        (
            "correct",
            "wrong",
        ),
        "杠 in the second",
    ),
    (
        "mil-flanker",
        (
            "unknown",
            "unknown",
        ),
        "garbled recognition",
    ),
    ("mil-dongfeng", ("correct",), "hyphen silent"),
    ("mil-dongfeng", ("wrong",), "hyphen read as 负"),
    ("mil-transport", ("correct",), "hyphen silent"),
    ("mil-transport", ("wrong",), "hyphen read as 杠"),
    ("mil-f35", ("correct",), "hyphen silent"),
    ("mil-f35", ("wrong",), "hyphen read as 负, lower-case f"),
    ("mil-helicopter", ("correct",), "二零"),
    ("mil-helicopter", ("wrong",), "hyphen read as 负"),
    ("veh-id4", ("correct",), "point silent"),
    ("veh-id4", ("wrong",), "point read as 点"),
    ("veh-chr", ("correct",), "letters with a space"),
    ("veh-chr", ("wrong",), "hyphen read as 杠"),
    ("veh-dmi", ("correct",), "letters, hyphen silent"),
    ("veh-dmi", ("unknown",), "raw hyphen kept: dashes survive canonicalization"),
    ("veh-dmi", ("wrong",), "hyphen read as 减"),
    ("veh-zeekr", ("correct",), "digit by digit"),
    ("veh-zeekr", ("wrong",), "read as a quantity"),
    ("veh-univ", ("correct",), "hyphen silent"),
    ("veh-univ", ("wrong",), "hyphen read as 负"),
    ("year-plan", ("correct",), "至"),
    ("year-plan", ("wrong",), "read as a subtraction"),
    ("year-plan", ("unknown",), "raw symbol kept"),
    ("year-equipment", ("correct",), "Arabic digits with 到"),
    ("year-equipment", ("wrong",), "read as 负"),
    ("year-five-year-plan", ("correct",), "年至"),
    ("year-five-year-plan", ("wrong",), "hyphen read as 杠"),
    ("range-headway", ("correct",), "到"),
    ("range-headway", ("wrong",), "read as a subtraction"),
    ("range-firms", ("correct",), "至"),
    ("range-firms", ("wrong",), "read as a score"),
    ("range-weather", ("correct",), "到"),
    ("range-weather", ("wrong",), "read as 负"),
    ("unit-torque", ("correct",), "牛米"),
    ("unit-torque", ("wrong",), "middle dot read as 点"),
    ("unit-torque", ("unknown",), "raw symbol kept"),
    ("unit-storage", ("correct",), "兆瓦时"),
    ("unit-storage", ("wrong",), "M read as milli"),
    ("unit-engine", ("correct",), "千瓦"),
    ("unit-engine", ("wrong",), "kW read as kg"),
    ("unit-cruise", ("correct",), "每小时"),
    ("unit-cruise", ("wrong",), "slash read as 斜杠"),
    ("gen-80s", ("correct",), "digit by digit"),
    ("gen-80s", ("wrong",), "read as a quantity"),
    ("gen-95s", ("correct",), "digit by digit"),
    ("gen-95s", ("wrong",), "read as a quantity"),
    ("gen-90s", ("correct",), "Arabic digits"),
    ("gen-90s", ("wrong",), "read as a quantity"),
    ("pct-profit", ("correct",), "百分之"),
    ("pct-profit", ("wrong",), "% read as a symbol name after the number"),
    ("pct-profit", ("unknown",), "raw symbol kept"),
    ("pct-unemployment", ("correct",), "trailing zero kept"),
    ("pct-unemployment", ("wrong",), "5.0 read as fifty"),
    ("pct-index", ("correct",), "百分之零点八"),
    ("pct-index", ("wrong",), "zero and point lost"),
    ("abbr-5g", ("correct",), "五G"),
    ("abbr-5g", ("wrong",), "G read as 克"),
    ("abbr-pm25", ("correct",), "二点五"),
    ("abbr-pm25", ("wrong",), "2.5 read as 25"),
    ("abbr-pm25", ("unknown",), "raw decimal: the point is stripped, so no verdict"),
    ("abbr-covid", ("correct",), "hyphen silent"),
    ("abbr-covid", ("wrong",), "hyphen read as 负"),
    ("brand-seven-eleven", ("correct",), "七十一"),
    ("brand-seven-eleven", ("wrong",), "read as a range"),
    ("brand-wifi7", ("correct",), "WiFi七"),
    ("brand-wifi7", ("wrong",), "hyphen read as 杠"),
    ("brand-gpt4o", ("correct",), "hyphen silent"),
    ("brand-gpt4o", ("wrong",), "hyphen read as 负"),
]


def load_rows() -> list[dict[str, str]]:
    with TRANSCRIPTS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


ROWS = load_rows()
NUMERAL_ROWS = ROWS[: len(NUMERAL_VERDICTS)]
NEWS_ROWS = ROWS[len(NUMERAL_VERDICTS) :]


def test_transcript_tables_line_up_with_the_file() -> None:
    assert all(set(row) == {"id", "text"} for row in ROWS)
    assert [row["id"] for row in NUMERAL_ROWS] == [f"zh-numerals/{item}" for item, _, _ in NUMERAL_VERDICTS]
    assert [row["id"] for row in NEWS_ROWS] == [f"zh-news/{item}" for item, _, _ in NEWS_VERDICTS]


def test_every_item_is_proven_both_ways() -> None:
    for item_id in NUMERAL_ITEMS:
        outcomes = {outcome for item, outcome, _ in NUMERAL_VERDICTS if item == item_id}
        assert outcomes == {"correct", "wrong"}, item_id
    for item_id, item in NEWS_ITEMS.items():
        for index in range(len(item["expect"]["targets"])):
            outcomes = {outcome[index] for name, outcome, _ in NEWS_VERDICTS if name == item_id}
            assert {"correct", "wrong"} <= outcomes, (item_id, index)


@pytest.mark.parametrize(
    ("index", "outcome"),
    [pytest.param(i, outcome, id=f"{i:03d}-{item}-{why}") for i, (item, outcome, why) in enumerate(NUMERAL_VERDICTS)],
)
def test_recorded_numerals_transcript(index: int, outcome: str) -> None:
    row = NUMERAL_ROWS[index]
    item = NUMERAL_ITEMS[row["id"].removeprefix("zh-numerals/")]
    verdict = SCORER.score(row["text"], item["expect"], ScoreContext(language="zh", text=item["text"]))
    assert verdict.outcome == outcome, verdict.explain()
    assert verdict.heard or outcome == "wrong"
    if outcome == "wrong":
        assert verdict.missing and verdict.note


@pytest.mark.parametrize(
    ("index", "outcomes"),
    [pytest.param(i, outcomes, id=f"{i:03d}-{item}-{why}") for i, (item, outcomes, why) in enumerate(NEWS_VERDICTS)],
)
def test_recorded_news_transcript(index: int, outcomes: tuple[str, ...]) -> None:
    row = NEWS_ROWS[index]
    item = NEWS_ITEMS[row["id"].removeprefix("zh-news/")]
    context = ScoreContext(language="zh", text=item["text"])
    got = tuple(READINGS.score(row["text"], target, context).outcome for target in item["expect"]["targets"])
    assert got == outcomes


# --- colloquial currency and unit names, and their near misses (issue #15) ---------------------

NATIVE_SEMANTIC = [
    ("一百块", {"type": "currency", "amount": "100", "currency": "CNY"}, "correct"),
    ("一百块", {"type": "currency", "amount": "100", "currency": "USD"}, "wrong"),
    ("三块五", {"type": "currency", "amount": "3.5", "currency": "CNY"}, "correct"),
    ("三块五毛八", {"type": "currency", "amount": "3.58", "currency": "CNY"}, "correct"),
    ("两元五角", {"type": "currency", "amount": "2.5", "currency": "CNY"}, "correct"),
    ("三块五", {"type": "currency", "amount": "3.05", "currency": "CNY"}, "wrong"),
    ("三块五", {"type": "currency", "amount": "3.5", "currency": "USD"}, "wrong"),
    ("一百刀", {"type": "currency", "amount": "100", "currency": "USD"}, "correct"),
    ("一百美刀", {"type": "currency", "amount": "100", "currency": "USD"}, "correct"),
    ("一百刀", {"type": "currency", "amount": "100", "currency": "CAD"}, "wrong"),
    ("五十欧", {"type": "currency", "amount": "50", "currency": "EUR"}, "correct"),
    ("五十欧洲国家", {"type": "currency", "amount": "50", "currency": "EUR"}, "wrong"),
    ("一百港纸", {"type": "currency", "amount": "100", "currency": "HKD"}, "correct"),
    ("一百韩币", {"type": "currency", "amount": "100", "currency": "KRW"}, "correct"),
    ("一百韩币", {"type": "currency", "amount": "100", "currency": "JPY"}, "wrong"),
    ("一百泰币", {"type": "currency", "amount": "100", "currency": "THB"}, "correct"),
    ("一百日币", {"type": "currency", "amount": "100", "currency": "JPY"}, "correct"),
    ("一百澳币", {"type": "currency", "amount": "100", "currency": "AUD"}, "correct"),
    ("一百澳元", {"type": "currency", "amount": "100", "currency": "MOP"}, "wrong"),
    ("一百二十平米", {"type": "unit", "value": "120", "unit": "m", "exponent": 2}, "correct"),
    ("一百二十平", {"type": "unit", "value": "120", "unit": "m", "exponent": 2}, "correct"),
    ("一百二十平方", {"type": "unit", "value": "120", "unit": "m", "exponent": 2}, "correct"),
    ("一百二十米", {"type": "unit", "value": "120", "unit": "m", "exponent": 2}, "wrong"),
    ("一百二十平均", {"type": "unit", "value": "120", "unit": "m", "exponent": 2}, "wrong"),
    ("三十立方", {"type": "unit", "value": "30", "unit": "m", "exponent": 3}, "correct"),
    ("三十度", {"type": "unit", "value": "30", "unit": "℃"}, "correct"),
    ("三十度电", {"type": "unit", "value": "30", "unit": "kWh"}, "correct"),
    ("三十度电", {"type": "unit", "value": "30", "unit": "℃"}, "wrong"),
    ("十四除九", {"type": "formula", "op": "divide", "operands": ["9", "14"]}, "correct"),  # A除B is B÷A
    ("九除十四", {"type": "formula", "op": "divide", "operands": ["9", "14"]}, "wrong"),  # 14 ÷ 9
    ("九除以十四", {"type": "formula", "op": "divide", "operands": ["9", "14"]}, "correct"),
    ("九和十四相乘", {"type": "formula", "op": "multiply", "operands": ["9", "14"]}, "correct"),
    ("九和十四相加", {"type": "formula", "op": "multiply", "operands": ["9", "14"]}, "wrong"),
    ("时速一百二十公里", {"type": "unit", "value": "120", "unit": "km/h"}, "correct"),
    ("每小时一百二十公里", {"type": "unit", "value": "120", "unit": "km/h"}, "correct"),
    ("一百二十公里", {"type": "unit", "value": "120", "unit": "km/h"}, "wrong"),
    ("摄氏三十度", {"type": "unit", "value": "30", "unit": "℃"}, "correct"),
    ("华氏三十度", {"type": "unit", "value": "30", "unit": "℃"}, "wrong"),  # Fahrenheit
    ("幺幺零", {"type": "identifier", "digits": "110"}, "correct"),
    ("一百一十", {"type": "identifier", "digits": "110"}, "wrong"),  # an identifier read as a quantity
    ("幺三八零零", {"type": "identifier", "digits": "13800"}, "correct"),
    ("十三 八百", {"type": "identifier", "digits": "13800"}, "wrong"),  # the digits regrouped
]


@pytest.mark.parametrize(("transcript", "expect", "outcome"), NATIVE_SEMANTIC)
def test_colloquial_names_both_ways(transcript: str, expect: dict[str, Any], outcome: str) -> None:
    assert score(transcript, expect).outcome == outcome
