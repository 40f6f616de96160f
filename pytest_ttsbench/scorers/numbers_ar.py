"""Arabic number reading: digits and spoken number words in a transcript → values.

What an ASR transcript of Arabic speech may hold, and how each is read:

* Digits of every script (Western ``0-9``, Arabic-Indic ``٠-٩``, Eastern ``۰-۹``), with ``,``/``٬``
  between thousands and ``.``/``٫`` before decimals. A digit string keeps its leading zeros, so a
  phone number stays a digit string for the shared matcher. ``٪``/``%`` carry no value.
* Cardinals joined by و in the spoken order (``ألفين وستة وعشرين`` = 2026, units before tens),
  teens (``ثلاثة عشر``), hundreds joined or split (``ستمائة``/``ست مئة``), duals and plurals of
  the scales (``ألفين``, ``ثلاثة آلاف``, ``ملايين``), ``فاصلة`` decimals and ``X ونصف`` halves.
* Ordinals, masculine and feminine, with the two-word teens (``الحادية عشرة`` = 11) and the date
  form ``الثامن والعشرين`` = 28.
* Clock times, only in a sentence that names ``ساعة``: an hour closes its group, so the minutes
  that follow are a number of their own, and ``والنصف``/``والربع``/``والثلث`` after an hour are 30,
  15 and 20 minutes (``إلا ربعًا`` takes 15 minutes off the hour).

Words are compared after folding spelling variants (hamza on alef, ى/ي, ة/ه, diacritics, tatweel),
always as a whole word, optionally after an attached clitic (و ف ب ل ك and the article), so an
ordinary word that merely starts like a number (ستكون, ثمن, عشرات) is never read as one.
Two numbers are one only when a grammatical join links them; anything else starts a new number,
and a token's span starts after its clitic, so ``عشرين وثلاثين`` is two tokens the shared
matcher will not run together.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, replace
from decimal import Decimal

from pytest_ttsbench.scorers.number_tokens import Material, NumberToken

# --- spelling ---------------------------------------------------------------------------------

# Hamza on alef is folded (أربعة/اربعة). ئ is kept: folded to ي, the ك + مئة split would read
# كمية ("quantity") as 100.
_FOLD = {
    "أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا",
    "ى": "ي", "ی": "ي",
    "ة": "ه", "ۀ": "ه", "ە": "ه",
    "ک": "ك",
}  # fmt: skip
_TATWEEL = "\u0640"


def _fold(ch: str) -> str:
    """One character as the lexicon spells it: base letters only, no marks or tatweel."""
    out = []
    for c in unicodedata.normalize("NFKC", ch):
        if c == _TATWEEL or unicodedata.category(c).startswith("M"):
            continue
        out.append(_FOLD.get(c, c))
    return "".join(out)


def fold(word: str) -> str:
    """A word with hamza on alef, ى/ي, ة/ه, diacritics and tatweel folded, for lexicon lookups."""
    return "".join(_fold(ch) for ch in word)


# --- lexicon ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    """What a number word is.

    ``kind`` is one of unit, ten, tens, hundred (مئة, which a unit may multiply), hundreds (a fixed
    200-900), scale, ordinal, point, fraction, and, except. ``count`` is the count a scale word
    carries: 1 for ألف, 2 for the dual ألفين, 0 for a plural (آلاف) that needs a count of 3-10.
    A ``weak`` word is a number only inside a compound: أحد in أحد عشر is 11, alone it is "someone".
    """

    kind: str
    value: int = 0
    feminine: bool = False
    weak: bool = False
    count: int = 1
    fraction: Decimal | None = None
    minutes: int = 0
    numerator: int = 1
    denominator: int = 0


_LEXICON: dict[str, _Entry] = {}


def _add(words: list[str], entry: _Entry) -> None:
    for word in words:
        key = fold(word)
        if _LEXICON.get(key, entry) != entry:
            raise ValueError(f"Arabic number lexicon: {word!r} has two meanings")
        _LEXICON[key] = entry


_UNITS = {
    0: ["صفر"],
    1: ["واحد", "واحدة"],
    2: ["اثنان", "اثنين", "اثنتان", "اثنتين", "ثنتان", "ثنتين"],
    3: ["ثلاثة", "ثلاث"],
    4: ["أربعة", "أربع"],
    5: ["خمسة", "خمس"],
    6: ["ستة", "ست"],
    7: ["سبعة", "سبع"],
    8: ["ثمانية", "ثماني", "ثمان"],
    9: ["تسعة", "تسع"],
}
# Only before عشر (أحد عشر, اثنا عشر) or و + tens (إحدى وعشرون).
_WEAK_UNITS = {1: ["أحد", "إحدى"], 2: ["اثنا", "اثني", "اثنتا", "اثنتي"]}
_TENS = {
    20: ["عشرون", "عشرين"],
    30: ["ثلاثون", "ثلاثين"],
    40: ["أربعون", "أربعين"],
    50: ["خمسون", "خمسين"],
    60: ["ستون", "ستين"],
    70: ["سبعون", "سبعين"],
    80: ["ثمانون", "ثمانين"],
    90: ["تسعون", "تسعين"],
}
_HUNDRED = ["مئة", "مائة"]
_TWO_HUNDRED = ["مئتان", "مئتين", "مئتا", "مئتي", "مائتان", "مائتين", "مائتا", "مائتي"]
# Stems that join مئة/مائة in one word: ثلاثمائة, ستمئة, ثمانمائة ...
_HUNDRED_STEMS = {
    3: ["ثلاث", "ثلث"],
    4: ["أربع"],
    5: ["خمس"],
    6: ["ست"],
    7: ["سبع"],
    8: ["ثمان", "ثماني"],
    9: ["تسع"],
}
# scale value: (singular, dual, plural)
_SCALES = {
    1000: (["ألف"], ["ألفان", "ألفين", "ألفي"], ["آلاف", "ألوف"]),
    10**6: (["مليون"], ["مليونان", "مليونين", "مليوني"], ["ملايين"]),
    10**9: (
        ["مليار", "بليون"],
        ["ملياران", "مليارين", "ملياري", "بليونان", "بليونين"],
        ["مليارات", "بلايين"],
    ),
}
# value: (masculine forms, feminine forms)
_ORDINALS = {
    1: (["أول"], ["أولى"]),
    2: (["ثاني", "ثان"], ["ثانية"]),
    3: (["ثالث"], ["ثالثة"]),
    4: (["رابع"], ["رابعة"]),
    5: (["خامس"], ["خامسة"]),
    6: (["سادس"], ["سادسة"]),
    7: (["سابع"], ["سابعة"]),
    8: (["ثامن"], ["ثامنة"]),
    9: (["تاسع"], ["تاسعة"]),
    10: (["عاشر"], ["عاشرة"]),
}

for _value, _words in _UNITS.items():
    _add(_words, _Entry("unit", _value))
for _value, _words in _WEAK_UNITS.items():
    _add(_words, _Entry("unit", _value, weak=True))
_add(["عشرة", "عشر"], _Entry("ten", 10))
for _value, _words in _TENS.items():
    _add(_words, _Entry("tens", _value))
_add(_HUNDRED, _Entry("hundred", 100))
_add(_TWO_HUNDRED, _Entry("hundreds", 200))
for _value, _stems in _HUNDRED_STEMS.items():
    _add([stem + hundred for stem in _stems for hundred in _HUNDRED], _Entry("hundreds", _value * 100))
for _value, (_singular, _dual, _plural) in _SCALES.items():
    _add(_singular, _Entry("scale", _value, count=1))
    _add(_dual, _Entry("scale", _value, count=2))
    _add(_plural, _Entry("scale", _value, count=0))
for _value, (_masculine, _feminine) in _ORDINALS.items():
    _add(_masculine, _Entry("ordinal", _value))
    _add(_feminine, _Entry("ordinal", _value, feminine=True))
_add(["حادي"], _Entry("ordinal", 1, weak=True))
_add(["حادية"], _Entry("ordinal", 1, feminine=True, weak=True))
_add(["فاصلة", "نقطة"], _Entry("point"))
_add(["نصف"], _Entry("fraction", fraction=Decimal("0.5"), minutes=30, denominator=2))
_add(["ربع"], _Entry("fraction", fraction=Decimal("0.25"), minutes=15, denominator=4))
_add(["ثلث"], _Entry("fraction", minutes=20, denominator=3))
_add(["سدس"], _Entry("fraction", denominator=6))
_add(["ثلثان", "ثلثين", "ثلثي"], _Entry("fraction", numerator=2, denominator=3))  # not ثلثا: ثلثًا
# The plurals of the fractions, counted: ثلاثة أرباع is 3/4, سبعة أعشار 7/10. Alone they are no
# number (أثمان is also "prices"); only a count before them makes them one.
for _value, _word in enumerate(("أثلاث", "أرباع", "أخماس", "أسداس", "أسباع", "أثمان", "أتساع", "أعشار"), start=3):
    _add([_word], _Entry("parts", denominator=_value))
_add(["و"], _Entry("and"))
_add(["إلا"], _Entry("except"))

# Clitics a number word may carry, longest first. لل is ل + the article.
_PREFIXES = (
    "وبال", "فبال", "وكال", "ولل", "فلل", "وال", "فال", "بال", "كال", "لل", "ال",
    "وب", "فب", "ول", "فل", "وك", "فك", "و", "ف", "ب", "ل", "ك",
)  # fmt: skip
# Whole words that a clitic split would misread: لستُ "I am not" is not ل + ست, nor ألستَ "aren't you"
# the article + ست.
_NOT_NUMBERS = {fold(w) for w in ("لست", "ولست", "فلست", "ألست")}
# Words after which a tanween alef may be dropped: only cardinals (and clock fractions, ربعًا),
# never ordinals (أولًا is "firstly"), and only behind و/ف, so لستا stays a verb.
_TANWEEN_KINDS = {"unit", "ten", "tens", "hundred", "hundreds", "scale", "fraction"}
_HOUR_NOUN = fold("ساعة")
_MINUTE = fold("دقيقة")
_MINUTE_PLURALS = {fold("دقائق")}
_MINUTE_DUALS = {fold("دقيقتين"), fold("دقيقتان")}
_PERCENT_AFTER = fold("في")
_MONTH_NOUN = fold("شهر")  # شهر صفر is a month, not zero
#: "minus": ناقص between two numbers is a subtraction (a range read ناقص is not the range).
_MINUS_WORDS = {fold(w) for w in ("ناقص", "سالب")}

# Nouns that are counted: a dual of one of them says "two" with no number word (ساعتين, يومين),
# and a count of them may take a half or a quarter after the noun (ثلاث ساعات ونصف = 3.5).
# (singular, plurals) as spelled; duals are built from the singular.
_COUNTED_NOUNS = {
    "ساعة": ["ساعات"],
    "دقيقة": ["دقائق"],
    "ثانية": ["ثوان", "ثواني"],
    "يوم": ["أيام"],
    "أسبوع": ["أسابيع"],
    "شهر": ["أشهر", "شهور"],
    "سنة": ["سنوات", "سنين"],
    "عام": ["أعوام"],
    "مرة": ["مرات"],
    "دولار": ["دولارات"],
    "دينار": ["دنانير"],
    "درهم": ["دراهم"],
    "ريال": ["ريالات"],
    "جنيه": ["جنيهات"],
    "ليرة": ["ليرات"],
    "متر": ["أمتار"],
    "كيلومتر": ["كيلومترات"],
    "كيلوغرام": ["كيلوغرامات"],
    "لتر": ["لترات"],
    "هدف": ["أهداف"],
}


#: Below zero: "ثلاث درجات تحت الصفر" is -3, like سالب ثلاثة.
_DEGREE_WORDS = {fold(w) for w in ("درجة", "درجات", "درجتين", "درجتان")}
_BELOW_WORDS = {fold(w) for w in ("تحت", "دون")}
_ZERO_WORDS = {fold(w) for w in ("الصفر",)}
_CURRENCY_NOUNS = ("دولار", "دينار", "درهم", "ريال", "جنيه", "ليرة", "يورو")
#: Sub-units: their plurals, and how many make the unit of each currency they divide ("" for any).
#: These are the ISO 4217 minor units of the currencies so named: a fils is 1/1000 of a Kuwaiti,
#: Bahraini, Jordanian or Iraqi dinar and 1/100 of a dirham; a halala 1/100 of a riyal; a qirsh
#: (piastre) 1/100 of a pound; a millime 1/1000 of a Tunisian dinar or Egyptian pound; a baisa
#: 1/1000 of an Omani riyal.
_SUB_UNITS: dict[str, tuple[list[str], dict[str, int]]] = {
    "سنت": (["سنتات"], {"": 100}),
    "هللة": (["هللات"], {"": 100}),
    "قرش": (["قروش"], {"": 100}),
    "فلس": (["فلوس"], {"دينار": 1000, "درهم": 100}),
    "بنس": (["بنسات"], {"": 100}),
    "يوروسنت": ([], {"": 100}),
    "مليم": (["مليمات", "ملاليم"], {"": 1000}),
    "بيسة": (["بيسات"], {"": 1000}),
}
#: Words that say an hour is in the morning (no 12 hours on) after it: الثالثة صباحًا.
_MORNING_WORDS = {fold(w) for w in ("صباحا", "صباحًا", "الصباح", "صباح", "فجرا", "الفجر")}
#: The ratios said after a number: في المئة / بالمئة is per cent, في الألف / بالألف per mille.
_RATIO_NOUNS = {fold("المئة"): "%", fold("المائة"): "%", fold("الألف"): "‰"}
_RATIO_WORDS = {fold("بالمئة"): "%", fold("بالمائة"): "%", fold("بالألف"): "‰"}
_RATIO_SIGNS = {"%": "%", "٪": "%", "‰": "‰", "؉": "‰", "‱": "‱"}
_OVER = fold("على")  # سبعة عشر على ثلاثة: 17/3
_OF = fold("من")  # ثمانية وثمانون من مئة: 88/100
#: Score words: بثلاثية نظيفة is 3-0, بهدفين نظيفين 2-0, بهدف مقابل لا شيء 1-0.
_SCORE_WORDS = {
    fold(w): n
    for w, n in (
        ("هدف", 1), ("هدفين", 2), ("هدفان", 2), ("ثنائية", 2), ("ثلاثية", 3), ("رباعية", 4),
        ("خماسية", 5), ("سداسية", 6), ("سباعية", 7),
    )
}  # fmt: skip
_CLEAN_SHEET = {fold(w) for w in ("نظيفة", "نظيف", "نظيفين", "نظيفان", "نظيفا")}
_AGAINST = fold("مقابل")
_NOTHING = fold("لا")  # لا شيء


@dataclass(frozen=True)
class _Fraction:
    """A fraction said in words: its parts, the items (first, last) each was said in, its last item."""

    numerator: int
    denominator: int
    numerator_span: tuple[int, int]
    denominator_span: tuple[int, int]
    last: int
    over: bool = False  # said with على, which a score uses too


#: Words that spell a count and, with other vowels, a fraction: (numerator, denominator).
_HOMOGRAPH_FRACTIONS = {
    fold(w): parts
    for w, parts in (
        ("خمس", (1, 5)), ("سبع", (1, 7)), ("تسع", (1, 9)), ("ثمن", (1, 8)), ("عشر", (1, 10)),
        ("خمسين", (2, 5)), ("سبعين", (2, 7)), ("تسعين", (2, 9)), ("ثمنين", (2, 8)), ("عشرين", (2, 10)),
    )
}  # fmt: skip


def _unclitic(word: str) -> list[str]:
    """A folded word and what is left of it after each clitic it may start with (الدينار → دينار)."""
    return [word, *(word[len(p) :] for p in _PREFIXES if word.startswith(p) and len(word) > len(p) + 1)]


def _finite(value: Decimal, denominator: int) -> Decimal | None:
    """The fraction's value when it has a finite decimal (3/4 = 0.75; 1/3 has none)."""
    while denominator % 2 == 0:
        denominator //= 2
    while denominator % 5 == 0:
        denominator //= 5
    return value if denominator == 1 else None


