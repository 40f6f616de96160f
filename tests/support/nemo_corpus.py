"""NVIDIA NeMo text processing's written ↔ spoken test pairs as regression cases for ``numbers``.

The corpus (``../shared/data/nemo-tn-tests``, Apache-2.0, its README says how it was obtained)
holds, per language and class, lines ``written~spoken`` (text normalization) and
``spoken~written`` (inverse text normalization), written by people who are not us. For every
value-bearing class each pair becomes an item built the way the packs build theirs: the text is
the written side and the expected values are the written values (a clock time is its hour and
minutes, a telephone number its digit groups, ``$2.5 million`` is 2500000). Its spoken side must
be judged ``correct``, and the spoken side changed in its value (a digit word, a scale word, the
sign, a sub-unit, the currency, the unit) must never be.

Nothing here is English-only: a language takes part by adding its scale words to
:data:`SCALES`, its value-changing substitutions to :data:`PERTURBATIONS`, and its exclusion list
``tests/data/nemo-exclusions/<language>.tsv`` (the pairs that are one grammar's choice rather
than a reading, each with its reason; printed after every run that includes the corpus tests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "nemo-tn-tests"
EXCLUSIONS = Path(__file__).resolve().parents[1] / "data" / "nemo-exclusions"
ABSENT = f"the NeMo test pairs are not at {CORPUS} (../shared is absent here; see its README)"

#: The classes whose pairs carry a value the ``numbers`` scorer judges.
VALUE_CLASSES = ("cardinal", "ordinal", "decimal", "fraction", "money", "measure", "date", "time", "telephone", "range")

#: Per language, the scale words that multiply a written numeral ("$2.5 million", "4 million yuan").
SCALES: dict[str, dict[str, int]] = {
    "en": {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12},
}
#: Per language, the scale letters that multiply an amount of money ("¥30b", "$5k"); elsewhere a
#: letter after a numeral is a unit ("200 m" is metres, "273 K" kelvin).
MONEY_SCALES: dict[str, dict[str, int]] = {
    "en": {"k": 10**3, "m": 10**6, "mn": 10**6, "b": 10**9, "bn": 10**9},
}

#: Per language, kinds of value-changing substitution on the spoken side: (kind, word, replacement).
#: Each kind is applied once, at its first word found in the spoken side.
PERTURBATIONS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "en": (
        *(("digit", a, b) for a, b in zip(
            ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "zero"],
            ["two", "three", "four", "five", "six", "seven", "eight", "nine", "one", "one"], strict=True)),
        *(("tens", a, b) for a, b in zip(
            ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "ten"],
            ["thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "twenty", "eleven"], strict=True)),
        ("scale", "thousand", "million"), ("scale", "million", "billion"), ("scale", "billion", "million"),
        ("scale", "hundred", "thousand"), ("scale", "trillion", "billion"),
        ("sign", "minus", ""), ("sign", "negative", ""),
        ("sub-unit", "cents", "dollars"), ("sub-unit", "cent", "dollar"), ("sub-unit", "pence", "pounds"),
        ("currency", "dollars", "euros"), ("currency", "dollar", "euro"), ("currency", "pounds", "dollars"),
        ("currency", "euros", "pounds"), ("currency", "yen", "won"), ("currency", "won", "yen"),
        ("currency", "yuan", "yen"), ("currency", "rupees", "dollars"),
        ("unit", "kilometers", "miles"), ("unit", "kilometer", "mile"), ("unit", "kilograms", "pounds"),
        ("unit", "kilogram", "pound"), ("unit", "meters", "feet"), ("unit", "meter", "foot"),
        ("unit", "liters", "gallons"), ("unit", "percent", "per mille"), ("unit", "millimeters", "inches"),
    ),
}  # fmt: skip


@dataclass(frozen=True)
class Pair:
    """One written ↔ spoken pair, with where it came from."""

    language: str
    cls: str
    written: str
    spoken: str
    source: str  # "<folder>/<file>:<line>"


@dataclass(frozen=True)
class Exclusion:
    """A pair the scorers are not held to: one grammar's choice rather than a reading, and why."""

    cls: str
    written: str
    spoken: str
    reason: str

    def claims(self, pair: Pair) -> bool:
        return (self.cls, self.written, self.spoken) == (pair.cls, pair.written, pair.spoken)


def available() -> bool:
    return CORPUS.is_dir()


def load_pairs(language: str) -> list[Pair]:
    """Every value-bearing pair of ``language``, both directions, each (class, written, spoken) once."""
    pairs: dict[tuple[str, str, str], Pair] = {}
    for folder, written_left in (("data_text_normalization", True), ("data_inverse_text_normalization", False)):
        for path in sorted((CORPUS / language / folder).glob("test_cases_*.txt")):
            cls = path.stem.removeprefix("test_cases_").removesuffix("_cased")
            if cls not in VALUE_CLASSES:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                left, sep, right = line.partition("~")
                if not sep or not left.strip() or not right.strip():
                    continue
                written, spoken = (left, right) if written_left else (right, left)
                key = (cls, written.strip(), spoken.strip())
                pairs.setdefault(key, Pair(language, *key, f"{folder}/{path.name}:{number}"))
    return list(pairs.values())


def load_exclusions(language: str) -> list[Exclusion]:
    """``tests/data/nemo-exclusions/<language>.tsv``: class, written, spoken and reason, tab-separated."""
    path = EXCLUSIONS / f"{language}.tsv"
    if not path.exists():
        return []
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 4 or not fields[3].strip():
            raise ValueError(f"{path}:{number}: want class, written, spoken and a reason, tab-separated: {line!r}")
        found.append(Exclusion(*(field.strip() for field in fields)))
    return found


