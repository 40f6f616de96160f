"""Chinese number reading: number words and digits in a transcript → values, with their positions.

What a Chinese ASR transcript may hold, and how each is read:

* Quantities in number words: digits 零〇一二两三四五六七八九 (幺 is 1), the units 十百千 and the
  section units 万亿 (``两千零二十六`` = 2026, ``三亿五千万`` = 350000000, ``一万亿`` = 10**12). The
  spoken short forms keep the next lower unit: ``一万五`` = 15000, ``三千五`` = 3500, ``两百五`` = 250.
* Digit strings read digit by digit, which keep their leading zeros: ``零零幺`` = ``001``,
  ``二〇二六`` = ``2026``. Two or more digit words in a row with no unit are always a digit string.
* Decimals with 点: every digit after it is kept, trailing zeros too (``零点五零`` = ``0.50``), and a
  section unit after the digits scales the whole (``三点五万`` = 35000).
* Signs: 负 and 零下 before a number; ``-`` only where it cannot join two things (``96-91``,
  ``苏-27`` are not negative). 正负 (±) is not a sign.
* 百分之 / 千分之 / 万分之 X: a percentage of X. A分之B: the fraction B/A.
* Arabic digits, also mixed with number words: ``3千`` = 3000, ``1.5万`` = 15000, ``2万3千`` = 23000;
  ``1,250`` is grouped thousands. Full-width digits are read like ASCII ones.

Number characters that are part of ordinary words must not become numbers: 一起, 统一, 万一, 十分
(very), 千万 (by all means), 重点. Two mechanisms handle that, without a word segmenter:

* Structure: 百千万亿 never start a number on their own (百姓, 万一, 亿万), except 百/千 directly
  before 万/亿 (``百万``, ``千万元``); 点 is a decimal point only between a number and a digit
  (重点, 地点, ``三千点`` stock-index points).
* A lexicon of words in which a number character is not a count a writer would ever put in
  Arabic digits (nobody writes 1起 for 一起 or 2岸 for 两岸). A number may not start on a
  character covered by such a word. Words whose reading depends on what follows carry a
  look-ahead: 十分 is "very" except before 钟/之 (十分钟 is ten minutes), 千万 is "by all means"
  only before 不/别/要/记/注意… (千万元 is ten million yuan). Reduplicated verbs (看一看, 想一想)
  are caught by one pattern instead of a list.

A number is only ever blocked at its first character: once a number has started it is read as
far as the grammar goes, so 一万一千 is 11000 even though 万一 is in the lexicon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from pytest_ttsbench.scorers.number_tokens import RATIO_UNITS, Material, NumberToken
from pytest_ttsbench.scorers.zh_fold import fold_chinese

NumberKind = Literal["digits", "integer", "decimal", "percent", "fraction"]

# Characters rewritten one for one before parsing, so every offset stays an offset into the
# caller's text: full-width digits and signs, and the traditional forms of the characters we read.
_ONE_TO_ONE = str.maketrans(
    {
        **{chr(0xFF10 + i): str(i) for i in range(10)},
        "．": ".",
        "－": "-",
        "−": "-",
        "％": "%",
        "／": "/",
        "＊": "*",
        "兩": "两",
        "萬": "万",
        "億": "亿",
        "點": "点",
        "負": "负",
        "○": "〇",
    }
)

# Financial forms (壹贰叁…) are read only in a run of two or more (伍拾壹点肆, 玖点玖): several are
# ordinary words alone (拾 in 收拾, 伍 in 队伍, 陆 in 大陆). See :func:`normalize`.
DIGIT_WORDS: dict[str, int] = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "幺": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
SMALL_UNITS: dict[str, int] = {"十": 10, "百": 100, "千": 1000}
BIG_UNITS: dict[str, int] = {"万": 4, "亿": 8}  # powers of ten
# Digits that may follow 点: 两 is never a decimal digit.
_FRACTION_DIGITS = {ch: d for ch, d in DIGIT_WORDS.items() if ch != "两"}
# After 千, these start a unit (千米, 千克, 千瓦 …), so 千 belongs to the unit, not to the number.
_KILO_UNIT_STARTS = set("米克瓦帕赫焦卡伏")
# Characters before "-" that still let it be a minus sign (为-5, 到-3); any other letter, digit
# or ideograph before it makes it a joiner (96-91, 苏-27, 2028-2030).
_SIGN_AFTER = set("为是到至达约低于")
_PERCENT_PREFIXES = {"百分之": "%", "千分之": "‰", "万分之": "‱"}

_ARABIC = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")
_ARABIC_INT = re.compile(r"[0-9]+")

# Words in which a number character is not a count (see the module docstring).
_LEXICON_GROUPS: dict[str, str] = {
    "一": "一起 一样 一直 一定 一般 一切 一些 一旦 一致 一同 一共 一向 一再 一律 一概 一贯 一味 一举 "
    "一番 一阵 一下 一会 一边 一方面 一体 一系列 一流 一线 一带一路 一手 一口气 一模一样 一心 "
    "一路 一时 一齐 一并 一连 一经 一度 一刀切 一揽子 一站式 一把手 一键 统一 唯一 同一 之一 "
    "万一 单一 逐一 划一 专一 不一 进一步 新一轮 新一代 下一步 一一对应 一点儿 一点点 差一点 有一点 第一时间",
    "二两": "二手 二线 不二 独一无二 二话 两岸 两会 两者 两边 两旁 两侧 两极 两难 两全 两栖 两用",
    "三到十": "再三 三明治 三星 三亚 四处 四周 四面八方 五花八门 五金 乱七八糟 七嘴八舌 八卦 九州 "
    "十足 十全十美 十字路口",
    "零幺": "零售 零件 零部件 零配件 零食 零钱 零星 零散 零碎 零工 零花 幺蛾子",
}
_LEXICON_WORDS = [word for group in _LEXICON_GROUPS.values() for word in group.split()]
_LEXICON_PATTERNS = (
    r"(?<![点差过])十分(?![钟之])",  # 十分重要 (very), but 十分钟, 十分之一, 一点十分 (1:10), 差十分, 过十分
    r"千万(?=不|别|要|记|注意|小心|当心|勿|莫|务必|可别|保重|留意)",  # 千万不要, but 千万元
)
# 看一看, 想一想, 试一试: 一 between a character and its repeat (not a digit string like 二一二).
_REDUPLICATION = re.compile(r"(?<=([^\s0-9" + "".join(DIGIT_WORDS) + "十百千万亿点]))一(?=\\1)")
_LEXICON = re.compile(
    "|".join([*_LEXICON_PATTERNS, *(re.escape(w) for w in sorted(_LEXICON_WORDS, key=len, reverse=True))])
)


@dataclass(frozen=True)
class ZhNumber:
    """One number read from a transcript.

    ``value`` is the full value as a plain decimal string (a digit string keeps its leading
    zeros; a decimal keeps its trailing zeros unless a unit scaled it). ``mantissa`` is the number
    as read before a trailing multiplier (``3168.846`` in ``3168.846万``) and ``suffix`` that
    multiplier as heard. ``parts`` holds (denominator, numerator) of a fraction and the numerator
    of a percentage; ``suffix`` of a percentage is ``%``, ``‰`` or ``‱``.
    """

    value: str
    start: int
    end: int
    kind: NumberKind
    mantissa: str = ""
    suffix: str = ""
    parts: tuple[ZhNumber, ...] = ()

    def describe(self) -> str:
        """How the number is shown as evidence: ``3168.846万``, ``001``, ``12%``, ``3/2``."""
        if self.kind == "fraction":
            return f"{self.parts[1].describe()}/{self.parts[0].describe()}"
        if self.kind == "percent":
            return f"{self.parts[0].describe()}{self.suffix}"
        return f"{self.mantissa}{self.suffix}" if self.suffix else self.value


def normalize(text: str) -> str:
    """The text with full-width, traditional and financial forms replaced one for one (same length).

    :func:`~pytest_ttsbench.scorers.zh_fold.fold_chinese` folds width (NFKC) and script (OpenCC);
    the table after it maps the signs NFKC leaves (``−``) and ○ to the forms the grammar reads,
    and a run of financial digits (伍拾壹) becomes the everyday ones (五十一).
    """
    folded = fold_chinese(text).translate(_ONE_TO_ONE)
    return _FINANCIAL_RUN.sub(lambda run: run.group().translate(_FINANCIAL), folded)


# The financial forms of the digits and units, written on cheques and read aloud from them.
_FINANCIAL = str.maketrans("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟", "一二二三三四五六六七八九十百千")
# A run of two or more of them, with a 零 or a 点 among them: 伍拾壹点肆, 壹佰零伍, 玖点玖.
_FINANCIAL_RUN = re.compile(r"[壹贰貳叁參肆伍陆陸柒捌玖拾佰仟](?:[零点]?[壹贰貳叁參肆伍陆陸柒捌玖拾佰仟])+")


def _blocked_positions(text: str) -> set[int]:
    blocked: set[int] = set()
    for match in _LEXICON.finditer(text):
        blocked.update(range(match.start(), match.end()))
    for match in _REDUPLICATION.finditer(text):
        blocked.add(match.start())
    return blocked


def _plain(value: Decimal) -> str:
    """A Decimal as a plain string without exponent or trailing fractional zeros."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _negate(value: str) -> str:
    return value[1:] if value.startswith("-") else "-" + value


