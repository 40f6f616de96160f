"""Currencies: one table of how each is written and named, and the ``numbers`` scorer's check.

The table (:data:`CURRENCIES`) holds, per currency, the marks that write it (symbols, codes)
and, per language, the names people say that CLDR does not list: 新元, 刀, 美金, 港币, 块;
bucks, quid, pence; دولار alone, هللة, قرش. The display names themselves are CLDR's
(:func:`names`): 新加坡元, "Singapore dollars", دولار سنغافوري, read from a table
(``cldr_currency_names.py``) that ``scripts/gen_currency_names.py`` writes from Babel, so a run
loads neither Babel nor its locale data; the tests check the table against Babel. The Chinese
``semantic`` scorer builds its currency readings from the same table.

The ``numbers`` scorer checks values, and "$5" read as "five euros" keeps the value but not the
meaning. When the item's text names a currency (a symbol or a word) and the transcript names
currencies, at least one of them must be the written one; a transcript that names none is not
judged on it (a recognizer may drop the word, and the value is still checked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

from pytest_ttsbench.scorers.cldr_currency_names import CLDR_NAMES
from pytest_ttsbench.scorers.numbers_ar import fold


@dataclass(frozen=True)
class Currency:
    """A currency: written marks, and per language the colloquial names CLDR leaves out."""

    code: str
    marks: tuple[str, ...] = ()
    colloquial: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Languages whose CLDR display names are used (the currencies a reader of that language knows);
    #: their names are in ``cldr_currency_names.py`` (rerun ``scripts/gen_currency_names.py`` on a change).
    cldr: tuple[str, ...] = ("en", "ar", "zh")


def _c(code: str, marks: tuple[str, ...], cldr: tuple[str, ...] = ("en", "ar", "zh"), **names: str) -> Currency:
    return Currency(code, marks, {lang: tuple(words.split()) for lang, words in names.items()}, cldr)


CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        _c("USD", ("US$", "USD"), en="dollar dollars buck bucks", ar="دولار", zh="美元 美金 美刀 刀"),
        _c("EUR", ("€", "EUR"), en="euro euros", ar="يورو", zh="欧元 欧"),
        _c("GBP", ("£", "GBP"), en="pound pounds quid sterling pence penny", ar="استرليني إسترليني", zh="英镑 镑"),
        _c("JPY", ("JPY", "円"), en="yen", zh="日元 日币 日圆"),
        _c("CNY", ("CNY", "RMB"), en="yuan renminbi", zh="人民币 元 块钱 块"),
        _c("INR", ("₹", "INR"), en="rupee rupees", zh="印度卢比 卢比"),
        _c("CHF", ("CHF",), en="franc francs", zh="瑞士法郎 瑞郎"),
        _c("HKD", ("HK$", "HKD"), zh="港元 港币 港纸"),
        _c("MOP", ("MOP$", "MOP"), zh="澳门元 澳门币 葡币"),
        _c("TWD", ("NT$", "TWD"), zh="新台币 台币"),
        _c("CAD", ("C$", "CA$", "CAD"), zh="加元 加币 加拿大元"),
        _c("AUD", ("A$", "AU$", "AUD"), zh="澳元 澳币 澳大利亚元"),
        _c("NZD", ("NZ$", "NZD"), zh="新西兰元 纽元 纽币"),
        _c("SGD", ("S$", "SG$", "SGD"), zh="新加坡元 新加坡币 新元 新币 坡币"),
        _c("KRW", ("₩", "KRW"), en="won", zh="韩元 韩币"),
        _c("RUB", ("₽", "RUB"), zh="卢布"),
        _c("THB", ("฿", "THB"), zh="泰铢 泰币"),
        _c("EGP", ("EGP", "ج.م"), ("ar",), ar="جنيه قرش"),
        _c("SAR", ("﷼", "SAR", "ر.س"), ("ar",), ar="ريال هللة"),
        _c("AED", ("AED", "د.إ"), ("ar",), ar="درهم دراهم فلس"),
        _c("KWD", ("KWD", "د.ك"), ("ar",), ar="دينار دنانير فلس"),
        _c("LBP", ("LBP",), ("ar",), ar="ليرة ليرات"),
    )
}
#: ``$`` and ``¥`` are matched as marks only in the languages that write them for one currency.
_MARKS_BY_LANGUAGE = {"en": {"USD": ("$",), "JPY": ("¥",)}, "ar": {"USD": ("$",)}, "zh": {}}


@cache
def names(code: str, language: str) -> tuple[str, ...]:
    """What ``code`` is called in ``language``: CLDR's display names, then the colloquial ones."""
    currency = CURRENCIES[code]
    found: list[str] = []
    if language in currency.cldr:
        found.extend(_cldr_names(code, language))
    for name in currency.colloquial.get(language, ()):
        if name not in found:
            found.append(name)
    return tuple(found)


def _cldr_names(code: str, language: str) -> tuple[str, ...]:
    try:
        return CLDR_NAMES[(code, language)]
    except KeyError:
        raise LookupError(
            f"no CLDR names for currency {code} in {language!r} in scorers/cldr_currency_names.py:"
            " rerun python scripts/gen_currency_names.py after changing CURRENCIES"
        ) from None