def _per(tokens: list[NumberToken], unit: str) -> list[NumberToken]:
    """Tokens said per cent or per mille; 5 per mille is also 0.5 per cent (an overlapping token)."""
    found = [replace(t, unit=unit) for t in tokens if not t.unit]
    if unit == "‰":
        found += [replace(t, value=_format(Decimal(t.value) / 10), unit="%") for t in tokens if not t.unit]
    return found


def _dual_forms(singular: str) -> list[str]:
    """ساعة → ساعتان, ساعتين; يوم → يومان, يومين (folded: ة is ه, and becomes ت before the ending)."""
    stem = fold(singular)
    stem = stem[:-1] + "ت" if stem.endswith("ه") else stem
    return [stem + "ان", stem + "ين"]


#: folded currency form (singular, plural, dual) → its singular; sub-unit form → its divisor.
_CURRENCY_FORMS = {
    form: fold(singular)
    for singular in _CURRENCY_NOUNS
    for form in [fold(singular), *(fold(p) for p in _COUNTED_NOUNS.get(singular, [])), *_dual_forms(singular)]
}
#: folded sub-unit form (singular, plural, dual) → its singular, folded.
_SUB_UNIT_FORMS = {
    form: fold(singular)
    for singular, (plurals, _divisors) in _SUB_UNITS.items()
    for form in [fold(singular), *(fold(p) for p in plurals), *_dual_forms(singular)]
}
_SUB_UNIT_DIVISORS = {
    fold(singular): {fold(k): v for k, v in divisors.items()} for singular, (_, divisors) in _SUB_UNITS.items()
}