def _with_sign(number: ZhNumber, negative: bool, start: int) -> ZhNumber:
    if not negative:
        return number
    return ZhNumber(
        _negate(number.value), start, number.end, number.kind, _negate(number.mantissa), number.suffix, number.parts
    )


def _fraction_digits(text: str, pos: int) -> tuple[str, int]:
    """The digits after a decimal point (number words or ASCII digits), and where they end."""
    digits = []
    while pos < len(text):
        ch = text[pos]
        if ch in _FRACTION_DIGITS:
            digits.append(str(_FRACTION_DIGITS[ch]))
        elif ch.isascii() and ch.isdigit():
            digits.append(ch)
        else:
            break
        pos += 1
    return "".join(digits), pos


def _big_suffix(text: str, pos: int, small_too: bool) -> tuple[str, int, int]:
    """A multiplier after a decimal: 万, 亿, 万亿 (and 十百千 after Arabic digits). (suffix, power, end)."""
    end, power = pos, 0
    while end < len(text):
        ch = text[end]
        if ch in BIG_UNITS:
            power += BIG_UNITS[ch]
        elif (
            small_too
            and ch in SMALL_UNITS
            and not (ch == "千" and end + 1 < len(text) and text[end + 1] in _KILO_UNIT_STARTS)
        ):
            power += len(str(SMALL_UNITS[ch])) - 1
        else:
            break
        end += 1
    return text[pos:end], power, end


def _decimal(integer: str, fraction: str, start: int, pos: int, text: str, small_too: bool) -> ZhNumber:
    mantissa = f"{integer}.{fraction}"
    suffix, power, end = _big_suffix(text, pos, small_too)
    if suffix:
        return ZhNumber(_plain(Decimal(mantissa).scaleb(power)), start, end, "decimal", mantissa, suffix)
    return ZhNumber(mantissa, start, pos, "decimal", mantissa)


