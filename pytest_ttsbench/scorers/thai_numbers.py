"""Thai amounts, however they are written: number words and digits for the same value read the same.

A keyword that carries a number (``1,000 บาท``, ``สามสิบ``) is heard correctly whether the
recognizer writes digits (either script; the fold has made them ASCII), digits with thousands
separators, or Thai number words, and an amount of baht and satang as one decimal or in words
(``สิบสองบาทห้าสิบสตางค์`` = ``12.50 บาท``, ``หนึ่งพันบาทถ้วน`` = ``1000 บาท``). Neither the number
grammar nor the word boundaries are ours: PyThaiNLP's ``thaiword_to_num`` reads a run of number
words, and its dictionary word tokenizer (``newmm``, bundled, no download) finds the runs, so a
word that only contains a number morpheme (พันธุ์, เก้าอี้) is left alone. A run it cannot read as
one number but made only of digit words is a number read digit by digit (หนึ่งสองสาม = 123).
"""

from __future__ import annotations

import re
from decimal import Decimal

_DIGIT_WORDS = {
    "ศูนย์": "0",
    "หนึ่ง": "1",
    "สอง": "2",
    "สาม": "3",
    "สี่": "4",
    "ห้า": "5",
    "หก": "6",
    "เจ็ด": "7",
    "แปด": "8",
    "เก้า": "9",
}
_MORPHEMES = (*_DIGIT_WORDS, "เอ็ด", "ยี่", "สิบ", "ร้อย", "พัน", "หมื่น", "แสน", "ล้าน")
_NUMBER_WORDS = re.compile(f"(?:{'|'.join(_MORPHEMES)})+")
_ONLY_DIGIT_WORDS = re.compile(f"(?:{'|'.join(_DIGIT_WORDS)})+")
POINT = "จุด"
HALF = "ครึ่ง"
#: scale words that digits may be said with (1.5 ล้าน) and that ครึ่ง halves (พันครึ่ง); not สิบ
_SCALES = {"ร้อย": 100, "พัน": 1000, "หมื่น": 10_000, "แสน": 100_000, "ล้าน": 1_000_000}
_SCALE_RUN = re.compile(f"(?:{'|'.join(_SCALES)})+")
_DECIMAL = re.compile(r"\d+(?:\.\d+)?")
BAHT_SIGN = "\u0e3f"  # ฿
BAHT, SATANG, EXACTLY = "บาท", "สตางค์", "ถ้วน"

# A comma between digit groups (1,000; 12,345,678): a thousands separator, not a list.
_THOUSANDS_SEPARATOR = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_BAHT_AND_SATANG = re.compile(rf"(\d+)\s*{BAHT}\s*(\d{{1,2}})\s*{SATANG}")
_SATANG_ONLY = re.compile(rf"(?<![\d.])(\d{{1,2}})\s*{SATANG}")
_DECIMAL_BAHT = re.compile(rf"(\d+)\.(\d{{1,2}})(?!\d)(\s*){BAHT}")
_WHOLE_BAHT = re.compile(rf"{BAHT}\s*{EXACTLY}")
_SIGN_BEFORE = re.compile(rf"{BAHT_SIGN}\s*(\d+(?:\.\d+)?)")
_SIGN_AFTER = re.compile(rf"(\d)\s*{BAHT_SIGN}")


# Words that say a number, or part of one, that thaiword_to_num does not read: colloquial หนึ่ง
# (พันนึง), a half, "and more" (ร้อยกว่า), "and a bit" (พันเศษ), a dozen.
_SAID_NOT_READ = ("นึง", "ครึ่ง", "กว่า", "เศษ", "โหล")
_NUMBER_LIKE = re.compile(f"(?:{'|'.join((*_MORPHEMES, *_SAID_NOT_READ))})+")


def _words(text: str) -> list[str]:
    from pythainlp.tokenize import word_tokenize

    return list(word_tokenize(text, engine="newmm", keep_whitespace=True))


def carries_number(text: str) -> bool:
    """Whether ``text`` holds digits or a Thai number word (then its numeric reading is worth making).

    A word that only contains a number morpheme (สามารถ, พันธุ์) is not one: the tokenizer decides.
    """
    if any(ch.isdigit() for ch in text):
        return True
    return _NUMBER_WORDS.search(text) is not None and any(_NUMBER_WORDS.fullmatch(w) for w in _words(text))


def number_words_not_read(text: str) -> list[str]:
    """The words of ``text`` that say (part of) a number but are left as words by :func:`amounts_in_digits`."""
    return [w for w in _words(amounts_in_digits(text)) if _NUMBER_LIKE.fullmatch(w)]


def drop_thousands_separators(text: str) -> str:
    """``1,000,000`` → ``1000000``; a comma not between digit groups stays."""
    return _THOUSANDS_SEPARATOR.sub("", text)