def _divisor(sub_unit: str, currency: str | None) -> int | None:
    """How many of ``sub_unit`` (folded singular) make the ``currency`` (folded singular), or None
    when that depends on a currency the transcript does not name."""
    divisors = _SUB_UNIT_DIVISORS[sub_unit]
    if "" in divisors:
        return divisors[""]
    return divisors.get(currency or "")


#: Currencies whose sub-unit is always a hundredth, so a count said after و alone is one.
_HUNDREDTHS_CURRENCIES = {fold(w) for w in ("دولار", "يورو", "ريال", "درهم", "جنيه", "ليرة")}
#: The nationality after a currency's name (دينار كويتي, ريال سعودي): a nisba adjective.
_NATIONALITIES = {
    fold(w)
    for w in (
        "كويتي", "بحريني", "أردني", "عراقي", "ليبي", "تونسي", "جزائري", "سعودي", "قطري", "عماني",
        "يمني", "إماراتي", "مغربي", "مصري", "سوداني", "لبناني", "سوري", "أمريكي", "أميركي", "كندي",
        "أسترالي", "استرليني", "إسترليني",
    )
}  # fmt: skip
_COUNTED_SINGULAR = {fold(w) for w in _COUNTED_NOUNS}
_COUNTED_PLURAL = {fold(p) for plurals in _COUNTED_NOUNS.values() for p in plurals}
_COUNTED_DUAL = {dual for w in _COUNTED_NOUNS for dual in _dual_forms(w)}


def _has_article(prefix: str) -> bool:
    return "ال" in prefix or prefix.endswith("لل")


def _lookup(word: str) -> tuple[str, _Entry] | None:
    """The clitic and lexicon entry of a folded word, or None when it is not a number word.

    The whole word is tried first, then each clitic split, then (for tanween) the word less one
    trailing alef: سبعونًا → سبعون.
    """
    if word in _NOT_NUMBERS:
        return None
    if word in _LEXICON:
        return "", _LEXICON[word]
    for prefix in _PREFIXES:
        entry = _LEXICON.get(word[len(prefix) :]) if word.startswith(prefix) else None
        if entry is not None and entry.kind not in ("and", "except"):
            return prefix, entry
    if word.endswith("ا"):
        base = word[:-1]
        for prefix in ("", "و", "ف"):
            entry = _LEXICON.get(base[len(prefix) :]) if base.startswith(prefix) else None
            if entry is not None and entry.kind in _TANWEEN_KINDS and len(base) > len(prefix):
                return prefix, entry
    return None


# --- items: words and digit runs with offsets -------------------------------------------------

_D = "[0-9\u0660-\u0669\u06f0-\u06f9]"
_DIGITS = re.compile(rf"{_D}{{1,3}}(?:[,\u066c]{_D}{{3}})+(?!{_D})(?:[.\u066b]{_D}+)?|{_D}+(?:[.\u066b]{_D}+)?")
_DIGIT_MAP = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹٫", "01234567890123456789.", ",٬")
_SENTENCE_END = set(".!?؟؛۔\n")


@dataclass(frozen=True)
class _Item:
    """A word or digit run of the transcript.

    ``start`` is where the number itself begins (after any clitic), ``word_start`` where the word
    does; ``digits`` is the Western-digit value of a digit run.
    """

    start: int
    end: int
    word_start: int
    key: str
    prefix: str
    entry: _Entry | None
    sentence: int
    digits: str | None = None


def _is_word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


_AND_ONE = fold("واحد")


def _sentence_starts(text: str) -> list[int]:
    """Offsets where a new sentence begins; a dot between digits is a decimal point, not an end."""
    starts = [0]
    for i, ch in enumerate(text):
        if ch in _SENTENCE_END:
            between_digits = ch == "." and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
            if not between_digits:
                starts.append(i + 1)
    return starts


def _sentence_of(starts: list[int], offset: int) -> int:
    return bisect_right(starts, offset) - 1


def _items(text: str) -> list[_Item]:
    starts = _sentence_starts(text)
    items: list[_Item] = []
    for m in _DIGITS.finditer(text):
        start, value = m.start(), m.group().translate(_DIGIT_MAP)
        before = text[start - 2] if start >= 2 else " "
        if start >= 1 and text[start - 1] in "-−" and (before.isspace() or before in "(["):
            start, value = start - 1, "-" + value
        items.append(_Item(start, m.end(), start, value, "", _Entry("digits"), _sentence_of(starts, start), value))
    i = 0
    while i < len(text):
        if not _is_word_char(text[i]):
            i += 1
            continue
        j = i
        while j < len(text) and _is_word_char(text[j]):
            j += 1
        chars: list[str] = []
        origin: list[int] = []
        for k in range(i, j):
            for c in _fold(text[k]):
                chars.append(c)
                origin.append(k)
        key = "".join(chars)
        found = _lookup(key) if key else None
        if key == _AND_ONE and text[i + 1 : i + 2] in "أإ":
            found = ("و", _LEXICON[key[1:]])  # وأحد عشر is "and eleven", not واحد عشر
        prefix, entry = found if found else ("", None)
        stem_start = origin[len(prefix)] if key else i
        items.append(_Item(stem_start, j, i, key, prefix, entry, _sentence_of(starts, i)))
        i = j
    items.sort(key=lambda it: it.start)
    return [_in_context(items, n) for n in range(len(items))]