def _point_fraction(text: str, pos: int) -> tuple[str, int] | None:
    """The fraction after a 点 at ``pos`` if that 点 is a decimal point, else None.

    It is not one before 十/百 (两点五十分 is a clock time, 三点八百四十六 is no decimal), before a
    千 that does not start a unit (一点五千克 is 1.5 kg), or in a clock time 三点零五分.
    """
    if pos >= len(text) or text[pos] != "点":
        return None
    fraction, end = _fraction_digits(text, pos + 1)
    if not fraction:
        return None
    nxt = text[end] if end < len(text) else ""
    if nxt in ("十", "百") or (nxt == "千" and not (end + 1 < len(text) and text[end + 1] in _KILO_UNIT_STARTS)):
        return None
    if len(fraction) == 2 and fraction[0] == "0" and nxt == "分" and text[end : end + 2] != "分之":
        return None
    if nxt == "刻" and fraction in ("1", "2", "3"):
        return None  # 一点一刻 is a quarter past one, not 1.1
    return fraction, end


def _quantity(text: str, start: int) -> ZhNumber | None:
    """A number in words with units (or Arabic coefficients of units), read as far as it is valid."""
    total = 0  # sections closed by 万/亿
    section = 0  # the part below the last section unit
    pending: int | None = None  # a digit waiting for its unit
    pending_start = start
    last_small: int | None = None
    last_big: int | None = None
    after_zero = False
    pos = start
    end = start  # end of what has been consumed validly
    while pos < len(text):
        ch = text[pos]
        arabic = _ARABIC_INT.match(text, pos) if ch.isascii() and ch.isdigit() else None
        if ch in DIGIT_WORDS or arabic:
            if pending is not None:
                break
            if ch in ("零", "〇"):
                if section == 0 and total == 0:
                    break
                after_zero = True
                pos += 1
                continue
            pending_start = pos
            if arabic:
                pending, pos = int(arabic.group()), arabic.end()
            else:
                pending, pos = DIGIT_WORDS[ch], pos + 1
            end = pos
            continue
        if ch in SMALL_UNITS:
            unit = SMALL_UNITS[ch]
            if last_small is not None and unit >= last_small:
                kilo = ch == "千" and pos + 1 < len(text) and text[pos + 1] in _KILO_UNIT_STARTS
                if pending is not None and not kilo:  # 一百一百: the second 一 opens the next number
                    pending, end = None, pending_start
                break  # 十八千克: 18, and 千克 is the unit
            if pending is None:
                # 十二, and 八十八万零十二 (十 after 零 needs no 一)
                bare_ten = (
                    unit == 10
                    and (last_small is None or last_small == 100)
                    and (section == total == 0 or after_zero or last_small == 100)
                )  # 十二; 八十八万零十二; 一千一百十 (the 一 of 一十 left out after 百)
                # 十亿十万 is 1000100000: a bare 十 after 亿, before the lower 万, goes on with the number
                ten_of_lower = (
                    unit == 10
                    and last_small is None
                    and section == 0
                    and last_big is not None
                    and pos + 1 < len(text)
                    and BIG_UNITS.get(text[pos + 1], last_big) < last_big
                )
                bare_lead = (
                    unit in (100, 1000)
                    and section == 0
                    and total == 0
                    and pos + 1 < len(text)
                    and text[pos + 1] in BIG_UNITS
                )
                if not (bare_ten or ten_of_lower or bare_lead or (pos == start and unit in (100, 1000))):
                    break
                coefficient = 1
            elif pending >= 10:
                break
            else:
                coefficient = pending
            section += coefficient * unit
            last_small, pending, after_zero = unit, None, False
            pos += 1
            end = pos
            continue
        if ch in BIG_UNITS:
            power = BIG_UNITS[ch]
            if last_big == power and (section or pending):
                # 一百万零十万: a section unit said twice is no number; it ends before the second
                pending, end = None, end if pending is None else pending_start
                break
            if pending is not None:
                section += pending
            elif section == 0 and not (last_big is not None and end == pos):
                break
            if last_big is None or power < last_big:
                total += section * 10**power
            else:
                total = (total + section) * 10**power
            section, pending, last_small, last_big, after_zero = 0, None, None, power, False
            pos += 1
            end = pos
            continue
        if ch == "点" and pos == end and (pending is None or text[pending_start] != "两"):
            point = _point_fraction(text, pos)
            if point is not None:
                # The integer part follows the same zero and short-form rules as a whole number:
                # 一千五点三 is 1500.3 and 一千零五点三 1005.3, 一万零五点二 10005.2.
                integer = total + _close_section(section, pending, after_zero, last_small, last_big)
                return _decimal(str(integer), point[0], start, point[1], text, small_too=False)
        break
    if pending is not None and text[pending_start] == "两" and (last_small or last_big):
        # 两 is said before a unit (两千, 两万) but never as the last digit of a short form: 一万二,
        # not 一万两. A 两 left over is the weight unit (三千两 = 3000 liang), not 3200.
        pending, end = None, pending_start
    section = _close_section(section, pending, after_zero, last_small, last_big)
    if end == start or (total == 0 and section == 0 and last_small is None and last_big is None):
        return None
    value = str(total + section)
    return ZhNumber(value, start, end, "integer", value)


