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

from pytest_ttsbench.scorers.number_tokens import NumberToken
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

# Financial forms (壹贰叁…) are left out on purpose: recognizers never write them, and several
# are ordinary words too (拾 in 收拾, 伍 in 队伍, 陆 in 大陆).
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
    r"(?<!点)十分(?![钟之])",  # 十分重要 (very), but 十分钟 / 十分之一, and 一点十分 is 1:10
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
    """The text with full-width and traditional forms replaced one for one (same length).

    :func:`~pytest_ttsbench.scorers.zh_fold.fold_chinese` folds width (NFKC) and script (OpenCC);
    the table after it maps the signs NFKC leaves (``−``) and ○ to the forms the grammar reads.
    """
    return fold_chinese(text).translate(_ONE_TO_ONE)


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
    if nxt == "刻" and fraction in ("1", "3"):
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
                bare_ten = unit == 10 and last_small is None and (section == total == 0 or after_zero)
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
    if ch == "十" or (ch in ("百", "千") and (bare_units or nxt in BIG_UNITS)):
        return _quantity(text, start)
    return None


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
    for prefix, suffix in _PERCENT_PREFIXES.items():
        if text.startswith(prefix, pos):
            sign = _sign_length(text, pos + len(prefix))
            inner_start = pos + len(prefix) + sign
            inner = _body(text, inner_start, bare_units=True) if inner_start < len(text) else None
            if inner is not None:
                inner = _with_sign(inner, sign > 0, pos + len(prefix))
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


#: Minutes said with a word after an hour's 点: 三点半 (3:30), 一点一刻 (1:15), 八点三刻 (8:45).
_CLOCK_MINUTE_WORDS = {"半": "30", "一刻": "15", "三刻": "45"}


def _clock_minutes(text: str, numbers: list[ZhNumber]) -> list[NumberToken]:
    """Tokens for 半/一刻/三刻 right after an hour and its 点 (the hour itself is read as usual)."""
    normalized = normalize(text)
    found: list[NumberToken] = []
    for number in numbers:
        if number.kind not in ("integer", "digits") or not normalized.startswith("点", number.end):
            continue
        if not 0 <= int(number.value) <= 24:
            continue
        for word, minutes in _CLOCK_MINUTE_WORDS.items():
            if normalized.startswith(word, number.end + 1):
                found.append(NumberToken(minutes, number.end + 1, number.end + 1 + len(word)))
    return found


def parse_numbers(text: str) -> list[NumberToken]:
    """Values for the shared ``numbers`` matcher: a fraction gives its two numbers, a percentage its number."""
    tokens: list[NumberToken] = []
    numbers = parse_spans(text)
    quarters = _clock_minutes(text, numbers)
    for number in numbers:
        if any(q.start <= number.start < q.end for q in quarters):
            continue  # the 一 of 一刻 is the quarter, not a number of its own
        if number.kind == "fraction":
            tokens.extend(NumberToken(part.value, part.start, part.end) for part in number.parts)
        else:
            tokens.append(NumberToken(number.value, number.start, number.end))
    return sorted([*tokens, *quarters], key=lambda t: (t.start, t.end))
