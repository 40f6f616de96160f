"""The ``readings`` scorer: accepted and forbidden readings, and the readings a value change implies."""

from __future__ import annotations

import pytest

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.readings import ReadingsScorer, implied_negatives, implied_positives

SCORER = ReadingsScorer()


def score(transcript: str, expect: dict, text: str) -> str:
    return SCORER.score(transcript, expect, ScoreContext("zh", text, expect["span"])).outcome


RANGE = {"span": "2028-2030年", "positive": ["二零二八至二零三零年", "二零二八到二零三零年"]}
AMOUNT = {"span": "1005元", "positive": ["一千零五元"]}
MODEL = {"span": "Q6", "positive": ["Q六", "Q6"], "negative": ["Q杠六"]}
POWER = {"span": "3GW", "positive": ["三吉瓦"], "negative": ["三G W"]}
SCORE = {"span": "126-123", "positive": ["一百二十六比一百二十三"], "negative": ["一百二十六到一百二十三"]}
FEW = {"span": "4-5", "positive": ["四到五", "四至五"], "negative": ["四减五"]}
TWO_THREE = {"span": "2-3", "positive": ["二到三"]}


@pytest.mark.parametrize(
    ("transcript", "expect", "text", "outcome"),
    [
        # a range read as a range, or as a subtraction
        ("预计二零二八至二零三零年需求增长", RANGE, "预计2028-2030年需求增长", "correct"),
        ("预计二零二八到二零三零年需求增长", RANGE, "预计2028-2030年需求增长", "correct"),
        ("预计二零二八减二零三零年需求增长", RANGE, "预计2028-2030年需求增长", "wrong"),
        ("预计二零二八减去二零三零年需求增长", RANGE, "预计2028-2030年需求增长", "wrong"),
        ("预计二零二八杠二零三零年需求增长", RANGE, "预计2028-2030年需求增长", "wrong"),
        # a dropped 零: 一千五 is 1500
        ("售价一千零五元", AMOUNT, "售价1005元", "correct"),
        ("售价一千五元", AMOUNT, "售价1005元", "wrong"),
        # an accepted reading inside a longer number says another value
        ("奥迪Q六在武汉", MODEL, "奥迪Q6在武汉", "correct"),
        ("奥迪q六六在武汉", MODEL, "奥迪Q6在武汉", "wrong"),
        ("装机规模达到三吉瓦", POWER, "装机规模达到3GW", "correct"),
        ("装机规模达到十三吉瓦", POWER, "装机规模达到3GW", "wrong"),
        ("装机规模达到三十吉瓦", POWER, "装机规模达到3GW", "unknown"),  # neither reading is there at all
        # a score read as a score, or as a range or a subtraction, listed or not
        ("以一百二十六比一百二十三险胜", SCORE, "以126-123险胜", "correct"),
        ("以一百二十六至一百二十三险胜", SCORE, "以126-123险胜", "wrong"),
        ("以一百二十六减一百二十三险胜", SCORE, "以126-123险胜", "wrong"),
        # two neighbouring digits said together are the everyday range
        ("预计四五天内完成", FEW, "预计4-5天内完成", "correct"),
        ("预计两三天内完成", TWO_THREE, "预计2-3天内完成", "correct"),
        ("预计四十五天内完成", FEW, "预计4-5天内完成", "unknown"),  # forty-five: not the range
        ("预计三四天内完成", FEW, "预计4-5天内完成", "unknown"),
        # the listed forbidden reading still wins
        ("奥迪Q杠六", MODEL, "奥迪Q6在武汉", "wrong"),
    ],
)
def test_readings_both_ways(transcript: str, expect: dict, text: str, outcome: str) -> None:
    assert score(transcript, expect, text) == outcome


def test_a_number_the_text_puts_next_to_the_span_is_no_longer_number() -> None:
    first = {"span": "6-4", "positive": ["六比四"]}
    second = {"span": "7-5", "positive": ["七比五"]}
    text = "他以6-4、7-5连下两盘"
    assert score("他以六比四七比五连下两盘", first, text) == "correct"
    assert score("他以六比四七比五连下两盘", second, text) == "correct"
    assert score("他以六比四四七比五连下两盘", first, text) == "correct"  # a number follows in the text
    assert score("他以六比四七比五五连下两盘", second, text) == "wrong"  # 七比五五: nothing follows in the text


def test_implied_positives_are_neighbouring_digits_only() -> None:
    assert implied_positives(["四到五天"]) == ["四五天"]
    assert implied_positives(["二到三"]) == ["二三", "两三"]
    assert implied_positives(["四到六天", "十四到十五", "二零二八至二零二九年"]) == []


def test_implied_negatives_are_the_subtraction_and_the_dropped_zero() -> None:
    assert implied_negatives(["二零二八至二零三零年"]) == [
        "二零二八减二零三零年",
        "二零二八减去二零三零年",
        "二零二八负二零三零年",
        "二零二八杠二零三零年",
    ]
    assert implied_negatives(["一千零五元"]) == ["一千五元"]
    assert implied_negatives(["六比四"]) == ["六减四", "六减去四", "六负四", "六杠四", "六至四", "六到四"]
    # a 零 in a digit string, or one whose removal leaves an accepted reading, implies nothing
    assert implied_negatives(["二零二六年"]) == []
    assert implied_negatives(["一千零五", "一千五"]) == []
    # without its 零, 两千零二十六 is a sloppy 2026, not another value: nothing is implied
    assert implied_negatives(["两千零二十六年", "一万零五百"]) == []
    assert implied_negatives(["一百零八"]) == ["一百八"]


def test_a_value_changed_inside_a_longer_number_says_so() -> None:
    result = SCORER.score("奥迪q六六", MODEL, ScoreContext("zh", "奥迪Q6在武汉", "Q6"))
    assert result.outcome == "wrong"
    assert "inside a longer number" in result.note