def _close_section(
    section: int, pending: int | None, after_zero: bool, last_small: int | None, last_big: int | None
) -> int:
    """The section below the last 万/亿 with its last digit added, by the spoken short form.

    A lone digit right after 百/千/万/亿 counts in the next lower unit (一百五 = 150, 一万五 =
    15000) unless a 零 stood before it (一千零五 = 1005): the 零 says a place was skipped.
    """
    if pending is None:
        return section
    short = pending < 10 and not after_zero
    if short and last_small is not None and last_small >= 100:
        return section + pending * last_small // 10  # 一百五 = 150
    if short and last_small is None and last_big is not None:
        return section + pending * 10**last_big // 10  # 一万五 = 15000
    return section + pending


def _arabic(text: str, start: int) -> ZhNumber | None:
    match = _ARABIC.match(text, start)
    if match is None:
        return None
    written = match.group()
    nxt = text[match.end()] if match.end() < len(text) else ""
    if "," in written or "." in written:
        integer, _, fraction = written.replace(",", "").partition(".")
        if fraction:
            return _decimal(integer, fraction, start, match.end(), text, small_too=True)
        suffix, power, end = _big_suffix(text, match.end(), small_too=True)
        value = _plain(Decimal(integer).scaleb(power))
        return ZhNumber(value, start, end, "integer", integer, suffix)
    if nxt in BIG_UNITS or (nxt in SMALL_UNITS and len(written) == 1):
        return _quantity(text, start)
    point = _point_fraction(text, match.end())
    if point is not None:
        return _decimal(written, point[0], start, point[1], text, small_too=False)
    return ZhNumber(written, start, match.end(), "digits", written)


def _body(text: str, start: int, bare_units: bool = False) -> ZhNumber | None:
    """An unsigned number starting exactly at ``start``, or None."""
    ch = text[start]
    if ch.isascii() and ch.isdigit():
        return _arabic(text, start)
    if ch in DIGIT_WORDS:
        run = start
        while run < len(text) and text[run] in DIGIT_WORDS:
            run += 1
        if run - start >= 2:
            digits = "".join(str(DIGIT_WORDS[c]) for c in text[start:run])
            return ZhNumber(digits, start, run, "digits", digits)
        nxt = text[run] if run < len(text) else ""
        if nxt in SMALL_UNITS or nxt in BIG_UNITS:
            found = _quantity(text, start)
            if found is not None:
                return found
        point = _point_fraction(text, run)
        if point is not None:
            return _decimal(str(DIGIT_WORDS[ch]), point[0], start, point[1], text, small_too=False)
        digit = str(DIGIT_WORDS[ch])
        return ZhNumber(digit, start, run, "digits", digit)
    nxt = text[start + 1] if start + 1 < len(text) else ""
    if ch in _OLD_TENS:
        return _old_tens(text, start)
    if ch == "十" or (ch in ("百", "千") and (bare_units or nxt in BIG_UNITS)):
        return _quantity(text, start)
    return None


# 廿 (20), 卅 (30) and 卌 (40), still said and written in dates and ages: 三月廿五日 is March 25.
_OLD_TENS = {"廿": 20, "卅": 30, "卌": 40}


def _old_tens(text: str, start: int) -> ZhNumber:
    """廿 alone (20), or with the digit after it (廿五 = 25); a unit after that digit ends the number."""
    value, end = _OLD_TENS[text[start]], start + 1
    digit = text[end] if end < len(text) and text[end] in DIGIT_WORDS and text[end] not in "零〇两" else ""
    if digit and not (end + 1 < len(text) and text[end + 1] in _NUMBER_UNITS):
        value, end = value + DIGIT_WORDS[digit], end + 1
    return ZhNumber(str(value), start, end, "integer", str(value))


_NUMBER_UNITS = set(SMALL_UNITS) | set(BIG_UNITS)


def _sign_length(text: str, pos: int) -> int:
    """Length of a minus sign at ``pos`` (负, 零下, or a '-' that cannot be a joiner), else 0.

    减/减去 right after a number is a subtraction, and the number after it is taken away: a range
    2028-2030 read 二零二八减二零三零 gives 2028 and -2030, never the range's 2030.
    """
    if pos > 0 and _ends_number(text[pos - 1]):
        for word in ("减去", "减"):
            if text.startswith(word, pos):
                return len(word)
    if text.startswith("负", pos):
        return 0 if pos > 0 and text[pos - 1] == "正" else 1
    if text.startswith("零下", pos):
        return 2
    if text[pos] == "-" and pos + 1 < len(text) and text[pos + 1].isascii() and text[pos + 1].isdigit():
        before = text[pos - 1] if pos > 0 else " "
        joins = before.isalnum() and before not in _SIGN_AFTER  # letters, digits and ideographs
        return 0 if joins else 1
    return 0


def _ends_number(ch: str) -> bool:
    return (ch.isascii() and ch.isdigit()) or ch in DIGIT_WORDS or ch in SMALL_UNITS or ch in BIG_UNITS


def _number_at(text: str, pos: int, blocked: set[int]) -> ZhNumber | None:
    if pos in blocked:
        return None
    sign = _sign_length(text, pos)
    if sign and text.startswith(tuple(_PERCENT_PREFIXES), pos + sign):
        ratio = _number_at(text, pos + sign, blocked)  # 负百分之九十八 is -98%
        if ratio is not None and ratio.kind == "percent":
            inner = _with_sign(ratio.parts[0], True, ratio.parts[0].start)
            return ZhNumber(inner.value, pos, ratio.end, "percent", inner.value, ratio.suffix, (inner,))
    for prefix, suffix in _PERCENT_PREFIXES.items():
        if text.startswith(prefix, pos):
            sign = _sign_length(text, pos + len(prefix))
            inner_start = pos + len(prefix) + sign
            body = _body(text, inner_start, bare_units=True) if inner_start < len(text) else None
            if body is not None:
                inner = _with_sign(body, sign > 0, pos + len(prefix))
                return ZhNumber(inner.value, pos, inner.end, "percent", inner.value, suffix, (inner,))
    sign = _sign_length(text, pos)
    if sign and pos + sign < len(text):
        body = _body(text, pos + sign)
        if body is not None:
            return _fraction_after(text, _with_sign(body, True, pos))
    body = _body(text, pos)
    return None if body is None else _fraction_after(text, body)