# Arabic words are matched on their folded stem, after an optional clitic (و ب ل ال …), so that
# دولارًا, بالدولار and دولارين all name the dollar; every word of a CLDR name must follow in order
# (جنيه إسترليني is the pound sterling, جنيه alone the Egyptian pound).
_AR_CLITICS = ("", "و", "ب", "ل", "ال", "بال", "وال", "لل", "وب", "فال")
_WORD = re.compile(r"[^\W\d_]+")


def _names_in_words(words: list[str], language: str) -> Callable[[str], bool]:
    """Whether a currency name is said in ``words`` (the text's lower-cased words, in order).

    Each word is folded once per text, not once per name compared (a transcript is checked
    against every currency's names on every scoring).
    """
    if language != "ar":
        spaced = f" {' '.join(words)} "  # the words never hold a space: a name's words in a row
        return lambda name: _spaced(name) in spaced
    folded = [fold(word) for word in words]

    def says(name: str) -> bool:
        stems = _stems(name)
        return any(
            all(_after_clitic(folded[i + k], stem) for k, stem in enumerate(stems))
            for i in range(len(folded) - len(stems) + 1)
        )

    return says


@cache
def _spaced(name: str) -> str:
    """A name as its words appear in a text's spaced words (worked out once per name, not per scoring)."""
    return f" {' '.join(name.split())} "


@cache
def _stems(name: str) -> tuple[str, ...]:
    """A name's words folded as Arabic words are compared (once per name, not per scoring)."""
    return tuple(fold(part) for part in name.split())


@cache
def _written_marks(code: str, language: str) -> tuple[str, ...]:
    return (*CURRENCIES[code].marks, *_MARKS_BY_LANGUAGE[language].get(code, ()))


def _after_clitic(folded_word: str, folded_stem: str) -> bool:
    return any(folded_word.startswith(c) and folded_word[len(c) :].startswith(folded_stem) for c in _AR_CLITICS)


#: In Chinese, $ is any dollar and ¥ the yuan or the yen (the semantic scorer reads them the same way).
_ZH_SYMBOLS = {"$": ("USD", "HKD", "CAD", "AUD", "NZD", "SGD", "TWD"), "¥": ("CNY", "JPY"), "￥": ("CNY", "JPY")}


_ZH_AFTER_AMOUNT = ("刀", "欧", "块", "块钱")
_ZH_AMOUNT_END = set("0123456789零〇一二两三四五六七八九十百千万亿半")


@cache
def _zh_forms() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Every Chinese name and mark of a currency, longest first, so 港元 is read before 元."""
    forms: list[tuple[str, tuple[str, ...]]] = [(n, (code,)) for code in CURRENCIES for n in names(code, "zh")]
    forms += [(m.upper(), (code,)) for code, c in CURRENCIES.items() for m in c.marks]
    forms += list(_ZH_SYMBOLS.items())
    return tuple(sorted(forms, key=lambda form: len(form[0]), reverse=True))


def _said_zh(text: str) -> set[str]:
    """The currencies a Chinese text names: each name or mark read longest first, left to right."""
    upper = "".join(ch.upper() if ch.isascii() else ch for ch in text)
    found: set[str] = set()
    pos = 0
    while pos < len(upper):
        for form, codes in _zh_forms():
            latin = form.isascii() and form.isalpha()
            if not upper.startswith(form, pos) or (latin and _latin_around(upper, pos, form)):
                continue
            if form in _ZH_AFTER_AMOUNT and not (pos and upper[pos - 1] in _ZH_AMOUNT_END):
                continue  # 刀 (knife), 欧洲, 块 (a piece): a currency only right after an amount
            found.update(codes)
            pos += len(form)
            break
        else:
            pos += 1
    return found


def _latin_around(text: str, pos: int, form: str) -> bool:
    """A Latin code (USD) that is only part of a longer Latin word."""
    before = text[pos - 1 : pos]
    after = text[pos + len(form) : pos + len(form) + 1]
    return (before.isascii() and before.isalpha()) or (after.isascii() and after.isalpha())


#: Names of sub-units: they say which currency only where no currency itself is named ("two
#: dollars one penny" names the dollar, whatever the penny).
_SUB_UNIT_NAMES = frozenset({"pence", "penny", "cent", "cents", "paise", "paisa", "هللة", "قرش", "فلس"})


def _said(text: str, language: str, *, sub_units: bool = True) -> set[str]:
    if language in ("zh", "cmn"):
        return _said_zh(text)
    if language not in ("en", "ar"):
        return set()
    says = _names_in_words([w.lower() for w in _WORD.findall(text)], language)
    found: set[str] = set()
    for code in CURRENCIES:
        said = (n for n in names(code, language) if sub_units or n not in _SUB_UNIT_NAMES)
        if any(mark in text for mark in _written_marks(code, language)) or any(says(n) for n in said):
            found.add(code)
    return found


def currency_mismatch(written: str, transcript: str, language: str) -> tuple[set[str], set[str]] | None:
    """(written currencies, heard currencies) when the transcript names another currency and leaves
    a written one unsaid, else None."""
    primary = language.lower().split("-")[0]
    wanted = _said(written, primary)
    heard = _said(transcript, primary, sub_units=False) or _said(transcript, primary)
    if wanted and heard - wanted and wanted - heard:
        # another currency heard, and a written one not: $100 read 一百欧元, or 100美元兑700人民币
        # read 一百欧元兑七百人民币
        return wanted, heard
    return None
