"""``readings``: did the transcript contain an accepted reading of a span, or a forbidden one?

For one transcript: a negative reading found → wrong; else a positive reading found → correct;
else unknown (the recognizer wrote something we cannot judge). Both sides are canonicalized
with :func:`~pytest_ttsbench.scorers.text.readings_canon` first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.text import readings_canon
from pytest_ttsbench.support.text import CATEGORY_PATTERN
from pytest_ttsbench.verdict import Verdict

_READINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}

TARGET_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "required": ["span", "positive"],
    "additionalProperties": False,
    "properties": {
        "span": {"type": "string", "minLength": 1},
        "positive": {**_READINGS, "minItems": 1},
        "negative": _READINGS,
        "category": {"type": "string", "pattern": CATEGORY_PATTERN},
        "group": {"type": "string"},
        "auto_evaluable": {"type": "boolean"},
        "target_id": {"type": "string"},
        # Where the span sits in the item's text, and why these readings are right (CN-NewsTTS);
        # kept so results show them. ``extra`` holds any other field a source target carries.
        "start": {"type": "integer", "minimum": 0},
        "end": {"type": "integer", "minimum": 0},
        "rationale": {"type": "string"},
        "extra": {"type": "object"},
    },
}


class ReadingsScorer(Scorer):
    name: ClassVar[str] = "readings"
    splits_targets: ClassVar[bool] = True
    expect_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["targets"],
        "additionalProperties": False,
        "properties": {"targets": {"type": "array", "minItems": 1, "items": TARGET_SCHEMA}},
    }

    def check(self, expect: Mapping[str, Any], language: str) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        spans = [t.get("span") for t in expect.get("targets", [])]
        for index, span in enumerate(spans):
            if spans.count(span) > 1 and spans.index(span) != index:
                problems.append((f"expect.targets[{index}].span", f"duplicate span {span!r} within the item"))
        for index, target in enumerate(expect.get("targets", [])):
            both = {readings_canon(r) for r in target.get("positive", [])} & {
                readings_canon(r) for r in target.get("negative", [])
            }
            if both:
                problems.append((f"expect.targets[{index}]", f"readings both positive and negative: {sorted(both)}"))
        return problems

    def targets(self, expect: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return list(expect["targets"])

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        text = f"{expect['span']} read as one of {list(expect['positive'])}"
        if expect.get("negative"):
            text += f", never {list(expect['negative'])}"
        return text

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        heard = readings_canon(transcript)
        implied = implied_negatives(expect["positive"])
        forbidden = [*expect.get("negative", []), *implied]
        negatives = tuple(dict.fromkeys(r for r in forbidden if readings_canon(r) and readings_canon(r) in heard))
        if negatives:
            note = ""
            if not set(negatives) & set(expect.get("negative", [])):
                note = "forbidden by the accepted readings: a range or score read otherwise, or a dropped 零"
            return Verdict("wrong", negative=negatives, heard=(heard,), note=note)
        edges = _written_neighbours(context.text, expect["span"])
        accepted = [*expect["positive"], *implied_positives(expect["positive"])]
        positives = tuple(r for r in accepted if readings_canon(r) and _found_whole(readings_canon(r), heard, edges))
        if positives:
            return Verdict("correct", matched=positives, heard=(heard,))
        inside = tuple(r for r in expect["positive"] if readings_canon(r) and readings_canon(r) in heard)
        if inside:
            return Verdict(
                "wrong",
                negative=inside,
                heard=(heard,),
                note="the accepted reading was heard only inside a longer number, which says another value",
            )
        return Verdict(
            "unknown",
            missing=tuple(expect["positive"]),
            heard=(heard,),
            note="neither an accepted nor a forbidden reading was heard",
        )


# Characters that continue a Chinese number: a reading that ends in a digit and is followed by one
# of these (三吉瓦 inside 十三吉瓦, 三十五 before 万) names a different value.
_NUMBER_CHARS = frozenset("零〇一二两三四五六七八九幺十百千万亿0123456789")
# Range words between two numbers, and what a reading puts there when it turns the range into a
# subtraction or a negative number.
_RANGE_WORDS = ("至", "到")
_SUBTRACTION_WORDS = ("减", "减去", "负", "杠")
# A score (6比4) read as a subtraction, a negative number, a dash or a range says something else.
_SCORE_WORD = "比"
_NOT_A_SCORE = (*_SUBTRACTION_WORDS, *_RANGE_WORDS)


def _written_neighbours(text: str, span: str) -> tuple[bool, bool]:
    """Whether the written text puts a number right before and right after the span.

    Then a number next to the reading is that neighbour (6-4、7-5 heard 六比四七比五), not a
    longer number. Without the item's text both are taken to be numbers: nothing is flagged.
    """
    canon_text, canon_span = readings_canon(text), readings_canon(span)
    at = canon_text.find(canon_span) if canon_text and canon_span else -1
    if at < 0:
        return True, True
    end = at + len(canon_span)
    before = at > 0 and canon_text[at - 1] in _NUMBER_CHARS
    after = end < len(canon_text) and canon_text[end] in _NUMBER_CHARS
    return before, after


def _found_whole(reading: str, heard: str, written_neighbours: tuple[bool, bool]) -> bool:
    """Whether ``reading`` occurs in ``heard`` without running into a number the text does not have."""
    number_before, number_after = written_neighbours
    start = heard.find(reading)
    while start >= 0:
        end = start + len(reading)
        runs_in = not number_before and reading[0] in _NUMBER_CHARS and start > 0 and heard[start - 1] in _NUMBER_CHARS
        runs_on = not number_after and reading[-1] in _NUMBER_CHARS and end < len(heard) and heard[end] in _NUMBER_CHARS
        if not (runs_in or runs_on):
            return True
        start = heard.find(reading, start + 1)
    return False


_DIGIT_VALUES = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def implied_positives(positives: list[str]) -> list[str]:
    """Readings the accepted ones imply: a range of two neighbouring digits said the everyday way,
    the two digits together (四到五天 → 四五天, 二到三 → 两三 and 二三), which no listener takes for
    one number (forty-five is 四十五); and a lone 2 said 两 or 二 before 比 or a unit (二比零 → 两比零)."""
    implied: list[str] = []
    for reading in positives:
        for index, ch in enumerate(reading):
            if ch not in _RANGE_WORDS or not 0 < index < len(reading) - 1:
                continue
            low, high = reading[index - 1], reading[index + 1]
            outside_before = reading[index - 2] if index >= 2 else ""
            outside_after = reading[index + 2] if index + 2 < len(reading) else ""
            if outside_before in _NUMBER_CHARS or outside_after in _NUMBER_CHARS:
                continue
            if low in _DIGIT_VALUES and high in _DIGIT_VALUES and _DIGIT_VALUES[high] == _DIGIT_VALUES[low] + 1:
                head, tail = reading[: index - 1], reading[index + 2 :]
                implied.append(head + low + high + tail)
                if low == "二":
                    implied.append(head + "两" + high + tail)
    implied += [variant for reading in positives for variant in two_said_both_ways(reading)]
    accepted = {readings_canon(r) for r in positives}
    return [r for r in dict.fromkeys(implied) if readings_canon(r) not in accepted]


# Where a lone 2 is said 两 as readily as 二: before a score's 比 and before 百千万亿 (两比零, 两千).
_TWO_BEFORE = frozenset("比百千万亿")


def two_said_both_ways(reading: str) -> list[str]:
    """The reading with a lone 二 said 两, or a 两 said 二, where both say 2: 二比零 / 两比零, 二千 / 两千.

    Only a 2 that is a number by itself (no digit before it: 十二比零 stays), before 比 or a unit.
    """
    variants: list[str] = []
    for index, ch in enumerate(reading):
        if ch not in "二两" or reading[index + 1 : index + 2] not in _TWO_BEFORE or not reading[index + 1 : index + 2]:
            continue
        if index and reading[index - 1] in _NUMBER_CHARS:
            continue
        other = "两" if ch == "二" else "二"
        variants.append(reading[:index] + other + reading[index + 1 :])
    return variants


def _ends_number(reading: str, index: int) -> bool:
    """Whether no number character stands at ``index`` (the end of the reading counts)."""
    return index >= len(reading) or reading[index] not in _NUMBER_CHARS


def implied_negatives(positives: list[str]) -> list[str]:
    """Readings forbidden by the accepted ones, whether the item lists them or not.

    * A range read as a subtraction: an accepted 二零二八至二零三零 forbids 二零二八减二零三零 (and 减去,
      负, 杠 in place of the range word).
    * A score read as anything but a score: an accepted 六比四 forbids 六减四, 六负四, 六杠四, 六到四 …
    * A dropped 零: an accepted 一千零五 forbids 一千五, which is 1500. Only where the 零 stands
      between a unit and a last lone digit, so leaving it out changes the value.
    """
    implied: list[str] = []
    for reading in positives:
        for index, ch in enumerate(reading):
            before = reading[index - 1] if index else ""
            after = reading[index + 1] if index + 1 < len(reading) else ""
            if before not in _NUMBER_CHARS or after not in _NUMBER_CHARS:
                continue
            if ch in _RANGE_WORDS:
                implied += [reading[:index] + word + reading[index + 1 :] for word in _SUBTRACTION_WORDS]
            elif ch == _SCORE_WORD:
                implied += [reading[:index] + word + reading[index + 1 :] for word in _NOT_A_SCORE]
            elif ch == "零" and before in "百千万亿" and after in _DIGIT_VALUES and _ends_number(reading, index + 2):
                # 一千零五 → 一千五: without the 零 the last digit is a short form of the next
                # lower unit (1500). Where more follows (两千零二十六 → 两千二十六) the sloppy
                # reading still says the same value, so nothing is implied.
                implied.append(reading[:index] + reading[index + 1 :])
    accepted = {readings_canon(r) for r in positives}
    return [r for r in dict.fromkeys(implied) if readings_canon(r) not in accepted]