def _fraction_after(text: str, denominator: ZhNumber) -> ZhNumber:
    """``denominator`` itself, or the fraction it opens when 分之 follows (三分之二 = 2/3)."""
    pos = denominator.end
    if not text.startswith("分之", pos) or pos + 2 >= len(text):
        return denominator
    numerator = _body(text, pos + 2, bare_units=True)  # 之一 is in the lexicon; not here
    if numerator is None:
        return denominator
    if denominator.value.startswith("-"):  # 负三分之一: the sign is the fraction's, said on its numerator
        denominator = _with_sign(denominator, True, denominator.start)
        numerator = _with_sign(numerator, True, numerator.start)
    value = f"{numerator.value}/{denominator.value}"
    return ZhNumber(value, denominator.start, numerator.end, "fraction", value, "", (denominator, numerator))


def parse_spans(text: str) -> list[ZhNumber]:
    """Every number in ``text``, left to right, with offsets into ``text``."""
    normalized = normalize(text)
    blocked = _blocked_positions(normalized)
    found: list[ZhNumber] = []
    pos = 0
    while pos < len(normalized):
        number = _number_at(normalized, pos, blocked)
        if number is None:
            pos += 1
            continue
        found.append(number)
        pos = number.end
    return found


# --- readings built on the numbers: money, units, fractions, clock times -----------------------

#: Minutes said with a word after an hour's 点: 三点半 (3:30), 一点一刻 (1:15), 八点三刻 (8:45).
_CLOCK_MINUTE_WORDS = {"半": 30, "一刻": 15, "两刻": 30, "二刻": 30, "三刻": 45}
_ONE_DIGIT = "一二两三四五六七八九"
_NUMBER_CONTINUES = set(DIGIT_WORDS) | set(SMALL_UNITS) | set(BIG_UNITS) | set("点0123456789")

# Yuan, jiao and fen said the colloquial way: 三块五 is 3.5, 三块五毛八 3.58, 两元五角 2.5.
# A 零 stands where the jiao are skipped (十二块零五分 is 12.05), as in any number; then 分 must
# be said, since 十二块零五 could end anywhere. The jiao digit is the last of the amount: 十二块五十
# is no 12.5, and 五块一份 is five yuan a portion.
_YUAN_THEN_JIAO = re.compile(
    r"\s*(?:块钱|块|元)(?:([一二两三四五六七八九])(?:[毛角])?|零(?=[一二三四五六七八九]分))(?:([一二三四五六七八九])分?)?"
    r"(?![零一二两三四五六七八九十百千万亿点份个只件张条本斤杯碗瓶包盒袋次])"
)
# An amount under one yuan, in jiao (and fen): 三毛五 is 0.35, 五毛钱 0.5, 两角 0.2; in fen only
# with 钱 after it (八分钱 is 0.08; 八分 alone may be minutes or points).
_JIAO_THEN_FEN = re.compile(r"[毛角](?:([一二三四五六七八九])分?)?(?:钱)?")
_FEN_ONLY = re.compile(r"分钱")


@dataclass(frozen=True)
class Amount:
    """A yuan amount said with its sub-units: the value in yuan, where it ends, and, for an amount
    said in one sub-unit alone (五毛 = 5 jiao), that count and its unit (``角`` or ``分``)."""

    value: str
    end: int
    count: str = ""
    unit: str = ""


def colloquial_amount(text: str, number: ZhNumber) -> Amount | None:
    """The amount ``number`` opens when 块/元 and a jiao digit, or 毛/角/分钱, follow it, else None."""
    if number.kind not in ("integer", "digits") or not number.value.isdigit():
        return None
    if match := _YUAN_THEN_JIAO.match(text, number.end):
        jiao = DIGIT_WORDS[match.group(1)] if match.group(1) else 0
        fen = DIGIT_WORDS[match.group(2)] if match.group(2) else 0
        amount = Decimal(number.value) + Decimal(jiao) / 10 + Decimal(fen) / 100
        return Amount(_plain(amount), match.end())
    if not 1 <= int(number.value) <= 9:
        return None
    digit = Decimal(number.value)
    if match := _JIAO_THEN_FEN.match(text, number.end):
        if match.group(1):
            fen = DIGIT_WORDS[match.group(1)]
            return Amount(_plain(digit / 10 + Decimal(fen) / 100), match.end())
        return Amount(_plain(digit / 10), match.end(), number.value, "角")
    if match := _FEN_ONLY.match(text, number.end):
        return Amount(_plain(digit / 100), match.end(), number.value, "分")
    return None