# --- the written values -------------------------------------------------------------------------

_NUMERIC_DATE = re.compile(r"(?<![\d.])(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})(?![\d.])")
_CLOCK_SECONDS = re.compile(r"(?<![\d.])(\d{1,2}):(\d{2}):(\d{2})(?![\d:])")
_CLOCK = re.compile(r"(?<![\d.])(\d{1,2})[:.](\d{2})(?![\d:])")
_FRACTION = re.compile(r"(?<![\d/.])(?:(\d+)\s+)?(\d+)/(\d+)(?![\d/])")
_NUMERAL = re.compile(
    r"(?<![\w.,])(?P<sign>(?<![\w)])[-−](?=\d))?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<suffix>st|nd|rd|th|s)?(?P<scale>\s?[^\W\d_]+)?",
    re.IGNORECASE,
)


def _terminating(numerator: int, denominator: int) -> str | None:
    """numerator/denominator as a decimal string, or None when it never ends (1/3)."""
    rest = denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if denominator == 0 or rest != 1:
        return None
    return _plain(Decimal(numerator) / Decimal(denominator))


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def written_values(written: str, cls: str, language: str) -> list[str] | str:
    """The values an item with ``written`` as its text expects, or why it has none to judge."""
    if cls == "telephone":
        return re.findall(r"\d+", written)
    if cls == "date" and (numeric := _NUMERIC_DATE.search(written)):
        # A numeric date's parts as numbers (its month is said as a name or a number, its day as an
        # ordinal: "10/06/2005" is ten, six, 2005 in either order).
        return [str(int(part)) for part in numeric.groups()]
    values: list[str] = []
    text = written
    for clock in _CLOCK_SECONDS.finditer(text):  # a duration or a time to the second: every part a number
        values += [str(int(part)) for part in clock.groups()]
    text = _CLOCK_SECONDS.sub(" ", text)
    clocks = list(_CLOCK.finditer(text)) if cls in ("time", "range") or ":" in text else []
    for clock in clocks:
        # "1:00 am" is said "one a.m.": a whole hour's minutes need not be heard.
        values += [str(int(clock.group(1)))] + ([clock.group(2)] if clock.group(2) != "00" else [])
    text = _CLOCK.sub(" ", text) if clocks else text
    for fraction in _FRACTION.finditer(text):
        whole, numerator, denominator = fraction.groups()
        value = _terminating(int(numerator), int(denominator))
        if value is None:
            return f"{numerator}/{denominator} has no decimal value (a numbers target is a decimal)"
        values.append(_plain(Decimal(whole or 0) + Decimal(value)))
    text = _FRACTION.sub(" ", text)
    scales = {**SCALES.get(language, {}), **(MONEY_SCALES.get(language, {}) if cls == "money" else {})}
    for numeral in _NUMERAL.finditer(text):
        raw = numeral.group("num").replace(",", "")
        value = "0" + raw if raw.startswith(".") else raw
        scale = (numeral.group("scale") or "").strip().lower()
        if scale in scales:
            value = _plain(Decimal(value) * scales[scale])
        if numeral.group("sign"):
            value = "-" + value
        values.append(value)
    return values or "no numeral in the written side"


# --- perturbations --------------------------------------------------------------------------------


#: Kinds that change money: applied to the money class only ("pounds" in "five pounds" of flour is a weight).
MONEY_KINDS = ("sub-unit", "currency")


def perturbations(spoken: str, written: str, cls: str, language: str) -> list[tuple[str, str]]:
    """(kind, changed spoken side) for each kind of value-changing substitution that applies."""
    changed: list[tuple[str, str]] = []
    done: set[str] = set()
    for kind, word, replacement in PERTURBATIONS.get(language, ()):
        if (kind in done and kind != "unit") or (kind in MONEY_KINDS and cls != "money"):
            continue  # each kind once, but every unit word at once ("twelve pounds per pound")
        pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
        if pattern.search(written):
            continue  # a word the written side has too says something besides the value ("One should go")
        # The currency and the unit are changed wherever said; any other word where it is first said.
        result = pattern.sub(replacement, spoken, count=0 if kind in ("currency", "unit") else 1)
        if result == spoken:
            continue
        if kind == "unit" and kind in done:
            changed[-1] = (kind, " ".join(pattern.sub(replacement, changed[-1][1]).split()))
            continue
        changed.append((kind, " ".join(result.split())))
        done.add(kind)
    if "sign" not in done and language in SIGN_WORDS:
        first = re.search(rf"(?<!\w)({'|'.join(SIGNABLE[language])})(?!\w)", spoken, re.IGNORECASE)
        first = None if first is None or re.search(rf"(?<!\w){first.group()}(?!\w)", written, re.I) else first
        if first is not None:  # the sign added where there was none (never before a zero: -0 is 0)
            changed.append(("sign", f"{spoken[: first.start()]}{SIGN_WORDS[language]} {spoken[first.start() :]}"))
    return changed


#: Per language, the word that makes a number negative, and the number words it may be put before.
SIGN_WORDS = {"en": "minus"}
SIGNABLE = {
    "en": (
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    )
}  # fmt: skip


def report_lines(languages: tuple[str, ...]) -> list[str]:
    """The exclusion lists, one line per pair: language, class, the pair and the reason."""
    return [
        f"{language} {ex.cls}: {ex.written!r} ~ {ex.spoken!r}: {ex.reason}"
        for language in languages
        for ex in load_exclusions(language)
    ]
