"""Chinese number reading: every rule, each with a case proving it does not over-fire."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer, parser_for
from pytest_ttsbench.scorers.numbers_zh import parse_numbers, parse_spans

BENCH = Path(__file__).resolve().parents[3] / "shared" / "data" / "cn-news-tts-bench-v0.1"


def spans(text: str) -> list[tuple[str, str]]:
    """(value, the text it was read from) for every number in ``text``."""
    return [(n.value, text[n.start : n.end]) for n in parse_spans(text)]


# --- quantities -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("十", [("10", "十")]),
        ("十五个", [("15", "十五")]),
        ("一十五", [("15", "一十五")]),
        ("二十", [("20", "二十")]),
        ("一百零五", [("105", "一百零五")]),
        ("一千零五十", [("1050", "一千零五十")]),
        ("两千零二十六年", [("2026", "两千零二十六")]),
        ("三亿五千万", [("350000000", "三亿五千万")]),
        ("一万亿", [("1000000000000", "一万亿")]),
        ("一万五千亿", [("1500000000000", "一万五千亿")]),
        ("五十万零三百", [("500300", "五十万零三百")]),
        # 十 after 零 needs no 一.
        ("八十八万零十二", [("880012", "八十八万零十二")]),
        # … nor does a 十 between 亿 and the lower 万 (ICU says 十亿十万 for 1000100000): one number,
        # not 十亿 and 十万 apart (which would let a transcript of it match 1000000000).
        ("十亿十万", [("1000100000", "十亿十万")]),
        ("两亿十万零五", [("200100005", "两亿十万零五")]),
        ("三万十个人", [("30000", "三万"), ("10", "十")]),
        # 两 is 2 as a coefficient and alone.
        ("两百人", [("200", "两百")]),
        ("两个", [("2", "两")]),
        # 百/千 open a number only before 万/亿.
        ("百万级", [("1000000", "百万")]),
        ("千万元", [("10000000", "千万")]),
    ],
)
def test_quantities(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Spoken short forms keep the next lower unit …
        ("一万五", [("15000", "一万五")]),
        ("三千五", [("3500", "三千五")]),
        ("两百五", [("250", "两百五")]),
        ("一万两千六", [("12600", "一万两千六")]),
        ("2万3", [("23000", "2万3")]),
        # … but not below 百, nor after 零, nor for more than one digit.
        ("十五", [("15", "十五")]),
        ("一百零五", [("105", "一百零五")]),
        ("一万零五", [("10005", "一万零五")]),
        ("2万30", [("20030", "2万30")]),
    ],
)
def test_spoken_short_forms(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Units out of order start a new number instead of being swallowed.
        ("一百一百", [("100", "一百"), ("100", "一百")]),
        ("十一十一", [("10", "十"), ("11", "一十一")]),
        ("三十五六", [("35", "三十五"), ("6", "六")]),
        # A trailing 零 is not part of the number before it.
        ("一百零", [("100", "一百"), ("0", "零")]),
        # 千 before 米/克/瓦… belongs to the unit when the number cannot take it (十八千克 is 18 kg) …
        ("十八千克", [("18", "十八")]),
        ("三十千米", [("30", "三十")]),
        # … and is read greedily when it can (三千米 may be 3000 m; the unit scorer tries both).
        ("三千米", [("3000", "三千")]),
    ],
)
def test_quantity_boundaries(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


# --- digit strings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("零零幺", [("001", "零零幺")]),
        ("二〇二六年", [("2026", "二〇二六")]),
        ("二○二六年", [("2026", "二○二六")]),  # white circle, as some texts write 〇
        ("一九九八年", [("1998", "一九九八")]),
        ("幺幺零", [("110", "幺幺零")]),
        ("二一二", [("212", "二一二")]),
        # Arabic digits keep their leading zeros; a lone digit word is a digit.
        ("编号007", [("007", "007")]),
        ("第三", [("3", "三")]),
        # A digit string ends at a unit instead of taking it.
        ("二三十", [("23", "二三"), ("10", "十")]),
    ],
)
def test_digit_strings(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected
    assert all(n.kind == "digits" for n in parse_spans(text)[:1])


def test_yao_is_one_only_as_a_digit() -> None:
    assert spans("幺三八") == [("138", "幺三八")]
    assert spans("别出幺蛾子") == []


# --- decimals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("零点五", [("0.5", "零点五")]),
        # Every digit after 点, trailing zeros too.
        ("零点五零", [("0.50", "零点五零")]),
        ("七点一零三六", [("7.1036", "七点一零三六")]),
        ("三千一百六十八点八四六", [("3168.846", "三千一百六十八点八四六")]),
        ("3点14", [("3.14", "3点14")]),
        # 万/亿 after the digits scale the whole; the mantissa is kept for evidence.
        ("三点五万", [("35000", "三点五万")]),
        ("十二点零五六三亿元", [("1205630000", "十二点零五六三亿")]),
        # 千 starting a unit ends the decimal (1.5 kg, 7.5 kW).
        ("一点五千克", [("1.5", "一点五")]),
        ("七点五千瓦", [("7.5", "七点五")]),
    ],
)
def test_decimals(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


def test_decimal_keeps_its_mantissa_before_a_multiplier() -> None:
    (number,) = parse_spans("营收三千一百六十八点八四六万元")
    assert (number.kind, number.mantissa, number.suffix, number.value) == ("decimal", "3168.846", "万", "31688460")
    assert number.describe() == "3168.846万"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 点 is a decimal point only between a number and a digit.
        ("工作重点", []),
        ("会议地点", []),
        ("上证指数站上三千点", [("3000", "三千")]),
        ("下午三点开会", [("3", "三")]),
        ("十点", [("10", "十")]),
        # Clock times are not decimals.
        ("两点五十分", [("2", "两"), ("50", "五十")]),
        ("三点零五分", [("3", "三"), ("05", "零五")]),
        ("六点三十", [("6", "六"), ("30", "三十")]),
        # Digits after 点 that run into 十/百 are no decimal (a garbled 3.846).
        ("三点八百四十六", [("3", "三"), ("846", "八百四十六")]),
        # 一点儿 / 一点点 are "a little".
        ("慢一点儿", []),
        ("一点点", []),
        ("一点一点地", [("1.1", "一点一")]),
    ],
)
def test_point_does_not_over_fire(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


# --- signs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("负三", [("-3", "负三")]),
        ("负十八点五", [("-18.5", "负十八点五")]),
        ("零下五度", [("-5", "零下五")]),
        ("最低为-18.5℃", [("-18.5", "-18.5")]),
        ("温度 -5 度", [("-5", "-5")]),
        # A hyphen that joins two things is no sign.
        ("96-91", [("96", "96"), ("91", "91")]),
        ("苏-27", [("27", "27")]),
        ("2028-2030年", [("2028", "2028"), ("2030", "2030")]),
        # 正负 is ±, not minus.
        ("正负零点零零五", [("0.005", "零点零零五")]),
        # 负 that is not before a number is an ordinary word.
        ("负责人", []),
        ("三胜一负", [("3", "三"), ("1", "一")]),
    ],
)
def test_signs(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


# --- percentages and fractions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value", "described"),
    [
        ("百分之十二点五", "percent", "12.5", "12.5%"),
        ("百分之百", "percent", "100", "100%"),
        ("百分之零点零七五", "percent", "0.075", "0.075%"),
        ("千分之三", "percent", "3", "3‰"),
        ("百分之负二", "percent", "-2", "-2%"),
        ("三分之二", "fraction", "2/3", "2/3"),
        ("二分之三", "fraction", "3/2", "3/2"),
        # The numerator may be a word that is lexical elsewhere (之一).
        ("十分之一", "fraction", "1/10", "1/10"),
        ("三百分之一", "fraction", "1/300", "1/300"),
        ("15分之4500", "fraction", "4500/15", "4500/15"),
    ],
)
def test_percent_and_fractions(text: str, kind: str, value: str, described: str) -> None:
    (number,) = parse_spans(text)
    assert (number.kind, number.value, number.describe()) == (kind, value, described)
    assert (number.start, number.end) == (0, len(text))


def test_fraction_gives_both_numbers_to_the_numbers_matcher() -> None:
    tokens = parse_numbers("约三分之二的订单")
    assert [(t.value, t.start, t.end) for t in tokens] == [("3", 1, 2), ("2", 4, 5)]


@pytest.mark.parametrize("text", ["分之", "十分之", "五分钟", "三分"])
def test_fen_zhi_needs_numbers_on_both_sides(text: str) -> None:
    assert all(n.kind != "fraction" for n in parse_spans(text))


# --- Arabic digits and mixed forms ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3千", [("3000", "3千")]),
        ("1.5万", [("15000", "1.5万")]),
        ("2万3千", [("23000", "2万3千")]),
        ("2万3000", [("23000", "2万3000")]),
        ("15万", [("150000", "15万")]),
        ("3168.846万元", [("31688460", "3168.846万")]),
        ("1.5千万", [("15000000", "1.5千万")]),
        ("1,250每柜", [("1250", "1,250")]),
        ("35,000.50", [("35000.50", "35,000.50")]),
        ("１２３", [("123", "１２３")]),  # full-width digits
        ("12.5%", [("12.5", "12.5")]),
        # Letters around digits: the digits alone.
        ("F35战机", [("35", "35")]),
        # A comma not followed by three digits is a list separator.
        ("3,4号", [("3", "3"), ("4", "4")]),
    ],
)
def test_arabic_and_mixed(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


# --- words that hold number characters --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "我们一起去",
        "统一口径",
        "万一出错",
        "这件事十分重要",
        "千万不要忘记",
        "千万别迟到",
        "老百姓",
        "两岸关系",
        "看一看",
        "想一想",
        "零售额",
        "零部件",
        "新一轮增长",
        "转交二线处理",
        "唯一的办法",
        "最大的港口之一",
        "进一步推进",
        "乱七八糟",
        "四面八方",
        "一般来说",
    ],
)
def test_lexicalized_words_are_not_numbers(text: str) -> None:
    assert spans(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The same characters where they are numbers.
        ("十分钟后出发", [("10", "十")]),
        ("投资千万元", [("10000000", "千万")]),
        ("一万一千人", [("11000", "一万一千")]),  # 万一 inside a number
        ("第一名", [("1", "一")]),
        ("十一起事故", [("11", "十一")]),  # 一起 inside a number
        ("三十分", [("30", "三十")]),
        ("二线城市有两个", [("2", "两")]),
        ("一千万不要", [("10000000", "一千万")]),
    ],
)
def test_lexicon_does_not_over_fire(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


# --- offsets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "本季度营收为三千一百六十八点八四六万元，同比增长百分之十二。",
        "运单号零零幺零零零零零零零六六已签收",
        "报价为HK$100，约合一百港元",
        "１２３和４５６",
        "零下五度到负三度",
        "2万3千和三分之二",
    ],
)
def test_offsets_point_into_the_callers_text(text: str) -> None:
    numbers = parse_spans(text)
    assert numbers
    for number in numbers:
        assert 0 <= number.start < number.end <= len(text)
        assert text[number.start] not in "，。 "
    assert all(a.end <= b.start for a, b in itertools.pairwise(numbers))


# --- the numbers scorer in Chinese ------------------------------------------------------------

NUMBERS = NumbersScorer()


def test_registered_for_chinese_tags() -> None:
    assert parser_for("zh") is parse_numbers
    assert parser_for("zh-CN") is parse_numbers
    assert parser_for("cmn") is parse_numbers


@pytest.mark.parametrize(
    ("transcript", "values", "outcome"),
    [
        ("工厂于二零二六年投产", ["2026"], "correct"),
        ("工厂于两千零二十六年投产", ["2026"], "correct"),
        ("工厂于二零二五年投产", ["2026"], "wrong"),
        ("六点三十分开会", ["6", "30"], "correct"),
        ("每股收益零点五零元", ["0.50"], "correct"),
        ("编号零零七", ["007"], "correct"),
        ("编号七", ["007"], "wrong"),
        # Digit groups heard back to back join into one digit string (shared matcher).
        ("电话幺三八 零零幺二", ["1380012"], "correct"),
        ("约三分之二", ["2", "3"], "correct"),
        ("增长百分之十二", ["12"], "correct"),
        ("零下五度", ["-5"], "correct"),
        ("大家一起统一行动", ["1"], "wrong"),
    ],
)
def test_numbers_scorer_reads_chinese(transcript: str, values: list[str], outcome: str) -> None:
    verdict = NUMBERS.score(transcript, {"values": values}, ScoreContext(language="zh"))
    assert verdict.outcome == outcome, verdict.explain()


# --- real recognizer output -------------------------------------------------------------------


def _bench_transcripts() -> list[str]:
    texts: list[str] = []
    for name in ("aliyun_tts", "aws_polly", "google_cloud_tts"):
        with (BENCH / f"{name}.asr.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                texts.extend(json.loads(line)["asr"].values())
    return texts


def test_parses_every_bench_transcript_with_sound_offsets() -> None:
    """Thousands of real Chinese ASR transcripts: no crash, every span starts on a number character."""
    if not BENCH.is_dir():
        pytest.skip(f"CN-NewsTTS Bench data not found at {BENCH}")
    starts = set("零〇○一幺二两三四五六七八九十百千负减-0123456789０１２３４５６７８９")
    texts = _bench_transcripts()
    assert len(texts) > 1000
    for text in texts:
        for number in parse_spans(text):
            assert 0 <= number.start < number.end <= len(text), text
            assert text[number.start] in starts, (text, number)


# --- readings a native listener accepts, and their near misses (issue #15) -------------------------

NATIVE_READINGS = [
    # colloquial short forms keep the next lower unit
    ("一万二", ["12000"], "correct"),
    ("一万二", ["10002"], "wrong"),
    ("两千", ["2000"], "correct"),
    ("两千五", ["2500"], "correct"),
    ("两千五", ["2005"], "wrong"),
    ("一千二", ["1200"], "correct"),
    ("一千二", ["1002"], "wrong"),
    # 两 is a digit before a unit, never the last digit of a short form (三千两 is 3000 liang)
    ("一万两千", ["12000"], "correct"),
    ("三千两银子", ["3200"], "wrong"),
    # 幺 is one in digit strings
    ("幺幺零", ["110"], "correct"),
    ("幺零幺", ["101"], "correct"),
    ("幺零幺", ["11"], "wrong"),
    # a dropped 零 changes the value
    ("一千零五", ["1005"], "correct"),
    ("一千五", ["1005"], "wrong"),
    ("一百零一", ["101"], "correct"),
    ("一百一", ["101"], "wrong"),
    ("一万零五", ["10005"], "correct"),
    ("一万五", ["10005"], "wrong"),
    # a range read as a subtraction
    ("二零二八至二零三零年", ["2028", "2030"], "correct"),
    ("二零二八到二零三零年", ["2028", "2030"], "correct"),
    ("二零二八减二零三零年", ["2028", "2030"], "wrong"),
    ("四到五天", ["4", "5"], "correct"),
    ("四减五天", ["4", "5"], "wrong"),
    ("十减去五", ["10", "5"], "wrong"),
]


@pytest.mark.parametrize(("transcript", "expected", "outcome"), NATIVE_READINGS)
def test_native_readings_both_ways(transcript: str, expected: list[str], outcome: str) -> None:
    result = NumbersScorer().score(transcript, {"values": expected}, ScoreContext("zh"))
    assert result.outcome == outcome, result.heard


def test_subtraction_is_shown_as_a_negative_operand() -> None:
    assert [t.value for t in parse_numbers("四减五天")] == ["4", "-5"]
    assert [t.value for t in parse_numbers("减少五个")] == ["5"]  # 减少 after no number: no sign