# Units whose next lower unit is a tenth, said as a bare digit after them: 一米八 is 1.8 m (and
# 一米八五 1.85 m), 一斤二 1.2 jin, 三尺五 3.5 chi.
_TENTHS_UNITS = ("米", "斤", "尺", "丈")
# Before these, 米 ends a longer unit word and a digit after it is no tenth (三厘米八 is unclear).
_NOT_BARE_METRE = set("厘毫千分微纳平立")
# Counted units a half may follow: 两公里半 is 2.5 km, 一个半小时 1.5 hours, 三岁半 3.5 years.
_HALF_AFTER = (
    "个", "公里", "千米", "米", "公斤", "千克", "斤", "吨", "升", "块", "元", "天", "年", "岁", "周",
    "星期", "个小时", "个钟头", "小时", "钟头", "分钟", "秒", "倍", "圈", "杯", "碗", "瓶", "公分", "厘米",
    "英里", "里", "亩", "尺", "月", "集", "场", "节", "局",
)  # fmt: skip
# After a digit said after a unit, these make it a count of its own (一米八个人 is unclear).
_COUNT_AFTER = set("个只位名人号次张条本件把辆台届")


def unit_decimal(text: str, number: ZhNumber) -> tuple[str, int] | None:
    """(value, end) of a number said with a unit and its tenths or half: 一米八, 两公里半, 一个半小时."""
    if number.kind not in ("integer", "digits") or not number.value.isdigit():
        return None
    pos = number.end
    for unit in sorted(_HALF_AFTER, key=len, reverse=True):
        if text.startswith(unit + "半", pos):
            return _plain(Decimal(number.value) + Decimal("0.5")), pos + len(unit) + 1
    unit = text[pos : pos + 1]
    if unit not in _TENTHS_UNITS or (unit == "米" and text[pos - 1 : pos] in _NOT_BARE_METRE):
        return None
    digits, end = _fraction_digits(text, pos + 1)
    after = text[end : end + 1]
    if not 1 <= len(digits) <= 2 or text[pos + 1] not in _FRACTION_DIGITS or after in _NUMBER_CONTINUES:
        return None
    if after in _COUNT_AFTER or after in SMALL_UNITS or text.startswith(("分", "毛", "角"), end):
        return None
    return _plain(Decimal(f"{number.value}.{digits}")), end


def fraction_value(number: ZhNumber) -> str | None:
    """A fraction's value as a decimal when it has a finite one (四分之三 = 0.75), else None."""
    denominator, numerator = (Decimal(part.value) for part in number.parts)
    if denominator == 0:
        return None
    value = numerator / denominator
    if value.quantize(Decimal(1).scaleb(-12)) * denominator != numerator:
        return None
    return _plain(value)


# Words before an hour that say it is in the afternoon or evening (下午三点 is 15:00), and those
# that say it is not (上午三点, 凌晨三点).
_AFTERNOON_WORDS = ("下午", "晚上", "傍晚", "晚间", "夜里", "夜间", "今晚", "明晚", "昨晚", "中午")
_MORNING_WORDS = ("上午", "早上", "早晨", "清晨", "凌晨", "半夜", "午夜", "早")
# 差 counts back from the hour: 三点差五分 and 差五分三点 are both 2:55.
_SHORT_OF = "差"
_PAST = "过"
_QUARTER = "一刻"


def _hour_tokens(text: str, number: ZhNumber, hour: int, start: int, end: int) -> list[NumberToken]:
    """The hour as said, and 12 hours on where nothing says it is morning (下午三点 is 15:00)."""
    tokens = [NumberToken(str(hour), start, end)]
    head = text[: number.start].rstrip()
    if 1 <= hour <= 11 and not head.endswith(_MORNING_WORDS):
        tokens.append(NumberToken(str(hour + 12), start, end))
    elif hour == 12 and head.endswith(_AFTERNOON_WORDS[1:]):
        tokens.append(NumberToken("0", start, end))  # 晚上十二点 is midnight
    return tokens


def _minutes_short_of(text: str, pos: int) -> tuple[int, int] | None:
    """(minutes, end) of 五分 / 五分钟 / 一刻 at ``pos``, the amount 差 takes off the hour."""
    if text.startswith(_QUARTER, pos):
        return 15, pos + len(_QUARTER)
    body = _body(text, pos) if pos < len(text) else None
    if body is None or body.kind not in ("integer", "digits") or not text.startswith("分", body.end):
        return None
    minutes = int(body.value)
    if not 1 <= minutes <= 59:
        return None
    end = body.end + 1
    return minutes, end + 1 if text.startswith("钟", end) else end


def _clock(text: str, number: ZhNumber, numbers: list[ZhNumber]) -> tuple[list[NumberToken], int] | None:
    """Tokens and end of a clock time at ``number``: an hour and its 点, with 半/刻, 差, or before 差."""
    if number.kind not in ("integer", "digits") or not number.value.isdigit() or not 0 <= int(number.value) <= 24:
        return None
    hour = int(number.value)
    if number.start >= 1 and text[number.start - 1] == "差":
        return None
    if not text.startswith("点", number.end):
        return None
    after = number.end + 1
    if text.startswith(_SHORT_OF, after):
        short = _minutes_short_of(text, after + 1)
        if short is not None and hour >= 1:
            return _counted_back(text, number, hour, short[0], number.start, short[1])
    for word, minutes in _CLOCK_MINUTE_WORDS.items():
        if text.startswith(word, after):
            end = after + len(word)
            tokens = _hour_tokens(text, number, hour, number.start, number.end)
            return [*tokens, NumberToken(str(minutes), after, end)], end
    tokens = _hour_tokens(text, number, hour, number.start, number.end)
    if text.startswith(_PAST, after):  # 三点过五分: five past three
        after += len(_PAST)
    said = next((n for n in numbers if n.start == after and n.kind in ("integer", "digits")), None)
    if said is not None and text.startswith("分", said.end) and said.value.isdigit():
        tokens += _minute_tokens(int(said.value), said.start, said.end)
        return tokens, said.end
    if said is None and hour <= 24:
        # 三点, 三点钟, 三点整: a whole hour, 3:00 (the 00 never runs into the hour: 300 it is not)
        end = after + (1 if text.startswith(("钟", "整"), after) else 0)
        return [*tokens, NumberToken("00", number.end, end, joins=False)], end
    return tokens, number.end