def _in_context(items: list[_Item], n: int) -> _Item:
    """Drop or weaken readings that the neighbouring word rules out."""
    item = items[n]
    entry = item.entry
    if entry is None:
        return item
    previous = items[n - 1].key if n > 0 else ""
    stem = item.key[len(item.prefix) :]
    article = _has_article(item.prefix)
    if entry.kind == "ordinal" and stem == fold("ثانية") and not article:
        return replace(item, entry=None)  # ثانية alone is "a second" of time
    if entry.kind == "unit" and entry.value == 0 and previous.endswith(_MONTH_NOUN):
        return replace(item, entry=None)
    per = entry.kind == "hundred" or (entry.kind == "scale" and entry.value == 1000 and entry.count == 1)
    if per and (item.prefix.endswith("بال") or (article and previous == _PERCENT_AFTER)):
        return replace(item, entry=None)  # بالمئة / في المئة: per cent, not 100; في الألف per mille
    if entry.kind == "scale" and entry.count == 1 and stem in _CONSTRUCT_DUALS and _is_construct(items, n):
        # ألفا دولار, مليونا نسمة: the dual in construct (its ن dropped before a noun) is two of the
        # scale. After a count (عشرون ألفًا), before و and a number (ألفا ومئتين) or with nothing
        # after it, the same letters are the singular with an undotted tanween.
        return replace(item, entry=replace(entry, count=2))
    if entry.kind == "unit" and entry.value == 2 and article:
        return replace(item, entry=replace(entry, weak=True))  # الاثنين is Monday
    return item


#: The scale duals in construct, as folded: ألفا, مليونا, مليارا (the singular + alef when undotted).
_CONSTRUCT_DUALS = {
    fold(singular) + "ا" for singular_forms, _dual, _plural in _SCALES.values() for singular in singular_forms
}
_COUNTING_KINDS = ("unit", "ten", "tens", "hundred", "hundreds", "digits")


def _is_construct(items: list[_Item], n: int) -> bool:
    """Whether ألفا/مليونا at items[n] is a dual in construct: no count before it, a noun after it."""
    previous = items[n - 1].entry if n > 0 else None
    if previous is not None and previous.kind in _COUNTING_KINDS and not items[n].prefix:
        return False  # عشرون ألفًا, ثلاثة عشر ألفًا
    following = items[n + 1] if n + 1 < len(items) else None
    return following is not None and following.entry is None and following.prefix == "" and following.digits is None


# --- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Phrase:
    value: Decimal
    first: int
    last: int


