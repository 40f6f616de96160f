"""What an amount is said in: proportions (percent, per mille) and units (km, miles, °C, pounds).

"5%" read "five per mille" keeps the value 5 but says a tenth of it, as "$5" read "five euros"
keeps the value but not the currency, and "2.5 km" read "two and a half miles" keeps the value
but not the distance. The ``numbers`` scorer checks each dimension the same way as the currency:
when the item's text writes a measure of a dimension (a sign after a numeral, or a word) and the
transcript says measures of that dimension, one of them must be the written one; a transcript
that says none is judged on its values (a recognizer may write "5" for "five percent").
Each language lists its words; the signs are shared.
"""

from __future__ import annotations

import re
from functools import cache

#: dimension → measure → (signs written after a numeral, words per language).
MEASURES: dict[str, dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]]] = {
    "proportion": {
        "percent": (("%", "٪", "％", "﹪"), {"en": ("percent", "per cent", "percentage point", "percentage points")}),
        "per mille": (("‰", "؉"), {"en": ("per mille", "per mil", "per mill", "permille", "per thousand")}),
        "per ten thousand": (("‱",), {"en": ("per ten thousand", "basis point", "basis points", "permyriad")}),
    },
    "length": {
        "kilometre": (("km",), {"en": ("kilometre", "kilometres", "kilometer", "kilometers", "klicks")}),
        "metre": ((" m",), {"en": ("metre", "metres", "meter", "meters")}),
        "decimetre": (
            ("dm",),
            {"en": ("decimetre", "decimetres", "decimeter", "decimeters", "deci metres", "deci meters")},
        ),
        "centimetre": (("cm",), {"en": ("centimetre", "centimetres", "centimeter", "centimeters")}),
        "millimetre": (("mm",), {"en": ("millimetre", "millimetres", "millimeter", "millimeters")}),
        "mile": (("mi",), {"en": ("mile", "miles")}),
        "foot": (("ft",), {"en": ("foot", "feet")}),
        "inch": ((), {"en": ("inch", "inches")}),
        "yard": (("yd",), {"en": ("yard", "yards")}),
    },
    "mass": {
        "kilogram": (("kg", "kgf"), {"en": ("kilogram", "kilograms", "kilo", "kilos")}),
        "gram": ((), {"en": ("gram", "grams", "gramme", "grammes")}),
        "pound": (("lb", "lbs"), {"en": ("pound", "pounds")}),
        "ounce": (("oz",), {"en": ("ounce", "ounces")}),
        "tonne": ((), {"en": ("tonne", "tonnes", "ton", "tons")}),
    },
    "volume": {
        "litre": ((" l", "kl", "hl"), {"en": ("litre", "litres", "liter", "liters")}),
        "millilitre": (("ml", "mL"), {"en": ("millilitre", "millilitres", "milliliter", "milliliters")}),
        "gallon": (("gal",), {"en": ("gallon", "gallons")}),
    },
    "temperature": {
        "celsius": (("°C", "℃"), {"en": ("celsius", "centigrade")}),
        "fahrenheit": (("°F", "℉"), {"en": ("fahrenheit",)}),
    },
    "speed": {
        "km/h": (("km/h", "kph"), {"en": ("kilometres per hour", "kilometers per hour", "kilometres an hour")}),
        "mph": (("mph",), {"en": ("miles per hour", "miles an hour")}),
    },
}


@cache
def _word_pattern(word: str) -> re.Pattern[str]:
    spaced = r"\s+".join(re.escape(part) for part in word.split())
    return re.compile(rf"(?<!\w){spaced}(?!\w)", re.IGNORECASE)


@cache
def _sign_pattern(sign: str) -> re.Pattern[str]:
    """A sign counts after a numeral ("5 km", "12KG", "45%", "2 km³"), never inside a word ("km"
    in "kmart"); a sign written with a leading space needs that space ("5 m" is metres, "$5m"
    is five million)."""
    gap = r"(?:\s?/\s?|\s)" if sign.startswith(" ") else r"(?:\s?/\s?|\s?)"  # "12/kg", "56.3 /km²"
    end = r"(?![^\W\d_²³])" if sign[-1].isalpha() else ""
    scale = rf"(?:\s?(?:{'|'.join(_SCALE_WORDS)}))?"  # "100 million kg"
    return re.compile(rf"\d{scale}{gap}{re.escape(sign.strip())}{end}", re.IGNORECASE)


#: Scale words between a numeral and its unit's sign ("100 million kg").
_SCALE_WORDS = ("thousand", "million", "billion", "trillion")


def said(text: str, language: str, dimension: str) -> set[str]:
    """The measures of ``dimension`` that ``text`` writes or says in ``language`` (a BCP-47 tag)."""
    primary = language.lower().split("-")[0]
    found = set()
    for name, (signs, words) in MEASURES[dimension].items():
        if any(_sign_pattern(s).search(text) for s in signs) or any(
            _word_pattern(w).search(text) for w in words.get(primary, ())
        ):
            found.add(name)
    return found


def measure_mismatch(written: str, transcript: str, language: str) -> tuple[set[str], set[str]] | None:
    """(written measures, heard measures) of the first dimension the transcript says only other
    measures of, else None. The longest name wins where one holds another: "miles per hour" is a
    speed, and says no mile; a dimension whose heard names are all part of a longer one is skipped."""
    for dimension in MEASURES:
        wanted, heard = said(written, language, dimension), said(transcript, language, dimension)
        if wanted and heard and not wanted & heard and not _inside_a_speed(transcript, language, dimension):
            return wanted, heard
    return None


def _inside_a_speed(transcript: str, language: str, dimension: str) -> bool:
    """Whether the lengths a transcript says are those of its speeds ("miles per hour")."""
    if dimension != "length":
        return False
    speeds = [w for _, words in MEASURES["speed"].values() for w in words.get(language.lower().split("-")[0], ())]
    stripped = transcript
    for word in speeds:
        stripped = _word_pattern(word).sub(" ", stripped)
    return not said(stripped, language, "length")