def _minute_tokens(minutes: int, start: int, end: int) -> list[NumberToken]:
    """五点五分 and 五点零五分 are both 5:05: the minutes as said and in two digits."""
    if not 0 <= minutes < 60:
        return []
    return [NumberToken(m, start, end) for m in sorted({str(minutes), f"{minutes:02d}"})]


def _decimal_or_clock(text: str, number: ZhNumber) -> list[NumberToken]:
    """五点五分 is 5.5 points or 5:05: a one-digit decimal before 分 is both, over the same words."""
    tokens = [NumberToken(number.value, number.start, number.end)]
    whole, _, fraction = number.mantissa.partition(".")
    if number.suffix or len(fraction) != 1 or not whole.isdigit() or int(whole) > 24:
        return tokens
    if not text.startswith("分", number.end):
        return tokens
    hour = ZhNumber(whole, number.start, number.end - 2, "integer", whole)
    point = text.index("点", number.start)
    hours = _hour_tokens(text, hour, int(whole), number.start, point)
    return [*tokens, *hours, *_minute_tokens(int(fraction), point + 1, number.end)]


def _counted_back(
    text: str, number: ZhNumber, hour: int, minutes: int, start: int, end: int
) -> tuple[list[NumberToken], int]:
    """The hour before ``hour`` and the minutes ``minutes`` short of it: 三点差五分 is 2:55."""
    earlier = hour - 1 if hour > 1 else 12
    tokens = _hour_tokens(text, number, earlier, start, number.end)
    return [*tokens, NumberToken(f"{60 - minutes:02d}", number.end, end)], end


def _short_of_before(text: str, number: ZhNumber, numbers: list[ZhNumber]) -> tuple[list[NumberToken], int] | None:
    """差五分三点: 差 and the minutes before the hour."""
    if not (number.start >= 1 and text[number.start - 1] == _SHORT_OF):
        return None
    short = _minutes_short_of(text, number.start)
    if short is None:
        return None
    minutes, end = short
    hour = next((n for n in numbers if n.start == end), None)
    if hour is None or hour.kind not in ("integer", "digits") or not text.startswith("点", hour.end):
        return None
    if not 1 <= int(hour.value) <= 24:
        return None
    tokens, _ = _counted_back(text, hour, int(hour.value), minutes, hour.start, hour.end + 1)
    return [*tokens[:-1], NumberToken(tokens[-1].value, number.start - 1, end)], hour.end + 1


def _quarter_after_short_of(text: str, pos: int) -> tuple[list[NumberToken], int] | None:
    """差一刻三点: the quarter is words, not a number of its own."""
    if not text.startswith(_SHORT_OF + _QUARTER, pos):
        return None
    hour_at = pos + 1 + len(_QUARTER)
    hour = _body(text, hour_at) if hour_at < len(text) else None
    if hour is None or not hour.value.isdigit() or not text.startswith("点", hour.end):
        return None
    if not 1 <= int(hour.value) <= 24:
        return None
    tokens, _ = _counted_back(text, hour, int(hour.value), 15, hour.start, hour.end + 1)
    return [*tokens[:-1], NumberToken(tokens[-1].value, pos, hour_at)], hour.end + 1


def _ratio_tokens(number: ZhNumber) -> list[NumberToken]:
    """百分之五 is 5%; 千分之五 is 5‰ and also 0.5%; 万分之五 is 5‱, 0.05% and 0.5‰."""
    tokens = [NumberToken(number.value, number.start, number.end, number.suffix)]
    shifts = {"‰": (("%", -1),), "‱": (("%", -2), ("‰", -1))}.get(number.suffix, ())
    for unit, power in shifts:
        value = _plain(Decimal(number.value).scaleb(power))
        tokens.append(NumberToken(value, number.start, number.end, unit))
    return tokens


def _number_tokens(text: str, number: ZhNumber, numbers: list[ZhNumber]) -> tuple[list[NumberToken], int]:
    """The tokens a number gives, with what follows it, and where its reading ends."""
    if number.kind == "percent":
        return _ratio_tokens(number), number.end
    if number.kind == "fraction":
        parts = [NumberToken(p.value, p.start, p.end, "/", joins=False) for p in number.parts]
        value = fraction_value(number)
        whole = [NumberToken(value, number.start, number.end)] if value is not None else []
        return [*parts, *whole], number.end
    written = _written_fraction(text, number, numbers)
    if written is not None:
        return written
    sign = text[number.end : number.end + 1]
    if sign and sign in RATIO_UNITS:  # 5% as written
        return [NumberToken(number.value, number.start, number.end + 1, sign)], number.end + 1
    found = _short_of_before(text, number, numbers) or _clock(text, number, numbers)
    if found is not None and (len(found[0]) > 1 or found[1] > number.end):
        return found
    amount = colloquial_amount(text, number)
    if amount is not None:
        tokens = [NumberToken(amount.value, number.start, amount.end)]
        if amount.unit:
            tokens.append(NumberToken(amount.count, number.start, amount.end, amount.unit))
        return tokens, amount.end
    measured = unit_decimal(text, number)
    if measured is not None:
        return [NumberToken(measured[0], number.start, measured[1])], measured[1]
    mixed = _mixed_number(text, number, numbers)
    if mixed is not None:
        return mixed
    if number.kind == "decimal":
        return _decimal_or_clock(text, number), number.end
    return [NumberToken(number.value, number.start, number.end)], number.end