class _Reader:
    """Reads number phrases over the items of one transcript."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items = _items(text)
        self.clock = {it.sentence for it in self.items if self._is_hour_noun(it.key)}

    @staticmethod
    def _is_hour_noun(key: str) -> bool:
        return key.endswith(_HOUR_NOUN) and key[: -len(_HOUR_NOUN)] in ("", *_PREFIXES)

    def _spaces(self, a: int, b: int) -> bool:
        return all(c.isspace() or unicodedata.category(c) == "Cf" for c in self.text[a:b])

    def entry(self, k: int) -> _Entry | None:
        return self.items[k].entry if 0 <= k < len(self.items) else None

    def next(self, k: int) -> tuple[str, int] | None:
        """How items[k] links to the next item: ("space", j), ("and", j), or None when it does not."""
        items = self.items
        if k + 1 >= len(items) or not self._spaces(items[k].end, items[k + 1].word_start):
            return None
        nxt = items[k + 1]
        if nxt.entry is not None and nxt.entry.kind == "and":
            after = items[k + 2] if k + 2 < len(items) else None
            if after is not None and self._spaces(nxt.end, after.word_start) and after.prefix in ("", "ال"):
                return "and", k + 2
            return None
        if nxt.prefix in ("و", "وال"):
            return "and", k + 1
        if nxt.prefix == "":
            return "space", k + 1
        return None

    # -- cardinals --

    def cardinal(self, i: int, *, hour: bool = False, in_fraction: bool = False, limit: int = -1) -> _Phrase | None:
        """The longest cardinal starting at items[i] (ending at items[limit] or before, if given),
        or None when items[i] starts none."""
        e = self.items[i].entry
        # total: groups already multiplied by a scale word; scale: the smallest scale used so far
        # (a later one must be smaller); hundreds + below: the group under 1000 being built;
        # last: what the latest word was; weak: a weak unit still waiting for its عشر or tens.
        total, scale, hundreds, below, last, weak = 0, 10**18, 0, 0, "", False
        if e is None:
            return None
        if e.kind == "unit":
            below, last, weak = e.value, "unit", e.weak
        elif e.kind == "ten":
            below, last = 10, "ten"
        elif e.kind == "tens":
            below, last = e.value, "tens"
        elif e.kind in ("hundred", "hundreds"):
            hundreds, last = e.value, "hundreds"
        elif e.kind == "scale" and e.count and not in_fraction:
            total, scale, last = e.count * e.value, e.value, "scale"
        else:
            return None
        end = i
        best = None if weak else _Phrase(Decimal(total + hundreds + below), i, i)
        while (link := self.next(end)) is not None:
            how, j = link
            f = self.items[j].entry
            if f is None or 0 <= limit < j:
                break
            group = hundreds + below
            if how == "space":  # joins without و: teens, split hundreds, scale words, فاصلة
                if f.kind == "ten" and last == "unit" and 1 <= below <= 9:
                    below, last, weak = below + 10, "teen", False
                elif f.kind == "hundred" and last == "unit" and 3 <= below <= 9 and not hundreds and not weak:
                    hundreds, below, last = below * 100, 0, "hundreds"
                elif (
                    f.kind == "scale"
                    and not (hour or in_fraction or weak)
                    and group
                    and f.value < scale
                    and (f.count == 1 or (f.count == 0 and not hundreds and 3 <= below <= 10))
                ):
                    total, scale, hundreds, below, last = total + group * f.value, f.value, 0, 0, "scale"
                elif f.kind == "point" and not (hour or in_fraction or weak):
                    return self._decimal(Decimal(total + group), i, j, scale) or best
                else:
                    break
            else:  # joins with و, in the spoken order: scale groups, hundreds, unit, tens
                f, j = self._split_hundreds(f, j)
                open_group = below == 0 and (hundreds > 0 or total > 0)
                if hour or (in_fraction and f.kind == "fraction") or (weak and f.kind != "tens"):
                    break
                if self._scaled_at_least(j, scale):
                    break  # ثلاثة آلاف وثلاثة آلاف: the second count belongs to its own scale word
                if f.kind == "unit" and f.value > 0 and open_group:
                    below, last, weak = f.value, "unit", f.weak
                elif f.kind == "ten" and open_group:
                    below, last = 10, "ten"
                elif f.kind == "tens" and (open_group or (last == "unit" and 1 <= below <= 9)):
                    below, last, weak = below + f.value, "tens", False
                elif f.kind in ("hundred", "hundreds") and not group and total and scale >= 1000:
                    hundreds, last = f.value, "hundreds"
                elif f.kind == "scale" and f.count and not group and total and f.value < scale:
                    total, scale, last = total + f.count * f.value, f.value, "scale"
                elif (
                    f.kind == "fraction"
                    and f.fraction is not None
                    and not _has_article(self.items[j].prefix)
                    and last in ("unit", "ten", "teen", "tens", "scale")
                ):
                    unit = scale if last == "scale" else 1  # مليون ونصف = 1.5 million
                    return _Phrase(total + group + f.fraction * unit, i, j)
                else:
                    break
            end = j
            if not weak:
                best = _Phrase(Decimal(total + hundreds + below), i, end)
        return best

    def _scaled_at_least(self, j: int, scale: int) -> bool:
        """True when items[j] is directly followed by a scale word no smaller than ``scale``."""
        link = self.next(j)
        f = self.entry(link[1]) if link else None
        return bool(link and link[0] == "space" and f and f.kind == "scale" and f.value >= scale)

    def _split_hundreds(self, e: _Entry, j: int) -> tuple[_Entry, int]:
        """A unit followed by مئة (ست مئة) read as one hundreds element, so that و can join it whole."""
        link = self.next(j)
        f = self.entry(link[1]) if link else None
        if e.kind == "unit" and 3 <= e.value <= 9 and link and link[0] == "space" and f and f.kind == "hundred":
            return _Entry("hundreds", e.value * 100), link[1]
        return e, j

    def _decimal(self, whole: Decimal, i: int, point: int, scale: int) -> _Phrase | None:
        """``X فاصلة Y``: Y is one number (خمسة وسبعين → .75) or digit by digit (صفر خمسة → .05)."""
        link = self.next(point)
        if link is None or link[0] != "space":
            return None
        piece = self.cardinal(link[1], in_fraction=True)
        if piece is None:
            return None
        digits, last = str(int(piece.value)), piece.last
        # Digit by digit while each piece is one digit word: فاصلة صفر خمسة → .05
        while piece is not None and piece.first == piece.last and piece.value < 10:
            link = self.next(last)
            piece = self.cardinal(link[1], in_fraction=True) if link and link[0] == "space" else None
            if piece is not None:
                digits, last = digits + str(int(piece.value)), piece.last
        value = Decimal(f"{whole}.{digits}")
        link = self.next(last)
        e = self.entry(link[1]) if link else None
        if link and link[0] == "space" and e and e.kind == "scale" and e.count != 2 and e.value < scale:
            return _Phrase(value * e.value, i, link[1])  # اثنان فاصلة خمسة مليون
        return _Phrase(value, i, last)

    # -- ordinals and clock --

    def ordinal(self, i: int, *, hour: bool) -> _Phrase | None:
        """An ordinal: alone, as a teen (الحادية عشرة = 11) or with و + tens (الثامن والعشرين = 28)."""
        e = self.items[i].entry
        if e is None:
            return None
        value, end, resolved = e.value, i, not e.weak
        link = self.next(i)
        f = self.entry(link[1]) if link else None
        if link and f and e.value <= 9:
            how, j = link
            if how == "space" and f.kind == "ten":
                value, end, resolved = value + 10, j, True
            elif how == "and" and f.kind == "tens" and (not hour or e.weak):
                value, end, resolved = value + f.value, j, True
        return _Phrase(Decimal(value), i, end) if resolved else None

    def minutes(self, hour: _Phrase) -> tuple[_Phrase, int | None, int]:
        """The clock fraction after an hour: والنصف → 30, والربع → 15, إلا ربعًا → hour - 1 and 45.

        Returns the hour (changed by إلا), the minutes or None, and the index of the last item used.
        """
        link = self.next(hour.last)
        if link is None:
            return hour, None, hour.last
        how, j = link
        e = self.items[j].entry
        if how == "and" and e is not None and e.kind == "fraction" and not self._heads_a_phrase(j):
            return hour, e.minutes, j
        if how == "space" and e is not None and e.kind == "except":
            after = self.next(j)
            f = self.entry(after[1]) if after else None
            earlier = _Phrase(Decimal(int(hour.value) - 1 if hour.value > 1 else 12), hour.first, hour.last)
            if after and after[0] == "space" and f and f.kind == "fraction" and f.minutes in (15, 20):
                return earlier, 60 - f.minutes, after[1]
            short = self._minutes_short(after[1]) if after and after[0] == "space" else None
            if short is not None:
                return earlier, 60 - short[0], short[1]
        return hour, None, hour.last

    def _minutes_short(self, j: int) -> tuple[int, int] | None:
        """(minutes, last item) of what إلا takes off the hour: خمس دقائق, عشرًا, دقيقتين, دقيقة."""
        item = self.items[j]
        if item.entry is None and not item.prefix:
            if item.key in _MINUTE_DUALS:
                return 2, j
            if item.key == _MINUTE:
                return 1, j
            return None
        count = self.cardinal(j)
        if count is None or not 1 <= count.value <= 30 or count.value != count.value.to_integral_value():
            return None
        noun = self._link_word(count.last, {_MINUTE, *_MINUTE_PLURALS})
        return int(count.value), count.last if noun is None else noun

    def _heads_a_phrase(self, j: int) -> bool:
        """True when a fraction without the article governs the definite noun after it (ونصف الطلاب:
        "and half of the students"): then it is no part of the time before it."""
        if _has_article(self.items[j].prefix):
            return False
        link = self.next(j)
        if link is None or link[0] != "space":
            return False
        noun = self.items[link[1]]
        # Words outside the lexicon carry no parsed clitic: their article is read off the spelling.
        return _has_article(noun.prefix) or (noun.entry is None and noun.key.startswith("ال") and len(noun.key) > 3)

    def _number_follows(self, k: int) -> bool:
        """Whether a number comes right after items[k] (past spaces, a colon or و): the minutes."""
        if k + 1 >= len(self.items):
            return False
        nxt = self.items[k + 1]
        gap = self.text[self.items[k].end : nxt.word_start]
        return nxt.entry is not None and nxt.entry.kind not in ("and", "except") and set(gap) <= set(" :\u00a0")

    def _told_as_time(self, i: int) -> bool:
        """True when a feminine ordinal with the article is followed by إلا, والنصف/والربع/والثلث or
        و and minutes: الثالثة إلا خمس دقائق is a time of day even where no ساعة is said."""
        hour = self.ordinal(i, hour=True) if _has_article(self.items[i].prefix) else None
        link = self.next(hour.last) if hour is not None else None
        if link is None:
            return False
        following = self.items[link[1]]
        if link[0] == "space":
            return following.entry is not None and following.entry.kind == "except"
        if following.entry is not None and following.entry.kind == "fraction":
            return _has_article(following.prefix)
        minutes = self.cardinal(link[1])  # الثالثة وخمس دقائق
        return minutes is not None and self._link_word(minutes.last, {_MINUTE, *_MINUTE_PLURALS}) is not None

    def _after_hour_noun(self, i: int) -> bool:
        """True when items[i] follows الساعة directly: الساعة ثلاثة is an hour."""
        if i == 0:
            return False
        before = self.items[i - 1]
        return (
            self._is_hour_noun(before.key)
            and _has_article(before.key[: -len(_HOUR_NOUN)])
            and self._spaces(before.end, self.items[i].word_start)
        )

    # -- the whole transcript --

    def read(self) -> list[NumberToken]:
        tokens: list[NumberToken] = []
        hour_last = -2  # the last item of the latest hour read
        i = 0
        while i < len(self.items):
            item = self.items[i]
            e = item.entry
            clock = item.sentence in self.clock
            phrase: _Phrase | None = None
            hour = False
            reading = self._fraction_reading(i) or self._score_word(i)
            if reading is not None:
                found, last = reading
                if self._after_minus(i):  # سالب ثلاثة أرباع: the fraction is negative, said on its value
                    found = [replace(t, value=_negate(t.value)) if t.unit != "/" or t is found[0] else t for t in found]
                ratio = self._ratio_after(last)
                if ratio is not None:
                    found, last = _per(found, ratio[0]), ratio[1]
                tokens.extend(found)
                i = last + 1
                continue
            if e is None and (homograph := self._homograph_fraction(i, i)):
                tokens.extend(homograph)  # ثمن: a price, or an eighth where the text writes a fraction
                i += 1
                continue
            if e is None:
                counted = self._counted_noun_alone(i)
                if counted is not None:
                    found, i = counted
                    tokens.extend(found)
                    continue
            elif e.kind == "digits":
                phrase, hour = self._digits(i), clock
            elif e.kind == "ordinal":
                hour = e.feminine and (clock or self._told_as_time(i))
                phrase = self.ordinal(i, hour=hour)
            else:
                one = e.kind == "unit" and e.value == 1 and _has_article(item.prefix)  # الواحدة
                hour = (clock and (self._after_hour_noun(i) or one)) or (one and self._told_as_time(i))
                phrase = self.cardinal(i, hour=hour)
            if phrase is None:
                i += 1
                continue
            minute, last = None, phrase.last
            if hour and phrase.value == phrase.value.to_integral_value() and 0 <= phrase.value <= 24:
                phrase, minute, last = self.minutes(phrase)
            # A digit run read as written keeps its leading zeros (a phone number's 0).
            as_written = item.digits is not None and phrase.last == i and phrase.value == Decimal(item.digits)
            value = item.digits if as_written and item.digits else _format(phrase.value)
            end = self.items[phrase.last].end
            if not hour and (priced := self._with_sub_units(phrase)) is not None:
                # خمسة ريالات وعشرون هللة: 5.20, said in riyals and halalas.
                value, last = _format(priced[0]), priced[1]
                end = self.items[last].end
            below = self._below_zero(last)
            if below is not None:
                last, end = below, self.items[below].end
            if self._after_minus(i) != (below is not None):
                value = value[1:] if value.startswith("-") else "-" + value
            if not hour and (counted := self._sub_unit_count(value, i, last)) is not None:
                tokens.extend(counted[0])  # خمسون فلسًا: 50 fils, and 0.05 where the dinar is named
                i = counted[1] + 1
                continue
            found = [NumberToken(value, item.start, end), *self._homograph_fraction(i, phrase.last)]
            if hour:
                found += self._afternoon(phrase, value, item.start, end)
            ratio = self._ratio_after(last)
            if ratio is not None:
                tokens.extend(_per(found, ratio[0]))
                i = ratio[1] + 1
                continue
            tokens.extend(found)
            if i == hour_last + 1 and item.prefix == "و" and len(value) == 1:
                # minutes after the hour (السادسة وخمس دقائق): 6:05 writes them with two digits
                tokens.append(NumberToken("0" + value, item.start, self.items[phrase.last].end))
            if hour:
                hour_last = last
            if hour and minute is None and value.isdigit() and int(value) <= 24 and not self._number_follows(last):
                # الساعة الثالثة: a whole hour, 3:00 (the 00 never runs into the hour: 300 it is not)
                tokens.append(NumberToken("00", end, end, joins=False))
            if minute is not None:
                # over every word from the one after the hour (إلا خمس دقائق), so none is left unread
                said_from = self.items[min(phrase.last + 1, last)].start
                tokens.append(NumberToken(str(minute), said_from, self.items[last].end))
            elif not hour and (fraction := self._fraction_after_counted(phrase.last)) is not None:
                # ثلاث ساعات ونصف: three hours and a half, 3.5 (kept next to the plain 3).
                amount, fraction_end = fraction
                tokens.append(NumberToken(_format(phrase.value + amount), item.start, fraction_end))
            i = last + 1
        return tokens

    # -- fractions: ثلاثة أرباع, ثلثين, سبعة عشر على ثلاثة, mixed numbers, و … من مئة --

    def _simple_fraction(self, j: int) -> _Fraction | None:
        """A fraction starting at items[j]: a bare one (نصف, ثلثين), a count of parts (ثلاثة أرباع)
        or a count over a count (سبعة عشر على ثلاثة)."""
        item = self.items[j]
        e = item.entry
        if e is None:
            return None
        if e.kind == "fraction" and e.denominator and not _has_article(item.prefix):
            return _Fraction(e.numerator, e.denominator, (j, j), (j, j), j)
        if e.kind not in _COUNTING_KINDS or e.kind == "digits":
            return None
        count = self.cardinal(j, in_fraction=True)
        if count is None or count.value != count.value.to_integral_value():
            return None
        link = self.next(count.last)
        f = self.entry(link[1]) if link else None
        if link and link[0] == "space" and f is not None and f.kind == "parts":
            return _Fraction(int(count.value), f.denominator, (j, count.last), (link[1], link[1]), link[1])
        over = self._link_word(count.last, {_OVER})
        below = self.next(over) if over is not None else None
        if below is None or below[0] != "space":
            return None
        denominator = self.cardinal(below[1], in_fraction=True)
        if denominator is None or denominator.value == 0:
            return None
        span = (below[1], denominator.last)
        return _Fraction(int(count.value), int(denominator.value), (j, count.last), span, denominator.last, over=True)

    def _fraction_reading(self, i: int) -> tuple[list[NumberToken], int] | None:
        """Tokens and last item of a fraction, a mixed number or a decimal said in hundredths at items[i]."""
        e = self.items[i].entry
        if e is None or self.items[i].prefix not in ("", "ب", "ل", "و"):
            return None
        if e.kind == "fraction" and self.items[i].prefix == "و":
            return None  # ونصف after something: read with what it qualifies
        fraction = self._simple_fraction(i)
        if fraction is not None:
            return self._fraction_tokens(fraction, None)
        if e.kind == "digits":
            return self._written_fraction(i)
        if e.kind not in (*_COUNTING_KINDS, "scale"):
            return None
        whole = self.cardinal(i)
        if whole is None:
            return None
        hundredths = self._in_hundredths(i, whole)
        if hundredths is not None:
            return hundredths
        link = self.next(whole.last)
        if link is None or link[0] != "and" or whole.value != whole.value.to_integral_value():
            return None
        fraction = self._simple_fraction(link[1])
        if fraction is None:
            return None
        return self._fraction_tokens(fraction, whole)

    def _homograph_fraction(self, i: int, last: int) -> list[NumberToken]:
        """خمس is five or, with other vowels, a fifth (خُمس); سبعين seventy or two sevenths. Without
        marks a transcript cannot tell, so the fraction's parts and value are given too, counted in
        ``/``: they stand only for a fraction the text writes."""
        item = self.items[i]
        parts = _HOMOGRAPH_FRACTIONS.get(item.key) if i == last and not item.prefix else None
        if parts is None:
            return []
        numerator, denominator = parts
        value = _finite(Decimal(numerator) / Decimal(denominator), denominator)
        as_value = [NumberToken(_format(value), item.start, item.end, "/")] if value is not None else []
        return [
            NumberToken(str(numerator), item.start, item.start, "/", joins=False),
            NumberToken(str(denominator), item.start, item.end, "/", joins=False),
            *as_value,
        ]

    def _written_fraction(self, i: int) -> tuple[list[NumberToken], int] | None:
        """3/4 and 5 2/3 as written: the parts, counted in ``/``, and the value where it is finite."""
        whole = None
        j = i
        link = self.next(i)
        if link is not None and link[0] == "space" and self.items[link[1]].digits is not None:
            whole, j = _Phrase(Decimal(self.items[i].digits or "0"), i, i), link[1]
        top, k = self.items[j], j + 1
        if k >= len(self.items) or self.items[k].digits is None or self.text[top.end : self.items[k].start] != "/":
            return None
        numerator, denominator = int(top.digits or "0"), int(self.items[k].digits or "0")
        if denominator == 0 or "." in f"{top.digits}{self.items[k].digits}":
            return None
        if self.text[top.start - 1 : top.start] == "/" or self.text[self.items[k].end : self.items[k].end + 1] == "/":
            return None  # 28/5/2026 is a date
        return self._fraction_tokens(_Fraction(numerator, denominator, (j, j), (k, k), k), whole)

    def _fraction_tokens(self, fraction: _Fraction, whole: _Phrase | None) -> tuple[list[NumberToken], int]:
        """The parts as said (counted in ``/``: they stand only for a fraction the text writes) and,
        where it is finite, the value over the same words, times a scale word after it."""
        unit = "" if fraction.over else "/"  # ثلاثة على واحد may be a score: its parts are plain
        spans = [fraction.numerator_span, fraction.denominator_span]
        values = [fraction.numerator, fraction.denominator]
        if whole is not None:
            spans.insert(0, (whole.first, whole.last))
            values.insert(0, int(whole.value))
        tokens = [
            NumberToken(str(v), self.items[a].start, self.items[b].end, unit, joins=False)
            for v, (a, b) in zip(values, spans, strict=True)
        ]
        if fraction.numerator_span == fraction.denominator_span:
            # ثلثين says both parts in one word: the numerator is given no width, so that the two
            # tokens do not overlap (overlapping tokens are other readings of the same words)
            tokens[-2] = replace(tokens[-2], end=tokens[-2].start)
        last = fraction.last
        value = _finite(Decimal(fraction.numerator) / Decimal(fraction.denominator), fraction.denominator)
        if value is not None:
            link = self.next(last)
            scale = self.entry(link[1]) if link and link[0] == "space" else None
            if link and scale is not None and scale.kind == "scale" and scale.count == 1 and whole is None:
                value, last = value * scale.value, link[1]
            total = value + (whole.value if whole is not None else 0)
            first = spans[0][0]
            tokens.append(NumberToken(_format(total), self.items[first].start, self.items[last].end))
        return tokens, last

    def _in_hundredths(self, i: int, phrase: _Phrase) -> tuple[list[NumberToken], int] | None:
        """ستة وثمانية وثمانون من مئة: a whole, و, and a count of tenths, hundredths … (6.88).

        Where the words split more than one way (مئة وواحد وخمسون من مئة: 101.50 or 100.51), each
        way is a reading of its own, over the same words.
        """
        tokens: list[NumberToken] = []
        last = -1
        for limit in range(phrase.last, i - 1, -1):
            whole = self.cardinal(i, limit=limit)
            link = self.next(limit)
            if whole is None or whole.last != limit or link is None or link[0] != "and":
                continue
            part = self.cardinal(link[1])
            denominator = self._denominator_after(part.last) if part is not None else None
            if part is None or denominator is None or not 0 <= part.value < denominator.value:
                continue
            value = whole.value + part.value / denominator.value
            tokens.append(NumberToken(_format(value), self.items[i].start, self.items[denominator.last].end))
            last = max(last, denominator.last)
        return (tokens, last) if tokens else None

    def _denominator_after(self, k: int) -> _Phrase | None:
        """من عشرة / مئة / ألف / عشرة آلاف after items[k]: the power of ten a count of decimals is in."""
        of = self._link_word(k, {_OF})
        link = self.next(of) if of is not None else None
        e = self.entry(link[1]) if link and link[0] == "space" else None
        if link is None or e is None:
            return None
        j = link[1]
        if e.kind == "ten":
            scaled = self.next(j)
            f = self.entry(scaled[1]) if scaled and scaled[0] == "space" else None
            if scaled and f is not None and f.kind == "scale" and f.value == 1000 and f.count == 0:
                return _Phrase(Decimal(10000), j, scaled[1])  # عشرة آلاف
            return _Phrase(Decimal(10), j, j)
        if e.kind == "hundred" or (e.kind == "scale" and e.value == 1000 and e.count == 1):
            return _Phrase(Decimal(e.value), j, j)
        return None

    def _score_word(self, i: int) -> tuple[list[NumberToken], int] | None:
        """A score said with its words: بثلاثية نظيفة (3-0), بهدفين نظيفين (2-0), the هدف after
        مقابل (هدفين مقابل هدف: 2-1) and مقابل لا شيء (0)."""
        item = self.items[i]
        stem = item.key[1:] if item.key.startswith("ب") and item.key[1:] in _SCORE_WORDS else item.key
        if item.entry is None and stem in _SCORE_WORDS:
            goals = NumberToken(str(_SCORE_WORDS[stem]), item.start, item.end)
            clean = self._link_word(i, _CLEAN_SHEET)
            if clean is not None:
                return [goals, NumberToken("0", self.items[clean].start, self.items[clean].end)], clean
            if self._link_word(i, {_AGAINST}) is not None:
                return [goals], i
        before = self.items[i - 1] if i > 0 else None
        if before is None or before.key != _AGAINST or not self._spaces(before.end, item.word_start):
            return None
        if item.entry is None and item.key in _SCORE_WORDS:
            return [NumberToken(str(_SCORE_WORDS[stem]), item.start, item.end)], i
        if item.key == _NOTHING and self._link_word(i, {fold("شيء")}) is not None:
            return [NumberToken("0", item.start, self.items[i + 1].end)], i + 1
        return None

    def _ratio_after(self, last: int) -> tuple[str, int] | None:
        """(unit, last item) of the ratio said after items[last]: في المئة (%), بالألف / في الألف (‰), or
        a sign written next to the digits (5%, %5, ٪, ‰)."""
        link = last + 1
        if link < len(self.items) and self._spaces(self.items[last].end, self.items[link].word_start):
            key = self.items[link].key
            if key in _RATIO_WORDS:
                return _RATIO_WORDS[key], link
            if key == _PERCENT_AFTER and link + 1 < len(self.items):
                per = self.items[link + 1].key
                if per in _RATIO_NOUNS and self._spaces(self.items[link].end, self.items[link + 1].word_start):
                    return _RATIO_NOUNS[per], link + 1
        said = self.items[last]
        after = self.text[said.end : said.end + 1]
        before = self.text[said.start - 1 : said.start] if said.start else ""
        if said.digits is not None and (after in _RATIO_SIGNS or before in _RATIO_SIGNS):
            return _RATIO_SIGNS[after or before] if after in _RATIO_SIGNS else _RATIO_SIGNS[before], last
        return None

    def _afternoon(self, phrase: _Phrase, value: str, start: int, end: int) -> list[NumberToken]:
        """The hour 12 hours on (الثالثة is 15:00 as often as 3:00), unless a morning word follows it."""
        if not value.isdigit() or not 1 <= int(value) <= 11:
            return []
        sentence = self.items[phrase.last].sentence
        following = self.items[phrase.last + 1 : phrase.last + 6]
        if any(it.key in _MORNING_WORDS and it.sentence == sentence for it in following):
            return []
        return [NumberToken(str(int(value) + 12), start, end)]

    def _fraction_of_scale(self, i: int) -> tuple[NumberToken, int] | None:
        """نصف مليون (500000), ربع مليون (250000): a bare half or quarter of a scale word after it."""
        item = self.items[i]
        e = item.entry
        link = self.next(i)
        scale = self.entry(link[1]) if link and link[0] == "space" else None
        if e is None or e.fraction is None or item.prefix or scale is None or scale.kind != "scale" or scale.count != 1:
            return None
        last = link[1]  # type: ignore[index]
        return NumberToken(_format(e.fraction * scale.value), item.start, self.items[last].end), last

    def _link_word(self, k: int, forms: set[str], how: str = "space") -> int | None:
        """Index of the item after items[k] when it is joined by ``how`` and one of ``forms`` (folded)."""
        if how == "space":
            # Any following word, whatever clitic the lexicon saw in it (الصفر is ال + صفر).
            j = k + 1
            if j >= len(self.items) or not self._spaces(self.items[k].end, self.items[j].word_start):
                return None
            stem = self.items[j].key
        else:
            link = self.next(k)
            if link is None or link[0] != how:
                return None
            j = link[1]
            stem = self.items[j].key[len(self.items[j].prefix) :]
        return j if stem in forms or (stem.endswith("ا") and stem[:-1] in forms) else None

    def _below_zero(self, last: int) -> int | None:
        """The last item of "(درجات) تحت الصفر" / "دون الصفر" after items[last]: the number is negative."""
        k = self._link_word(last, _DEGREE_WORDS)
        below = self._link_word(last if k is None else k, _BELOW_WORDS)
        return None if below is None else self._link_word(below, _ZERO_WORDS)

    def _with_sub_units(self, phrase: _Phrase) -> tuple[Decimal, int] | None:
        """(amount, last item) of a whole amount and its sub-units: ثلاثة دولارات وخمسون سنتًا = 3.50."""
        currency = self._link_word(phrase.last, set(_CURRENCY_FORMS))
        if currency is None or phrase.value != phrase.value.to_integral_value():
            return None
        return self._and_sub_units(phrase.value, currency)

    def _and_sub_units(self, whole: Decimal, currency: int) -> tuple[Decimal, int] | None:
        """(amount, last item) of ``whole`` units of the currency named at items[currency] and the
        sub-units after it: ديناران ومئتان وخمسون فلسًا = 2.250 (1000 fils to the dinar).

        The sub-unit's count is a number under its divisor. Said without the sub-unit's name
        (درهم إماراتي وعشرون), the count is in hundredths, for the currencies that have them only.
        """
        named = self.items[currency].key
        unit = _CURRENCY_FORMS.get(named, _CURRENCY_FORMS.get(named[:-1]))
        adjective = self._link_word(currency, _NATIONALITIES)
        link = self.next(currency if adjective is None else adjective)
        if link is None or link[0] != "and":
            return None
        count = self.cardinal(link[1])
        if count is None or count.value != count.value.to_integral_value():
            return None
        sub = self._link_word(count.last, set(_SUB_UNIT_FORMS))
        if sub is None:
            said_alone = count.last + 1 >= len(self.items) or self.next(count.last) is None
            if not said_alone or unit not in _HUNDREDTHS_CURRENCIES or not 0 < count.value < 100:
                return None
            return whole + count.value / 100, count.last
        noun = self.items[sub].key
        divisor = _divisor(_SUB_UNIT_FORMS.get(noun, _SUB_UNIT_FORMS.get(noun[:-1], "")), unit)
        if divisor is None or not 0 < count.value < divisor:
            return None
        return whole + count.value / divisor, sub

    def _sub_unit_count(self, value: str, i: int, last: int) -> tuple[list[NumberToken], int] | None:
        """خمسون فلسًا, تسعة وتسعون سنتًا: a count of sub-units alone. It is that count, in the
        sub-unit (it stands for a value the text writes in fils), and, where the transcript says
        which currency (or the sub-unit divides only one way), the amount in the unit: 0.99."""
        sub = self._link_word(last, set(_SUB_UNIT_FORMS))
        if sub is None or not value.isdigit():
            return None
        noun = self.items[sub].key
        singular = _SUB_UNIT_FORMS.get(noun, _SUB_UNIT_FORMS.get(noun[:-1], ""))
        start, end = self.items[i].start, self.items[sub].end
        tokens = [NumberToken(value, start, end, singular)]
        named = {_CURRENCY_FORMS[k] for it in self.items for k in _unclitic(it.key) if k in _CURRENCY_FORMS}
        divisor = _divisor(singular, next(iter(named)) if len(named) == 1 else None)
        if divisor is not None and int(value) < divisor:
            tokens.append(NumberToken(_format(Decimal(value) / divisor), start, end))
        return tokens, sub

    def _after_minus(self, i: int) -> bool:
        """True when ناقص/سالب stands right before items[i]."""
        before = self.items[i - 1] if i > 0 else None
        return before is not None and before.key in _MINUS_WORDS and self._spaces(before.end, self.items[i].word_start)

    def _bare_fraction(self, j: int) -> tuple[Decimal, int] | None:
        """(fraction, end) of ونصف / وربع at items[j] qualifying what precedes it, else None.

        Not with the article (والنصف is clock talk), and not where the fraction heads a phrase of
        its own (ونصف الطلاب: "and half of the students").
        """
        if not 0 <= j < len(self.items):
            return None
        item = self.items[j]
        e = item.entry
        if e is None or e.kind != "fraction" or e.fraction is None or item.prefix != "و" or self._heads_a_phrase(j):
            return None
        return e.fraction, item.end

    def _fraction_after_counted(self, last: int) -> tuple[Decimal, int] | None:
        """The half or quarter after a counted noun that follows a number (ثلاث ساعات ونصف)."""
        link = self.next(last)
        if link is None or link[0] != "space":
            return None
        noun = self.items[link[1]]
        if noun.entry is not None or noun.prefix or noun.key not in _COUNTED_SINGULAR | _COUNTED_PLURAL:
            return None
        after = self.next(link[1])
        return self._bare_fraction(after[1]) if after is not None and after[0] == "and" else None

    def _counted_noun_alone(self, i: int) -> tuple[list[NumberToken], int] | None:
        """A counted noun that says its own count: a dual is two (ساعتين, يومين), and an indefinite
        singular or a dual followed by ونصف/وربع is one or two and that fraction (ساعة ونصف = 1.5).

        Returns the tokens and the index to go on from; a dual with a fraction gives 2 and, over
        the same words, 2.5.
        """
        item = self.items[i]
        stem = item.key[len(item.prefix) :] if _has_article(item.prefix) or not item.prefix else item.key
        dual = stem in _COUNTED_DUAL or item.key in _COUNTED_DUAL
        single = item.key in _COUNTED_SINGULAR and not item.prefix
        if not dual and not single:
            return None
        if stem in _CURRENCY_FORMS and (priced := self._and_sub_units(Decimal(2 if dual else 1), i)) is not None:
            return [NumberToken(_format(priced[0]), item.word_start, self.items[priced[1]].end)], priced[1] + 1
        after = self.next(i)
        fraction = self._bare_fraction(after[1]) if after is not None and after[0] == "and" else None
        tokens = []
        if dual:
            tokens.append(NumberToken("2", item.word_start, item.end))
        if fraction is not None:
            count = Decimal(2 if dual else 1)
            tokens.append(NumberToken(_format(count + fraction[0]), item.word_start, fraction[1]))
            return tokens, after[1] + 1  # type: ignore[index]
        return (tokens, i + 1) if tokens else None

    def _digits(self, i: int) -> _Phrase:
        """A digit run, times a scale word right after it (3 آلاف, ١٫٥ مليون)."""
        digits = self.items[i].digits or "0"
        value = Decimal(digits)
        link = self.next(i)
        e = self.entry(link[1]) if link else None
        if link and link[0] == "space" and e and e.kind == "scale" and e.count != 2:
            return _Phrase(value * e.value, i, link[1])
        return _Phrase(value, i, i)


def _negate(value: str) -> str:
    return value[1:] if value.startswith("-") else "-" + value


def _format(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def parse_numbers(text: str) -> list[NumberToken]:
    """Every number in an Arabic transcript, in order, with its offsets into ``text``."""
    return _Reader(text).read()


#: Lexicon kinds that are no number by themselves: و, إلا, فاصلة, and the fraction plurals (أثمان is
#: also "prices").
_NOT_MATERIAL = ("and", "except", "point", "parts")


def number_material(text: str) -> list[Material]:
    """The number-like material of an Arabic transcript, read by :func:`parse_numbers` or not: each
    digit run and each number word the context leaves a number (not أحد "someone", الاثنين
    "Monday", في المئة). A fraction with a clitic (الربع الأخير, ونصف الطلاب) and a plural scale
    word (ملايين النسمات) say no amount by themselves."""
    found: list[Material] = []
    for item in _items(text):
        entry = item.entry
        if entry is None:
            if any(form in _JOINER_WORDS for form in _unclitic(item.key)):
                found.append(Material(item.word_start, item.end, joiner=True))
            continue
        vague = (entry.kind == "fraction" and item.prefix) or (entry.kind == "scale" and entry.count == 0)
        if entry.weak or entry.kind in _NOT_MATERIAL or vague:
            found.append(Material(item.word_start, item.end, joiner=True))
            continue
        if item.word_start < item.start:  # the clitic (و, ب, ال …) joins, the number word is material
            found.append(Material(item.word_start, item.start, joiner=True))
        found.append(Material(item.start, item.end))
    return found


#: The words a reading takes in around its numbers (و, إلا, من مئة, the currency and its sub-unit,
#: دقائق, في المئة, تحت الصفر, the words of a score …): material only between numbers, never unread
#: by themselves.
_JOINER_WORDS = frozenset(
    {
        *_CURRENCY_FORMS, *_SUB_UNIT_FORMS, *_COUNTED_SINGULAR, *_COUNTED_PLURAL, *_COUNTED_DUAL,
        *_NATIONALITIES, *_DEGREE_WORDS, *_BELOW_WORDS, *_ZERO_WORDS, *_SCORE_WORDS, *_CLEAN_SHEET,
        *_RATIO_NOUNS, *_RATIO_WORDS, *_MINUTE_PLURALS, *_MINUTE_DUALS, *_HOMOGRAPH_FRACTIONS,
        _MINUTE, _AGAINST, _NOTHING, _OF, _OVER, _PERCENT_AFTER, fold("شيء"), "الصفر",
    }
)  # fmt: skip