def _number(words: str) -> str | None:
    """The digits a run of number words says, or None when PyThaiNLP cannot read it."""
    from pythainlp.util import thaiword_to_num

    whole, point, fraction = words.partition(POINT)
    try:
        value = str(thaiword_to_num(whole))
    except ValueError:
        if not _ONLY_DIGIT_WORDS.fullmatch(whole):
            return None
        value = "".join(_DIGIT_WORDS[w] for w in re.findall("|".join(_DIGIT_WORDS), whole))
    if not point:
        return value
    if not _ONLY_DIGIT_WORDS.fullmatch(fraction):
        return None
    return value + "." + "".join(_DIGIT_WORDS[w] for w in re.findall("|".join(_DIGIT_WORDS), fraction))


def _plain(value: Decimal) -> str:
    """``1500000``, ``2.5``: a value as digits, no exponent, no trailing zeros after a point."""
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scale(words: str) -> int | None:
    """The multiplier a run of scale words alone says (ล้าน, แสน, ล้านล้าน), or None."""
    if not _SCALE_RUN.fullmatch(words):
        return None
    total = 1
    for word in re.findall("|".join(_SCALES), words):
        total *= _SCALES[word]
    return total


def _last_scale(words: str) -> int | None:
    found = re.search(f"({'|'.join(_SCALES)})$", words)
    return _SCALES[found.group(1)] if found else None


def _number_before(out: list[str]) -> int | None:
    """Where the digits just before (spaces aside) start in ``out``, or None."""
    at = len(out) - 1
    while at >= 0 and out[at].isspace():
        at -= 1
    return at if at >= 0 and _DECIMAL.fullmatch(out[at]) else None


def _half_after_unit(out: list[str]) -> bool:
    """``N <unit> ครึ่ง`` is N and a half units (สองกิโลเมตรครึ่ง = 2.5 กิโลเมตร, สามชั่วโมงครึ่ง = 3.5
    ชั่วโมง): when ``out`` ends with a whole number and one word, add the half to the number (True)."""
    if not out or out[-1].isspace() or _DECIMAL.fullmatch(out[-1]):
        return False
    before = _number_before(out[:-1])
    # Only a count under a hundred: ร้อยเมตรครึ่ง could be 100.5 or 150 metres, so it stays words.
    if before is None or "." in out[before] or int(out[before]) >= 100:
        return False
    out[before:-1] = [_plain(Decimal(out[before]) + Decimal("0.5"))]
    return True


def _words_as_digits(text: str) -> str:
    """Each run of Thai number-word tokens written as its digits (see the module docstring).

    Digits said with a scale word are one number (1.5 ล้าน is 1500000, 2 พัน is 2000); ครึ่ง
    after a scale word adds half of it (ล้านครึ่ง is 1500000, สองพันครึ่ง 2500), after a unit half
    a unit (สองกิโลเมตรครึ่ง is 2.5 กิโลเมตร).
    """
    tokens = _words(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] == HALF and _half_after_unit(out):
            i += 1
            continue
        if not _NUMBER_WORDS.fullmatch(tokens[i]):
            out.append(tokens[i])
            i += 1
            continue
        run: list[str] = []
        while i < len(tokens) and (_NUMBER_WORDS.fullmatch(tokens[i]) or (tokens[i] == POINT and run)):
            run.append(tokens[i])
            i += 1
        words = "".join(run)
        before, scale = _number_before(out), _scale(words)
        if before is not None and scale is not None:
            out[before:] = [_plain(Decimal(out[before]) * scale)]
        else:
            out.append(_number(words) or words)
        last_scale = _last_scale(words)
        if i < len(tokens) and tokens[i] == HALF and last_scale and _DECIMAL.fullmatch(out[-1]):
            out[-1] = _plain(Decimal(out[-1]) + Decimal(last_scale) / 2)
            i += 1
    return "".join(out)


def _satang(digits: str) -> str:
    return digits.rjust(2, "0")


def amounts_in_digits(text: str) -> str:
    """``text`` with its amounts in one written form: digits without separators, baht as a decimal.

    ``หนึ่งพันบาทถ้วน`` → ``1000บาท``; ``1,000 บาท`` → ``1000 บาท``; ``สิบสองบาทห้าสิบสตางค์`` →
    ``12.50บาท``; ``12.5 บาท`` → ``12.50 บาท``; ``12.00 บาท`` → ``12 บาท``; ``ห้าสิบสตางค์`` → ``0.50บาท``.
    """
    if not carries_number(text):
        return text
    text = drop_thousands_separators(_words_as_digits(text))
    # ฿ is read บาท, after the amount: ฿1,000 and 1,000฿ are 1000 บาท.
    text = _SIGN_AFTER.sub(rf"\1{BAHT}", _SIGN_BEFORE.sub(rf"\1{BAHT}", text))
    text = _WHOLE_BAHT.sub(BAHT, text)
    text = _BAHT_AND_SATANG.sub(lambda m: f"{m.group(1)}.{_satang(m.group(2))}{BAHT}", text)
    text = _SATANG_ONLY.sub(lambda m: f"0.{_satang(m.group(1))}{BAHT}", text)

    def decimal_baht(m: re.Match[str]) -> str:
        satang = m.group(2).ljust(2, "0")
        return f"{m.group(1)}{'' if satang == '00' else '.' + satang}{m.group(3)}{BAHT}"

    return _DECIMAL_BAHT.sub(decimal_baht, text)