def _written_fraction(text: str, number: ZhNumber, numbers: list[ZhNumber]) -> tuple[list[NumberToken], int] | None:
    """3/4 and 1又1/5 as written: the parts, counted in ``/``, and the value where it is finite."""
    whole = None
    top = number
    if text.startswith("又", number.end):
        top = next((n for n in numbers if n.start == number.end + 1), number)
        whole = number if top is not number else None
    if top.kind != "digits" or not text.startswith("/", top.end):
        return None
    bottom = next((n for n in numbers if n.start == top.end + 1 and n.kind == "digits"), None)
    if bottom is None or int(bottom.value) == 0:
        return None
    if text[top.start - 1 : top.start] == "/" or text[bottom.end : bottom.end + 1] == "/":
        return None  # 2019/2/10 is a date
    fraction = ZhNumber(f"{top.value}/{bottom.value}", top.start, bottom.end, "fraction", parts=(bottom, top))
    tokens = [NumberToken(p.value, p.start, p.end, "/", joins=False) for p in (whole, top, bottom) if p is not None]
    value = fraction_value(fraction)
    if value is not None:
        total = Decimal(value) + (Decimal(whole.value) if whole is not None else 0)
        tokens.append(NumberToken(_plain(total), number.start, bottom.end))
    return tokens, bottom.end


def _mixed_number(text: str, number: ZhNumber, numbers: list[ZhNumber]) -> tuple[list[NumberToken], int] | None:
    """三又五分之一: 3, 1 and 5 as said, and 3.2 over the same words."""
    if number.kind not in ("integer", "digits") or not text.startswith("又", number.end):
        return None
    fraction = next((n for n in numbers if n.start == number.end + 1 and n.kind == "fraction"), None)
    if fraction is None:
        return None
    parts = [NumberToken(number.value, number.start, number.end, "/", joins=False)]
    parts += [NumberToken(p.value, p.start, p.end, "/", joins=False) for p in fraction.parts]
    value = fraction_value(fraction)
    if value is not None and not number.value.startswith("-"):
        parts.append(NumberToken(_plain(Decimal(number.value) + Decimal(value)), number.start, fraction.end))
    return parts, fraction.end


def parse_numbers(text: str) -> list[NumberToken]:
    """Values for the shared ``numbers`` matcher.

    A fraction gives its two numbers and, where it has one, its decimal value over the same words
    (四分之三 is 3, 4 or 0.75); a ratio its number counted per cent, per mille or per ten thousand;
    a colloquial amount its value (三块五 = 3.5, 五毛 = 0.5 and 5 角); a clock time its hour, and
    12 hours on unless a morning word precedes it, with the minutes (三点差五分 = 2:55).
    """
    normalized = normalize(text)
    numbers = parse_spans(text)
    tokens: list[NumberToken] = []
    consumed = 0
    for number in numbers:
        if number.start < consumed:
            continue
        quarter = _quarter_after_short_of(normalized, number.start - 1) if number.start >= 1 else None
        found, consumed = quarter or _number_tokens(normalized, number, numbers)
        tokens.extend(found)
    return sorted(tokens, key=lambda t: (t.start, t.end))


# Characters that are number material only next to a digit: a unit alone (百姓, 万事) is a word.
_MATERIAL_DIGITS = set(DIGIT_WORDS) | set(_OLD_TENS) | set("0123456789")
_MATERIAL_JOINING = set(SMALL_UNITS) | set(BIG_UNITS)
_MATERIAL = _MATERIAL_DIGITS | _MATERIAL_JOINING
# The words a reading takes in around its numbers (点, 分之, 块/毛, 米, 公里半, 差, 比 …): material
# only between numbers, never unread by themselves.
_JOINERS = frozenset(
    "".join(_HALF_AFTER)
    + "".join(_TENTHS_UNITS)
    + "点钟整分秒刻半差过比又之块毛角元钱负减去零下%‰‱/-"
    + "".join(_MATERIAL)
)


def number_material(text: str) -> list[Material]:
    """The number-like material of a Chinese transcript, read by :func:`parse_numbers` or not.

    A digit (a number word, 廿/卅/卌, an Arabic digit) where the lexicon does not make it part of
    an ordinary word (一起, 统一, 看一看), with the units around it; a unit alone is no material
    (百姓), nor is a 十 that is "very" (十分重要). The words a reading takes in around its numbers
    (点, 分之, 块, 毛, 米, 半, 差, 比 …) are joiners.
    """
    normalized = normalize(text)
    blocked = _blocked_positions(normalized)
    found: list[Material] = []
    pos = 0
    while pos < len(normalized):
        end = pos
        while end < len(normalized) and normalized[end] in _MATERIAL and end not in blocked:
            end += 1
        if end > pos and normalized[end - 1] == "千" and normalized[end : end + 1] in _KILO_UNIT_STARTS:
            end -= 1  # 二十五千克: the 千 is the unit's
        run = normalized[pos:end]
        if run and (any(ch in _MATERIAL_DIGITS for ch in run) or run.startswith("十")):
            found.append(Material(pos, end))
        pos = max(end, pos + 1)
    covered = {at for piece in found for at in range(piece.start, piece.end)}
    joiners = [Material(at, at + 1, joiner=True) for at, ch in enumerate(normalized) if ch in _JOINERS]
    return found + [j for j in joiners if j.start not in covered]
