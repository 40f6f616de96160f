"""English number reading: the numbers in a transcript, as Whisper writes it, as decimal strings.

Whisper writes numbers either as numerals (``$1,299.99``, ``6:30``, ``21st``, ``2.5 million``) or as
words (``twenty-six``, ``nineteen eighty-four``, ``three point one four``), often mixed. Reading
happens in two steps:

1. a lexer cuts the text into numerals, words and single symbols with their character offsets;
2. a small grammar reads numbers off the lexemes: a numeral, optionally scaled (``2.5 million``);
   a phrase of number words built the usual way (units, teens, tens, ``hundred``, then scales in
   falling order, with an optional ``and`` after ``hundred``/``thousand``); a decimal read with
   ``point``; a sign (``minus``, ``negative``, or ``-`` glued to a numeral); ordinals; amounts read
   as ``12 dollars and 99 cents``; clock times written ``9.45pm``.

A phrase stops where English would start a new number, so numbers read in pieces come out in
pieces: ``nineteen eighty-four`` is 19 and 84, ``five five five`` is 5, 5, 5, ``six thirty`` is 6
and 30. The shared matcher in :mod:`pytest_ttsbench.scorers.numbers` joins pieces heard back to
back when an expected value needs it (``1984``), and never across a word such as ``to``.

``oh`` (and the letter ``o``) is a zero only next to another spoken number (``six oh five``,
``nineteen oh five``), never the interjection ``Oh, I see``. A numeral with leading zeros
(``0123``, the ``05`` of ``12:05``) is kept as written: it is a digit string.

Where a transcript can honestly be read two ways the parser returns both readings as overlapping
tokens and the matcher uses at most one of them: ``20 second`` (22nd, or a 20-second delay) and
``23.15`` (a decimal, or the British way of writing the time 23:15).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from pytest_ttsbench.scorers.number_tokens import Material, NumberToken, is_numeral_char

# --- vocabulary ---------------------------------------------------------------------------------

_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {
    "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
    "quadrillion": 10**15, "quintillion": 10**18, "sextillion": 10**21,
    # The Indian numbering system: a lakh is a hundred thousand, a crore ten million ("two lakh",
    # "twenty one crore ninety eight lakh", "one and a half crore rupees").
    "lakh": 10**5, "lakhs": 10**5, "lac": 10**5, "lacs": 10**5, "crore": 10**7, "crores": 10**7,
    "dozen": 12,  # "two dozen", "a dozen", "half a dozen"
}  # fmt: skip
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
    "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90,
    "hundredth": 100, "thousandth": 10**3, "millionth": 10**6, "billionth": 10**9, "zeroth": 0,
}  # fmt: skip
_MONTHS = {
    name: number
    for number, names in enumerate(
        ["january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
         "august aug", "september sept sep", "october oct", "november nov", "december dec"], 1
    )
    for name in names.split()
}  # fmt: skip
#: Decades: "the eighties" (80s), "nineteen eighties" (19 and 80, joined to 1980 by the matcher).
_DECADES = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50,
    "sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip
#: Always zero. ``oh`` and ``o`` are zero only next to another spoken number (see ``_oh_is_zero``).
_ZERO_WORDS = {"zero", "nought", "nil"}  # "nil": British scores ("three nil") and "nil percent"
_OH_WORDS = {"oh", "o"}
_SIGN_WORDS = {"minus", "negative"}
_REPEAT_WORDS = {"double": 2, "triple": 3}  # "double five" in phone numbers: 55
#: Each currency's words, with its sub-units and how many of them make one ("two pounds fifty
#: pence" 2.50, "two dinars and two hundred fifty fils" 2.250). The sub-unit has its own value:
#: "20p" is 0.20 pounds, never 20.
_MONEY: tuple[tuple[frozenset[str], frozenset[str], int], ...] = tuple(
    (frozenset(main.split()), frozenset(sub.split()), per)
    for main, sub, per in (
        ("dollar dollars buck bucks", "cent cents", 100),
        ("euro euros", "cent cents", 100),
        ("pound pounds quid", "penny pence p piastre piastres", 100),
        ("rupee rupees", "paisa paise", 100),
        ("franc francs", "centime centimes rappen", 100),
        ("yuan renminbi", "fen", 100),
        ("ruble rubles rouble roubles", "kopek kopeks kopeck kopecks", 100),
        ("baht", "satang", 100),
        ("riyal riyals rial rials", "halala halalas", 100),
        ("dirham dirhams", "fils", 100),
        ("dinar dinars", "fils", 1000),
        ("yen", "", 1),
        ("won", "", 1),
    )
)
_CURRENCY_WORDS = frozenset().union(*(main for main, _, _ in _MONEY))
#: Sub-units said alone ("fifty cents", "20p"), with how many make one; "fils" is 100 or 1000 to
#: its currency, so alone it is left unread.
_LONE_SUB_UNITS = {
    word: per for _, sub, per in _MONEY for word in sub if word != "fils"
}  # fmt: skip
#: Words after "three pounds forty-five" that leave the forty-five the pence (a rate, a framing
#: word); any other word may be what the forty-five counts ("five dollars twenty people").
_AFTER_UNNAMED_SUB_UNITS = {
    "a", "an", "per", "each", "every", "apiece", "for", "and", "or", "but", "to", "in", "on", "at",
    "with", "plus", "please", "only", "off", "then", "so", "now", "today", "instead", "total", "exactly",
}  # fmt: skip
_MINUS_SIGNS = {"-", "−"}
_HYPHENS = {"-", "‐", "‑", "–"}
#: Words before a decimal that may be a clock time written with a point ("at 23.15", "by 9.30").
_TIME_PREPOSITIONS = {"at", "by", "until", "till", "from", "before", "after", "around"}
#: Words after which "second" is the unit of time, not the ordinal ("a second", "per second").
_SECOND_AS_UNIT_AFTER = {"a", "per", "each", "split", "this", "that", "just"}
#: Clock idioms: "quarter past six" (6:15), "ten to nine" (8:50). "past" names the hour after it;
#: "to"/"till"/"of" the hour the minutes run up to. "to" also joins a range ("ten to twelve
#: weeks"), so a clock reading with it is only an alternative, offered where a time is likely.
_PAST_WORDS = {"past", "after"}
_TO_WORDS = {"to", "till", "til", "of"}
_MINUTE_WORDS = {"minute", "minutes", "min", "mins"}
_OCLOCK = {"o'clock", "o’clock", "oclock"}
#: Noon and midnight are the hour twelve and zero minutes; midnight may also be written 0:00.
_NAMED_HOURS = {"noon": ("12",), "midday": ("12",), "midnight": ("12", "0", "00")}
_SINGULAR_CURRENCY = {"dollar", "buck", "euro", "pound", "quid", "franc", "rupee", "dinar", "riyal", "dirham"}
#: Words that qualify a currency's name between the amount and the name ("four united states dollars").
_CURRENCY_QUALIFIERS = {
    "us", "u", "s", "united", "states", "american", "canadian", "australian", "hong", "kong", "singapore",
    "new", "zealand", "indian", "egyptian", "kuwaiti", "saudi", "swiss", "chinese", "japanese", "korean",
}  # fmt: skip
#: Above every scale word: the smallest scale of a phrase that has none yet.
_NO_SCALE = 10**30
#: Fraction nouns and their denominators, singular (after "one" or "a") and plural (after a count):
#: "one quarter", "a third", "three quarters", "two fifths", "three and two quarters".
_FRACTION_NOUNS = {
    "half": 2, "quarter": 4,
    # Every ordinal from "third" names a part ("a fifth", "three twentieths"); "second" is a unit of time.
    **{word: value for word, value in _ORDINAL_WORDS.items() if value >= 3},
}  # fmt: skip
#: Ordinal words that continue "one" as a number ("one hundredth" is also the 100th).
_ORDINAL_SCALES = frozenset({"hundredth", "thousandth", "millionth", "billionth"})
_PLURAL_FRACTION_NOUNS = {"halves": 2, **{f"{noun}s": den for noun, den in _FRACTION_NOUNS.items() if noun != "half"}}

AtomClass = Literal["zero", "unit", "teen", "tens", "hundred", "scale", "big"]


def _word_atom(word: str) -> tuple[AtomClass, int, bool] | None:
    """(class, value, is_ordinal) of a number word, or None for any other word."""
    if word in _ZERO_WORDS:
        return "zero", 0, False
    if word in _UNITS:
        return "unit", _UNITS[word], False
    if word in _TEENS:
        return "teen", _TEENS[word], False
    if word in _TENS:
        return "tens", _TENS[word], False
    if word == "hundred":
        return "hundred", 100, False
    if word in _SCALES:
        return "scale", _SCALES[word], False
    if word in _ORDINAL_WORDS:
        value = _ORDINAL_WORDS[word]
        return _integer_class(value), value, True
    if word in _DECADES:
        return "tens", _DECADES[word], True  # like an ordinal, nothing follows it in one number
    return None


def _integer_class(value: int) -> AtomClass:
    """The grammar class of an integer: what may follow it in a phrase depends on it."""
    if value == 0:
        return "zero"
    if value < 10:
        return "unit"
    if value < 20:
        return "teen"
    if value < 100:
        # 21..99 end in a unit, so like a unit they take "hundred" but no further unit.
        return "tens" if value % 10 == 0 else "unit"
    if value < 1000:
        return "hundred"
    return "scale" if value in _SCALES.values() else "big"


def _place(value: int) -> int:
    """The place a round number leaves open: 1000 for 2000, 100 for 700, 1 for 76."""
    place = 1
    while value and value % (place * 10) == 0:
        place *= 10
    return place


# --- lexer --------------------------------------------------------------------------------------

_LEXEME = re.compile(
    r"""
    (?P<num>[0-9]{1,2}(?:,[0-9]{2})+,[0-9]{3}(?:\.[0-9]+)?|[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)
    (?:(?P<ord>st|nd|rd|th)\b)?
    | (?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)
    | (?P<sym>\S)
    """,
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True)
class _Lexeme:
    kind: Literal["num", "word", "sym"]
    text: str
    start: int
    end: int
    ordinal: bool = False  # a numeral with st/nd/rd/th

    @property
    def word(self) -> str:
        """The lower-cased word, or "" for numerals and symbols."""
        return self.text.lower() if self.kind == "word" else ""


def _lex(text: str) -> list[_Lexeme]:
    lexemes = []
    for m in _LEXEME.finditer(text):
        if m.group("num") is not None:
            lexemes.append(_Lexeme("num", m.group("num"), m.start(), m.end(), ordinal=bool(m.group("ord"))))
        elif m.group("word") is not None:
            lexemes.append(_Lexeme("word", m.group(), m.start(), m.end()))
        else:
            lexemes.append(_Lexeme("sym", m.group(), m.start(), m.end()))
    return lexemes


# --- values -------------------------------------------------------------------------------------


def _fmt(value: Decimal) -> str:
    """A computed value as a plain decimal string: 2500000, not 2.5E+6 or 2500000.0."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _fraction_value(numerator: Decimal, denominator: int) -> str:
    """numerator/denominator as a decimal string, or as "n/d" where no decimal ends (a third): that
    token never equals a decimal target, yet it reads the words, so they are not left unread."""
    rest = denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest == 1:
        return _fmt(numerator / denominator)
    return f"{_fmt(numerator)}/{denominator}"


def _numeral_value(raw: str) -> str:
    """A numeral as a value string: separators dropped, leading zeros kept (a digit string)."""
    value = raw.replace(",", "")
    return "0" + value if value.startswith(".") else value


@dataclass
class _Phrase:
    """A cardinal being built from atoms (number words, or a numeral followed by scale words).

    ``total`` holds what the scales already closed ("two thousand"), ``group`` the part below the
    last scale ("twenty-six"). ``last`` is the class of the last atom: it decides what may follow.
    """

    start: int
    end: int
    total: int = 0
    group: int = 0
    last: AtomClass | None = None
    smallest_scale: int = _NO_SCALE
    has_hundred: bool = False
    after_numeral: bool = False  # the last atom was a numeral: only "hundred" or a scale may follow
    ordinal: bool = False

    @property
    def value(self) -> int:
        return self.total + self.group

    def accepts(self, cls: AtomClass, value: int) -> bool:
        """Whether an atom continues this number, or starts a new one."""
        if self.last is None:
            return True
        if cls == "scale" and self.after_numeral and self.last == "big":
            return 0 < self.value < value * 1000  # "2,000 million": the numeral times the scale
        if self.ordinal or self.last in ("zero", "big"):
            return False
        if self.after_numeral and cls not in ("hundred", "scale"):
            return False
        if cls == "unit":
            return self.last in ("tens", "hundred", "scale")
        if cls in ("teen", "tens"):
            return self.last in ("hundred", "scale")
        if cls == "hundred":
            return self.last in ("unit", "teen", "tens") and not self.has_hundred and 0 < self.group < 100
        if cls == "scale":
            if self.multiplies_all(value):
                return True
            return self.last != "scale" and self.group > 0 and value < self.smallest_scale
        return False

    def multiplies_all(self, scale: int) -> bool:
        """Whether a scale word multiplies everything said so far, as British English stacks them:
        "four thousand million" (4 * 10**9), "two hundred thousand million", "a million million".

        Only a scale at least as large as the largest one said, over a value below a thousand of
        it, so "two million three thousand" still adds its groups up.
        """
        return self.smallest_scale < _NO_SCALE and scale >= self.smallest_scale and 0 < self.value < scale * 1000

    def add(self, cls: AtomClass, value: int, end: int, *, ordinal: bool = False, numeral: bool = False) -> None:
        if cls == "hundred":
            # A numeral 100..999 is a whole group; the word "hundred" multiplies what came before.
            self.group = value if numeral else (self.group or 1) * 100
            self.has_hundred = True
        elif cls == "scale" and self.multiplies_all(value):
            self.total, self.group = self.value * value, 0
            self.smallest_scale = value
            self.has_hundred = False
        elif cls == "scale":
            self.total += (self.group or 1) * value
            self.group = 0
            self.smallest_scale = value
            self.has_hundred = False
        else:
            self.group += value
        self.last = cls
        self.end = end
        self.ordinal = ordinal
        self.after_numeral = numeral


@dataclass
class _Reading:
    """What was read at one place: the tokens of the main reading, alternatives, where it ended."""

    tokens: list[NumberToken]
    next_index: int
    alternatives: list[NumberToken] = field(default_factory=list)
    integer: bool = False  # a plain cardinal: may take a sign, cents, a decimal part


class _Reader:
    """Reads the numbers of one transcript, left to right."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lex = _lex(text)
        self.last_number_lexeme = -2  # index of the last lexeme that belonged to a number

    # -- lexeme helpers --

    def _word(self, index: int) -> str:
        return self.lex[index].word if 0 <= index < len(self.lex) else ""

    def _gap(self, left: int, right: int) -> str:
        return self.text[self.lex[left].end : self.lex[right].start]

    def _glued(self, left: int, right: int) -> bool:
        return left >= 0 and right < len(self.lex) and self._gap(left, right) == ""

    def _link(self, index: int) -> tuple[int, bool] | None:
        """The lexeme that may continue a number after ``index``, and whether a hyphen joins them.

        Only spaces ("twenty six") or a hyphen glued to a following word ("twenty-six") continue
        a number; any other punctuation ends it.
        """
        nxt = index + 1
        if nxt >= len(self.lex):
            return None
        if (
            self.lex[nxt].text in _HYPHENS
            and self._glued(index, nxt)
            and self._glued(nxt, nxt + 1)
            and self.lex[nxt + 1].kind == "word"
        ):
            return nxt + 1, True
        if self._gap(index, nxt).strip() == "":
            return nxt, False
        return None

    def _linked_word(self, index: int) -> str:
        link = self._link(index)
        return self._word(link[0]) if link else ""

    def _meridiem_after(self, index: int) -> int | None:
        """Index of the last lexeme of "am"/"pm"/"a.m."/"p.m." right after ``index``, if there."""
        link = self._link(index)
        if link is None:
            return None
        j = link[0]
        if self._word(j) in ("am", "pm"):
            return j
        spaced = self._link(j)
        if self._word(j) in ("a", "p") and spaced is not None and not spaced[1] and self._word(spaced[0]) == "m":
            return spaced[0]  # "eleven thirteen a m", "two p m": the letters said one by one
        if (
            self._word(j) in ("a", "p")
            and j + 2 < len(self.lex)
            and self.lex[j + 1].text == "."
            and self._word(j + 2) == "m"
            and self._glued(j, j + 1)
            and self._glued(j + 1, j + 2)
        ):
            return j + 3 if j + 3 < len(self.lex) and self.lex[j + 3].text == "." else j + 2
        return None

    def _percent_after(self, index: int) -> bool:
        link = self._link(index)
        return link is not None and (self.lex[link[0]].text == "%" or self._word(link[0]) in ("percent", "per"))

    def _spoken_digit(self, index: int) -> str | None:
        """The digit a lexeme says when numbers are read digit by digit ("five", "oh", "7")."""
        if not 0 <= index < len(self.lex):
            return None
        lexeme = self.lex[index]
        if lexeme.kind == "num" and len(lexeme.text) == 1 and not lexeme.ordinal:
            return lexeme.text
        word = lexeme.word
        if word in _UNITS:
            return str(_UNITS[word])
        if word in _ZERO_WORDS or word in _OH_WORDS:
            return "0"
        return None

    def _token(self, value: str, first: int, last: int) -> NumberToken:
        return NumberToken(value, self.lex[first].start, self.lex[last].end)

    # -- the grammar --

    def read(self) -> list[NumberToken]:
        tokens: list[NumberToken] = []
        index = 0
        while index < len(self.lex):
            reading = (
                self._clock_idiom(index)
                or self._number(index)
                or self._clock_word(index)
                or self._score_word(index)
                or self._month(index)
            )
            if reading is None:
                index += 1
                continue
            tokens.extend(reading.tokens)
            tokens.extend(reading.alternatives)
            self.last_number_lexeme = reading.next_index - 1
            index = reading.next_index
        return sorted(tokens, key=lambda t: (t.start, t.end))

    def _number(self, index: int) -> _Reading | None:
        """A number starting at ``index`` with its sign and a following "dollars and N cents"."""
        lexeme = self.lex[index]
        negative = False
        start = index
        if lexeme.word in _SIGN_WORDS and (link := self._link(index)) and not link[1]:
            negative, index = True, link[0]
        elif (
            lexeme.text in _MINUS_SIGNS
            and self._glued(index, index + 1)
            and self.lex[index + 1].kind == "num"
            and not (self._glued(index - 1, index) and self.lex[index - 1].kind in ("num", "word"))
        ):
            negative, index = True, index + 1
        reading = self._unsigned(index)
        if reading is None:
            return None
        reading = self._with_cents(reading)
        below = self._below_zero(reading.next_index - 1) if len(reading.tokens) == 1 else None
        if below is not None:
            # "five (degrees) below zero" is -5; the zero names the reference, not a number heard.
            (said,) = reading.tokens
            below_token = NumberToken(said.value, said.start, self.lex[below].end)
            negative, reading = not negative, _Reading([below_token], below + 1)
        if negative:
            if len(reading.tokens) != 1:
                return reading  # a clock time has no sign
            (token,) = reading.tokens
            signed = token.value if token.value.startswith("-") else "-" + token.value
            return _Reading([NumberToken(signed, self.lex[start].start, token.end)], reading.next_index)
        return reading

    def _below_zero(self, last: int) -> int | None:
        """Index of "zero" in "... (degrees) below zero" right after lexeme ``last``, else None."""
        return self._followed_by(last, "below", "zero") or self._followed_by(last, "degrees", "below", "zero")

    def _unsigned(self, index: int) -> _Reading | None:
        lexeme = self.lex[index]
        if lexeme.kind == "num":
            return self._numeral(index)
        word = lexeme.word
        if not word:
            return None
        if word in _REPEAT_WORDS:
            return self._repeated_digit(index)
        if word == "point":
            return self._decimal("0", index, index)
        if word == "half" and (after := self._followed_by(index, "a") or self._followed_by(index, "an")):
            if self._scale_after(after):
                return self._maybe_scaled("0.5", lexeme.start, after)  # "half a million"
            return _Reading([self._token("0.5", index, after)], after + 1)  # "half a litre", "half an hour"
        if word in ("a", "one") and (part := self._fraction(1, lexeme.start, index)) and not self._clock_after(index):
            # "a quarter", "one third", "a quarter of a million", "one half of one percent"
            if word == "one" and self._linked_word(index) in _ORDINAL_SCALES:
                # "one hundredth": the 100th, or a hundredth part; both readings are offered
                one = _Phrase(lexeme.start, lexeme.end)
                one.add("unit", 1, lexeme.end)
                whole = self._phrase(one, index)
                whole.alternatives.extend(part.tokens)
                whole.next_index = max(whole.next_index, part.next_index)  # "of one percent" is the part's
                return whole
            return part
        if word == "a" and self._linked_word(index) in ("hundred", *_SCALES):
            phrase = _Phrase(lexeme.start, lexeme.end)
            phrase.add("unit", 1, lexeme.end)
            return self._phrase(phrase, index)
        if word == "a" and self._linked_word(index) in _SINGULAR_CURRENCY:
            reading = _Reading([self._token("1", index, index)], index + 1)  # "a dollar fifty"
            reading.integer = True
            return reading
        if word == "quarter":
            before_scale = self._followed_by(index, "of", "a") or index
            if self._scale_after(before_scale) is not None:
                return self._maybe_scaled("0.25", lexeme.start, before_scale)  # "a quarter of a million"
            return None
        if word == "hundred" and self._linked_word(index) == "and" and self.last_number_lexeme != index - 1:
            # "the hundred and first", "a hundred and fifty" without the "a": one hundred.
            phrase = _Phrase(lexeme.start, lexeme.end)
            phrase.add("unit", 1, lexeme.start)
            phrase.add("hundred", 100, lexeme.end)
            reading = self._phrase(phrase, index)
            if reading.tokens[0].value != "100":
                return reading
            return None
        if word in _OH_WORDS:
            if not self._oh_is_zero(index):
                return None
            return _Reading([self._token("0", index, index)], index + 1)
        atom = _word_atom(word)
        if atom is None:
            return None
        cls, value, ordinal = atom
        if cls in ("hundred", "scale") and not ordinal:
            return None  # a bare "million" is no number; "a million", "one hundred" are read elsewhere
        if word == "second" and self._second_is_unit(index):
            return None
        phrase = _Phrase(lexeme.start, lexeme.end)
        phrase.add(cls, value, lexeme.end, ordinal=ordinal)
        return self._phrase(phrase, index)

    def _clock_after(self, index: int) -> bool:
        """Whether a clock idiom starts right after ``index`` ("a quarter past six")."""
        link = self._link(index)
        return link is not None and self._clock_idiom(link[0]) is not None

    def _oh_is_zero(self, index: int) -> bool:
        """Whether "oh" is a zero: only inside a run of spoken numbers, right after one or before a digit.

        At the start of a sentence ("Oh five more...") it stays an interjection.
        """
        after_number = self.last_number_lexeme == index - 1 and self._gap(index - 1, index).strip(" -") == ""
        if after_number:
            return True
        if self._word(index - 1) in ("dot", "point") and self.last_number_lexeme == index - 2:
            return True  # "one two three dot o dot four o": the parts of an address read digit by digit
        link = self._link(index)
        if link is None or self._spoken_digit(link[0]) is None:
            return False
        sentence_start = index == 0 or self.lex[index - 1].text in ".!?"
        # At a sentence's start "Oh five more" is an interjection; "oh two three ..." a number
        # read digit by digit.
        second = self._link(link[0])
        return not sentence_start or (second is not None and self._spoken_digit(second[0]) is not None)

    def _second_is_unit(self, index: int) -> bool:
        """Whether "second" is the unit of time ("a second", "one second") rather than 2nd."""
        if index == 0:
            return False
        return self.lex[index - 1].word in _SECOND_AS_UNIT_AFTER or self.last_number_lexeme == index - 1

    def _repeated_digit(self, index: int) -> _Reading | None:
        """A repeated digit in a number read digit by digit: "double five" → 55, "triple oh" → 000."""
        link = self._link(index)
        if link is None or link[1]:
            return None
        digit = self._spoken_digit(link[0])
        if digit is None:
            return None
        value = digit * _REPEAT_WORDS[self.lex[index].word]
        return _Reading([self._token(value, index, link[0])], link[0] + 1)

    def _phrase(self, phrase: _Phrase, index: int) -> _Reading:
        """Extend a phrase whose last lexeme is ``index`` as far as the grammar allows."""
        alternatives: list[NumberToken] = []
        while not phrase.ordinal:
            link = self._comma_after_scale(phrase, index) or self._link(index)
            if link is None:
                break
            nxt, hyphen = link
            word = self._word(nxt)
            if word == "and" and self._and_continues(phrase, nxt):
                index = nxt
                continue
            atom = _word_atom(word) if word else None
            if atom is None:
                break
            cls, value, ordinal = atom
            # "twenty second" / "20 second": the 22nd, or twenty seconds. Keep both readings.
            tens_then_ordinal = phrase.last == "tens" and cls == "unit" and ordinal
            if tens_then_ordinal and (phrase.after_numeral or not hyphen):
                alternatives.append(NumberToken(str(phrase.value), phrase.start, phrase.end))
                phrase.after_numeral = False
            if not phrase.accepts(cls, value):
                break
            phrase.add(cls, value, self.lex[nxt].end, ordinal=ordinal)
            index = nxt
        if phrase.total and not phrase.ordinal and phrase.group == 0 and phrase.last == "scale":
            # "a million and a half": half of the scale just said.
            last = self._followed_by(index, "and", "a", "half")
            if last is not None:
                and_a_half = Decimal(phrase.total) + Decimal(phrase.smallest_scale) / 2
                return _Reading([NumberToken(_fmt(and_a_half), phrase.start, self.lex[last].end)], last + 1)
        if phrase.ordinal:
            return _Reading([NumberToken(str(phrase.value), phrase.start, phrase.end)], index + 1, alternatives)
        fraction = (
            self._half(phrase, index)
            or (self._fraction(phrase.value, phrase.start, index) if phrase.group == phrase.value else None)
            or self._decimal(str(phrase.value), index, None, start=phrase.start)
        )
        if fraction is not None:
            return fraction
        reading = _Reading([NumberToken(str(phrase.value), phrase.start, phrase.end)], index + 1, alternatives)
        reading.integer = True
        return reading

    def _comma_after_scale(self, phrase: _Phrase, index: int) -> tuple[int, bool] | None:
        """The number word after a comma that follows a scale word: "two thousand, one hundred".

        Writers (and num2words) put a comma after the scale, as after the digits of 2,100; the
        number goes on when a smaller group follows.
        """
        comma = index + 1
        if phrase.last != "scale" or comma + 1 >= len(self.lex) or self.lex[comma].text != ",":
            return None
        if not self._glued(index, comma) or self._gap(comma, comma + 1).strip():
            return None
        atom = _word_atom(self._word(comma + 1))
        if atom is None or atom[0] not in ("unit", "teen", "tens"):
            return None
        return comma + 1, False

    def _and_continues(self, phrase: _Phrase, and_index: int) -> bool:
        """Whether "and" continues the phrase: only after "hundred" or a scale, before a smaller number.

        So "two thousand and twenty-six" is one number, while "two thousand and three thousand"
        and "ten and twelve" stay two.
        """
        if phrase.last not in ("hundred", "scale"):
            return False
        link = self._link(and_index)
        if link is None or link[1]:
            return False
        atom = _word_atom(self._word(link[0]))
        if atom is None or atom[0] not in ("unit", "teen", "tens"):
            return False
        # Look past the small number: if a "hundred" or scale follows, it is a number of its own.
        end = link[0]
        if atom[0] == "tens" and (after := self._link(end)) and self._word(after[0]) in _UNITS:
            end = after[0]
        following = self._linked_word(end)
        if following in _SCALES and phrase.last == "hundred" and _SCALES[following] < phrase.smallest_scale:
            # "(one million,) one hundred and one thousand": the whole group is counted by the scale
            return True
        return following not in ("hundred", *_SCALES)

    def _decimal(self, integer: str, index: int, point: int | None, start: int | None = None) -> _Reading | None:
        """A decimal read as "<integer> point <digits>", digits one by one, then an optional scale.

        ``index`` is the last lexeme of the integer part (or the word "point" itself when there is
        no integer part, then ``point`` is that index).
        """
        if point is None:
            link = self._link(index)
            if link is None or link[1] or self._word(link[0]) != "point":
                return None
            point = link[0]
        digits = ""
        last = point
        while (link := self._link(last)) and not link[1]:
            nxt = link[0]
            lexeme = self.lex[nxt]
            if not digits and lexeme.kind == "num" and lexeme.text.isdigit() and not lexeme.ordinal:
                digits, last = lexeme.text, nxt  # "3 point 14": the fraction written as a numeral
                break
            digit = self._spoken_digit(nxt) if lexeme.kind == "word" else None
            if digit is None:
                break
            digits, last = digits + digit, nxt
        if not digits:
            return None
        begin = self.lex[point].start if start is None else start
        return self._maybe_scaled(f"{integer}.{digits}", begin, last)

    def _scale_after(self, index: int) -> int | None:
        """Index of a scale word ("million") right after ``index``, if there is one."""
        link = self._link(index)
        if link and not link[1] and self._word(link[0]) in _SCALES:
            return link[0]
        return None

    def _maybe_scaled(self, value: str, begin: int, last: int) -> _Reading:
        """A fractional value ending at lexeme ``last``, times a following scale ("2.5 million")."""
        scale = self._scale_after(last)
        if scale is None:
            return _Reading([NumberToken(value, begin, self.lex[last].end)], last + 1)
        scaled = Decimal(value) * _SCALES[self._word(scale)]
        # Stacked scales multiply here as after a whole number: "two point five thousand million".
        while (larger := self._scale_after(scale)) is not None:
            if _SCALES[self._word(larger)] < _SCALES[self._word(scale)]:
                break
            scaled, scale = scaled * _SCALES[self._word(larger)], larger
        return _Reading([NumberToken(_fmt(scaled), begin, self.lex[scale].end)], scale + 1)

    def _followed_by(self, index: int, *words: str) -> int | None:
        """Index of the last of ``words`` when they follow ``index`` one by one, else None."""
        for word in words:
            link = self._link(index)
            if link is None or link[1] or self._word(link[0]) != word:
                return None
            index = link[0]
        return index

    def _fraction_noun(self, index: int, count: int) -> tuple[int, int] | None:
        """(denominator, index) of the fraction noun that follows a count at ``index``: "quarter"
        after one, "quarters" after more ("three quarters", "two fifths"), else None."""
        link = self._link(index)
        if link is None or link[1]:
            return None
        word = self._word(link[0])
        nouns = _FRACTION_NOUNS if count == 1 else _PLURAL_FRACTION_NOUNS
        return (nouns[word], link[0]) if word in nouns and count >= 1 else None

    def _half(self, phrase: _Phrase, index: int) -> _Reading | None:
        """A whole number and a fraction after "and": "two and a half million" → 2500000, "one and
        a half" → 1.5, "one and three quarters" → 1.75, "three and two quarters" → 3.5."""
        link = self._link(index)
        if link is None or link[1] or self._word(link[0]) != "and":
            return None
        count_link = self._link(link[0])
        if count_link is None or count_link[1]:
            return None
        count_at = count_link[0]
        if self._word(count_at) == "a":
            count = 1
        else:
            said = self._unsigned_count(count_at)
            if said is None:
                return None
            count, count_at = said
        noun = self._fraction_noun(count_at, count)
        if noun is None:
            return None
        denominator, last = noun
        value = _fraction_value(Decimal(phrase.value) * denominator + count, denominator)
        if "/" in value:
            return _Reading([NumberToken(value, phrase.start, self.lex[last].end)], last + 1)
        return self._maybe_scaled(value, phrase.start, last)

    def _unsigned_count(self, index: int) -> tuple[int, int] | None:
        """(count, last index) of a small cardinal said with words at ``index`` ("three", "twenty")."""
        atom = _word_atom(self._word(index))
        if atom is None or atom[2] or atom[0] not in ("unit", "teen", "tens"):
            return None
        value, last = atom[1], index
        if atom[0] == "tens" and (nxt := self._link(index)) and self._word(nxt[0]) in _UNITS:
            value, last = value + _UNITS[self._word(nxt[0])], nxt[0]
        return value, last

    def _fraction(self, count: int, start: int, index: int) -> _Reading | None:
        """A count of fraction nouns after lexeme ``index``: "one quarter" 0.25, "three quarters"
        0.75, "a third" 1/3; then "of a million" (scaled), "of one percent" (0.75 percent: the
        "of one" is part of the fraction, not a number of its own), "of a litre" (0.75 litres)."""
        noun = self._fraction_noun(index, count)
        if noun is None:
            return None
        denominator, last = noun
        value = _fraction_value(Decimal(count), denominator)
        of_a = self._followed_by(last, "of", "a") or self._followed_by(last, "of", "an")
        of_one = self._followed_by(last, "of", "one")
        if of_a is not None and self._scale_after(of_a) is not None and "/" not in value:
            return self._maybe_scaled(value, start, of_a)
        if of_one is not None and self._linked_word(of_one) in ("percent", "per"):
            return _Reading([NumberToken(value, start, self.lex[of_one].end)], of_one + 1)
        if of_a is not None and self._linked_word(of_a) not in ("hundred", *_SCALES):
            return _Reading([NumberToken(value, start, self.lex[of_a].end)], of_a + 1)
        return _Reading([NumberToken(value, start, self.lex[last].end)], last + 1)

    def _numeral(self, index: int) -> _Reading:
        lexeme = self.lex[index]
        value = _numeral_value(lexeme.text)
        whole = _Reading([self._token(value, index, index)], index + 1)
        if lexeme.ordinal:
            return whole
        if "." in value:
            return self._decimal_numeral(index, value)
        if len(value) > 1 and value.startswith("0"):
            return whole  # a digit string ("0123"): never scaled or split
        clock = self._clock_numeral(index, value)
        if clock is not None:
            return clock
        number = int(value)
        phrase = _Phrase(lexeme.start, lexeme.end)
        phrase.add(_integer_class(number), number, lexeme.end, numeral=True)
        reading = self._phrase(phrase, index)
        stands_alone = reading.next_index == index + 1 and not (
            self._glued(index, index + 1) and self.lex[index + 1].text in {*_HYPHENS, ":", "/"}
        )
        if stands_alone and self._word(index - 1) == "at":
            # "at 630": Whisper's way of writing the time six thirty, or the number 630. Only after
            # "at": a bare integer is weak evidence ("from 1939" is a year, not 19:39).
            reading.alternatives.extend(self._clock_parts(index, value))
        if stands_alone:
            reading.alternatives.extend(self._place_value_sum(index, number))
        return reading

    def _place_value_sum(self, index: int, number: int) -> list[NumberToken]:
        """Round numerals that add up the way number words do: ``1000 700 76``, ``2,000 and 26``.

        Whisper sometimes turns "one thousand seven hundred seventy-six" into digits piece by
        piece. Each piece after a round numeral must be smaller than the place it fills (700 <
        1000, 76 < 100), optionally after "and". The pieces stay separate numbers too (they are
        read on as usual); their sum is offered as an alternative reading.
        """
        total, last, end = number, index, None
        while total >= 100 and (place := _place(total)) >= 100:
            link = self._link(last)
            if link and not link[1] and self._word(link[0]) == "and":
                link = self._link(link[0])
            if link is None or link[1]:
                break
            rest = self._unsigned(link[0])
            if rest is None or not rest.integer or int(rest.tokens[0].value) >= place:
                break
            total += int(rest.tokens[0].value)
            last, end = rest.next_index - 1, rest.tokens[0].end
        if end is None:
            return []
        return [NumberToken(str(total), self.lex[index].start, end)]

    def _decimal_numeral(self, index: int, value: str) -> _Reading:
        """A numeral with a point: scaled ("2.5 million"), a clock time ("9.45pm"), or a decimal."""
        if self._scale_after(index) is not None:
            return self._maybe_scaled(value, self.lex[index].start, index)
        clock = self._clock_numeral(index, value)
        if clock is not None:
            return clock
        reading = _Reading([self._token(value, index, index)], index + 1)
        if self._word(index - 1) in _TIME_PREPOSITIONS and not self._percent_after(index):
            reading.alternatives.extend(self._clock_parts(index, value))  # "land at 23.15"
        return reading

    def _clock_parts(self, index: int, value: str) -> list[NumberToken]:
        """Hour and minutes of a numeral that may be a clock time without a colon (``9.45``, ``630``).

        Returns nothing when it cannot be one: the minutes must be two digits under 60 and the
        hour 1..23 (a leading "0." is a fraction: 0.05 is never five past midnight).
        """
        if "." in value:
            hour, _, minutes = value.partition(".")
        elif len(value) in (3, 4):
            hour, minutes = value[:-2], value[-2:]
        else:
            return []
        if len(minutes) != 2 or not hour.isdigit() or not 1 <= int(hour) <= 23 or int(minutes) > 59:
            return []
        start = self.lex[index].start
        split = start + len(hour) + (1 if "." in value else 0)
        return [NumberToken(hour, start, start + len(hour)), NumberToken(minutes, split, split + 2)]

    def _clock_numeral(self, index: int, value: str) -> _Reading | None:
        """``9.45pm`` / ``930 pm``: a time, because a meridiem follows. ``7 am`` is just 7."""
        meridiem = self._meridiem_after(index)
        if meridiem is None:
            return None
        parts = self._clock_parts(index, value)
        if not parts or int(parts[0].value) > 12:
            return None
        return _Reading(parts, meridiem + 1)

    def _with_cents(self, reading: _Reading) -> _Reading:
        """An amount read as "12 dollars and 99 cents" is 12.99; "fifty cents" and "20p" are 0.50
        and 0.20 (a sub-unit has its own value: never 50 or 20 of the currency).

        Only when the sub-unit is named: "5 dollars and 20 people" stays 5 and 20. One more reading
        is offered next to the plain numbers: "three dollars fifty" (3.50) when nothing is counted
        after the fifty.
        """
        if not reading.integer:
            return reading
        last = reading.next_index - 1
        link = self._link(last)
        (amount,) = reading.tokens
        if link is not None and self._word(link[0]) in _LONE_SUB_UNITS and self._pence_letter(link[0], amount):
            per = _LONE_SUB_UNITS[self._word(link[0])]
            value = _fmt(Decimal(amount.value) / per)
            return _Reading([NumberToken(value, amount.start, self.lex[link[0]].end)], link[0] + 1)
        currency = self._currency_after(last)
        if currency is None:
            return reading
        subs, per = next((sub, per) for main, sub, per in _MONEY if self._word(currency) in main)
        if self._word(currency + 1) == "sterling" and self._gap(currency, currency + 1).strip() == "":
            currency += 1  # "twelve pounds sterling, fifty pence"
        nxt = self._link(currency)
        comma = nxt is not None and self.lex[nxt[0]].text == "," and self._glued(currency, nxt[0])
        if comma and nxt is not None:
            # "twelve dollars, five cents": a comma only where the sub-unit is named after it.
            nxt = self._link(nxt[0])
        if nxt and self._word(nxt[0]) == "and":
            nxt = self._link(nxt[0])
        if nxt is None or per == 1:
            return reading
        cents = self._unsigned(nxt[0])
        if cents is None or not cents.integer or not 0 < int(cents.tokens[0].value) < per:
            return reading
        value = _fmt(Decimal(amount.value) + Decimal(cents.tokens[0].value) / per)
        if per == 100:
            value = f"{amount.value}.{int(cents.tokens[0].value):02d}"  # "3.50": as written
        after = self._link(cents.next_index - 1)
        if after is not None and self._word(after[0]) in subs:
            return _Reading([NumberToken(value, amount.start, self.lex[after[0]].end)], after[0] + 1)
        counted_after = after is not None and (
            self.lex[after[0]].kind != "sym" and self._word(after[0]) not in _AFTER_UNNAMED_SUB_UNITS
        )
        if not counted_after and not comma and per == 100:
            # "three dollars fifty", "three pounds and forty-five.": the cents go unnamed; unless a
            # word follows that they count.
            cents.alternatives.append(NumberToken(value, amount.start, cents.tokens[0].end))
            return _Reading(reading.tokens + cents.tokens, cents.next_index, reading.alternatives + cents.alternatives)
        return reading

    def _pence_letter(self, index: int, amount: NumberToken) -> bool:
        """Whether a sub-unit word at ``index`` names the sub-unit. Every word does, except "p"
        where it is a letter: in "5 p.m." and in a resolution ("1080p", "ten eighty p"), so "p"
        counts pence only after an amount under 100 that no other number runs into."""
        if self._word(index) != "p":
            return True
        first = next(i for i, lexeme in enumerate(self.lex) if lexeme.start == amount.start)
        runs_in = first > 0 and self.last_number_lexeme == first - 1 and self._gap(first - 1, first).strip() == ""
        return self._meridiem_after(index - 1) is None and int(amount.value) < 100 and not runs_in

    def _currency_after(self, index: int) -> int | None:
        """Index of a currency's name right after ``index``, past words that qualify it
        ("four united states dollars"), else None."""
        link = self._link(index)
        for _ in range(3):
            if link is None or link[1]:
                return None
            word = self._word(link[0])
            if word in _CURRENCY_WORDS:
                return link[0]
            if word not in _CURRENCY_QUALIFIERS:
                return None
            link = self._link(link[0])
        return None

    def _hour_at(self, index: int) -> tuple[int, int] | None:
        """(hour 1..12, last lexeme) of an hour said at ``index`` ("six", "6", "twelve"), else None."""
        if not 0 <= index < len(self.lex):
            return None
        reading = self._unsigned(index)
        if reading is None or not reading.integer or len(reading.tokens) != 1:
            return None
        hour = int(reading.tokens[0].value)
        return (hour, reading.next_index - 1) if 1 <= hour <= 12 else None

    def _clock_idiom(self, index: int) -> _Reading | None:
        """ "quarter past six" (6, 15), "half past six" (6, 30), "ten past nine" (9, 10), "quarter to
        seven" (6, 45), "twenty to nine" (8, 40); the minutes keep two digits ("05").

        With "past" (or after "quarter"/"half") the words can only be a time. "twenty to nine" can
        also be a range, so there the hour-and-minutes reading is an alternative to 20 and 9.
        """
        word = self._word(index)
        plain: list[NumberToken] = []
        half_hour = self._half_hour(index)
        if half_hour is not None:
            return half_hour
        if word in ("quarter", "half"):
            minutes, last_minute, certain = (15 if word == "quarter" else 30), index, True
        else:
            said = self._unsigned(index)
            if said is None or not said.integer or len(said.tokens) != 1:
                return None
            plain, last_minute, certain = list(said.tokens), said.next_index - 1, False
            minutes = int(said.tokens[0].value)
            if not 1 <= minutes <= 30:
                return None
            if (unit := self._link(last_minute)) and self._word(unit[0]) in _MINUTE_WORDS:
                last_minute = unit[0]
        link = self._link(last_minute)
        if link is None or link[1]:
            return None
        relation = self._word(link[0])
        if relation not in _PAST_WORDS | _TO_WORDS or (word == "half" and relation not in _PAST_WORDS):
            return None
        hour_link = self._link(link[0])
        hour = self._hour_at(hour_link[0]) if hour_link and not hour_link[1] else None
        if hour_link is None or hour is None:
            return None
        value, last_hour = hour
        said_hour = self._token(str(value), hour_link[0], last_hour)
        if relation in _TO_WORDS:
            value, minutes = (value - 1 or 12), 60 - minutes
        minute_token = NumberToken(f"{minutes:02d}", self.lex[index].start, self.lex[last_minute].end)
        hour_token = self._token(str(value), hour_link[0], last_hour)
        if certain or relation == "past":
            return _Reading([hour_token, minute_token], last_hour + 1)
        counted = self._word(last_hour + 1).endswith("s") and self._gap(last_hour, last_hour + 1).strip() == ""
        announced = self._word(index - 1) in _TIME_PREPOSITIONS or self._word(last_minute) in _MINUTE_WORDS
        if counted or not (announced or relation in ("till", "til")):
            return None  # "ten to twelve weeks": a range unless a time is announced, or said with "till"
        # "ten till five", "at ten to five": the time 4:50, or the numbers 10 and 5, never half of
        # each (4 and 10, or 5 and 50): the time's minutes reach into the hour word's first letter,
        # so they overlap the hour as said, and the time's hour covers the rest of that word.
        if said_hour.end - said_hour.start > 1:
            minute_token = NumberToken(minute_token.value, minute_token.start, said_hour.start + 1)
            hour_token = NumberToken(hour_token.value, said_hour.start + 1, said_hour.end)
        return _Reading([*plain, said_hour], last_hour + 1, [hour_token, minute_token])

    def _half_hour(self, index: int) -> _Reading | None:
        """British "(at) half six": half past six, 6:30. Only after a word that announces a time."""
        if self._word(index) != "half" or self._word(index - 1) not in _TIME_PREPOSITIONS:
            return None
        link = self._link(index)
        hour = self._hour_at(link[0]) if link and not link[1] else None
        if link is None or hour is None:
            return None
        value, last_hour = hour
        minute = NumberToken("30", self.lex[index].start, self.lex[index].end)
        return _Reading([self._token(str(value), link[0], last_hour), minute], last_hour + 1)

    def _score_word(self, index: int) -> _Reading | None:
        """ "love" right after a number is a score's zero: "six love" is 6-0, "fifteen love" 15-0."""
        hyphen = index >= 2 and self.lex[index - 1].text in _HYPHENS and self._glued(index - 1, index)
        before = index - 2 if hyphen else index - 1
        if self._word(index) != "love" or self.last_number_lexeme != before or self._gap(before, index).strip(" -‐‑–"):
            return None
        return _Reading([self._token("0", index, index)], index + 1)

    def _month(self, index: int) -> _Reading | None:
        """A month's name is its number ("october" 10), kept by the scorer only where the item's
        text writes its date in digits (``NumberToken.kind`` "month")."""
        month = _MONTHS.get(self._word(index))
        if month is None:
            return None
        lexeme = self.lex[index]
        return _Reading([NumberToken(str(month), lexeme.start, lexeme.end, kind="month")], index + 1)

    def _clock_word(self, index: int) -> _Reading | None:
        """ "o'clock" after an hour is zero minutes; "noon"/"midday"/"midnight" are 12 and 00.

        A word that says both hour and minutes gives each its own part of the word's span, so the
        matcher can use both.
        """
        lexeme = self.lex[index]
        if lexeme.word in _OCLOCK and self.last_number_lexeme == index - 1:
            return _Reading([self._token("00", index, index)], index + 1)
        if lexeme.word not in _NAMED_HOURS:
            return None
        hour, *alternatives = _NAMED_HOURS[lexeme.word]
        middle = lexeme.start + 2
        tokens = [NumberToken(hour, lexeme.start, middle), NumberToken("00", middle, lexeme.end)]
        return _Reading(tokens, index + 1, [NumberToken(a, lexeme.start, middle) for a in alternatives])


def parse_numbers(text: str) -> list[NumberToken]:
    """Every number in an English transcript, in text order, with its character span.

    Alternative readings of the same words overlap in span; the matcher uses at most one.
    """
    return _Reader(text).read()


# --- number-like material -----------------------------------------------------------------------

#: Words that count, scale, split or sign a number, whether the grammar reads them or not: a
#: transcript holding one the parser leaves unread is not evidence of a wrong value.
_MATERIAL_WORDS = frozenset(
    {
        *_UNITS, *_TEENS, *_TENS, *_SCALES, *_ZERO_WORDS, *_SIGN_WORDS, "hundred", "point",
        *(word for word in _ORDINAL_WORDS if word != "second"),  # "a second" is a unit of time: below
        *_DECADES, "hundreds", "thousands", "millions", "billions", "trillions", "zillion", "gazillion",
        "dozen", "dozens", "half", "halves", "quarter", "quarters", "thirds", "fourths", "fifths", "sixths",
        "sevenths", "eighths", "ninths", "tenths", "hundredths", "thousandths", "millionths",
    }
)  # fmt: skip
#: Words that change a number right after one: "forty below", "five grand", "six love", "fifty cents".
_MATERIAL_AFTER_NUMBER = frozenset(
    {"below", "grand", "love", "odd", "mille", "mil", *(word for _, sub, _ in _MONEY for word in sub)} - {"p"}
)
#: Words a reading may take in after a number, or not, without changing it ("twenty dollars",
#: "four united states dollars", "six oh five", "one o'clock", "one second", "1080p"): joiners,
#: never unread by themselves.
_COMPANIONS_AFTER_NUMBER = frozenset(
    {*_CURRENCY_WORDS, *_CURRENCY_QUALIFIERS, "sterling", "p", *_OH_WORDS, *_OCLOCK, *_MINUTE_WORDS, "second"}
)
#: ... and right before one: "double five", "oh two three".
_COMPANIONS_BEFORE_NUMBER = frozenset({"double", "triple", *_OH_WORDS})
_NUMBER_START = _MATERIAL_WORDS | _OH_WORDS
#: Letters that scale a numeral glued to it: "5k", "3m", "2bn".
_GLUED_SCALE_LETTERS = frozenset({"k", "m", "b", "bn", "mn"})
#: Fraction nouns right after an ordinal name a part of something else: "the second quarter".
_PERIOD_WORDS = frozenset({"half", "quarter"})
#: Words that sit inside one spoken number: "one and a half crore", "three quarters of a million",
#: "ten to eleven".
_JOINERS = frozenset({"and", "a", "an", "of", "to", "till", "til", "past", "dot"})


def number_material(text: str) -> list[Material]:
    """The number-like material of an English transcript, read by :func:`parse_numbers` or not."""
    lexemes = _lex(text)
    found: list[Material] = []
    kinds: list[str] = []  # per lexeme: "number", "joiner" or ""
    for index, lexeme in enumerate(lexemes):
        word = lexeme.word
        before = [kind for kind in reversed(kinds) if kind != "joiner"][:1] if kinds and kinds[-1] else []
        numeral = lexeme.kind == "num" or any(is_numeral_char(ch) for ch in lexeme.text)
        glued = index > 0 and lexemes[index - 1].kind == "num" and lexemes[index - 1].end == lexeme.start
        period = word in _PERIOD_WORDS and index > 0 and lexemes[index - 1].word in _ORDINAL_WORDS
        second = word == "second" and not (index and lexemes[index - 1].word in _SECOND_AS_UNIT_AFTER)
        following = lexemes[index + 1].word if index + 1 < len(lexemes) else ""
        ahead = lexemes[index + 1].kind == "num" if index + 1 < len(lexemes) else False
        if before == ["number"] and word in _COMPANIONS_AFTER_NUMBER:
            kind = "joiner"
        elif (
            numeral
            or (word in _MATERIAL_WORDS and not period)
            or second
            or (before == ["number"] and word in _MATERIAL_AFTER_NUMBER)
            or (glued and word in _GLUED_SCALE_LETTERS)
        ):
            kind = "number"
        elif word in _JOINERS or (word in _COMPANIONS_BEFORE_NUMBER and (ahead or following in _NUMBER_START)):
            kind = "joiner"
        else:
            kind = ""
        kinds.append(kind)
        if kind:
            found.append(Material(lexeme.start, lexeme.end, joiner=kind == "joiner"))
    return found
