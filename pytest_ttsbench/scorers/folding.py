"""The one text fold per language that every scorer reads through, on both sides of a comparison.

A recognizer, a case author and a typist write the same speech in different code points: a
full-width ``ＬＩＮＥ``, a soft hyphen a word processor left inside a name, a zero-width space
pasted from the web, ``兩比零`` for ``两比零``, a Thai tone mark typed before its vowel, ``๑๐`` or
``١٠`` for ``10``. None of these is something a listener could hear, so none may change a verdict.
:func:`fold_text` removes them all, the same way for every scorer of a language:

* Default_Ignorable_Code_Point (a Unicode property, not a list of ours: the table in
  :mod:`~pytest_ttsbench.scorers.default_ignorables` is generated from ICU or the Unicode
  Character Database) removed;
* NFKC: width, compatibility forms (``ＬＩＮＥ`` → ``LINE``, ``㎞`` → ``km``, Arabic presentation
  forms), except the vulgar fractions (``½``, ``¾``), which NFKC would spell with a fraction slash
  (``1⁄2``) that no number reader reads: they stay one character, a value the readers know;
* every decimal digit (Unicode category Nd: Thai, Arabic-Indic, Devanagari …) → its ASCII digit;
* Chinese (``zh``, ``cmn``): Traditional → Simplified by OpenCC (:mod:`~pytest_ttsbench.scorers.zh_fold`);
* Thai (``th``): one order for the marks stacked on a consonant, sara am composed, ``เเ`` → ``แ``
  (:func:`~pytest_ttsbench.scorers.thai.normalize_spelling`).

:class:`~pytest_ttsbench.scorers.base.Scorer` applies it to the transcript, every string of the
``expect`` block and the item's text before a scorer's own logic runs, so no scorer can skip it
(``tests/architecture/test_folding_seam.py``). The one exception is by design: a ``published``
matcher (:mod:`~pytest_ttsbench.scorers.published`) reproduces a benchmark's harness, whose own
canonicalization (and its gaps) is the point, so it declares ``folding = "published"``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import Any

from pytest_ttsbench.scorers.default_ignorables import DEFAULT_IGNORABLE_RANGES

FRACTION_SLASH = "\u2044"


@cache
def _vulgar_fractions() -> re.Pattern[str]:
    """The characters NFKC would spell with a fraction slash (``½`` → ``1⁄2``), as one character class."""
    fractions = (chr(c) for c in range(0x80, 0x2200) if FRACTION_SLASH in unicodedata.normalize("NFKC", chr(c)))
    return re.compile("([" + "".join(fractions) + "])")


def _nfkc(text: str) -> str:
    """NFKC, leaving each vulgar fraction as the one character it is."""
    parts = _vulgar_fractions().split(text)
    # split with a group: the fractions are at the odd places
    return "".join(part if i % 2 else unicodedata.normalize("NFKC", part) for i, part in enumerate(parts))


@cache
def _ignorable() -> re.Pattern[str]:
    return re.compile("[" + "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in DEFAULT_IGNORABLE_RANGES) + "]+")


# A decimal digit that is not ASCII (Python's \d is Unicode category Nd).
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")


def _ascii_digits(text: str) -> str:
    return _OTHER_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group())), text)


def _chinese(text: str) -> str:
    from pytest_ttsbench.scorers.zh_fold import fold_chinese  # OpenCC's dictionaries load on first use

    return fold_chinese(text)


def _thai(text: str) -> str:
    from pytest_ttsbench.scorers.thai import normalize_spelling

    return normalize_spelling(text)


#: language (a BCP-47 primary subtag) → what it folds besides the rules every language gets
_LANGUAGE_FOLDS: dict[str, Callable[[str], str]] = {"zh": _chinese, "cmn": _chinese, "th": _thai}


def remove_default_ignorables(text: str) -> str:
    """``text`` without the code points whose Unicode property Default_Ignorable_Code_Point is true."""
    return _ignorable().sub("", text)


# An item's text and its expect strings are folded again for every route, protocol and repeat.
@lru_cache(maxsize=8192)
def fold_text(text: str, language: str) -> str:
    """``text`` as every scorer of ``language`` reads it (see the module docstring). Idempotent."""
    text = remove_default_ignorables(text)
    text = _nfkc(text)
    # NFKC maps a few compatibility characters (U+3164, U+FFA0) to default-ignorable ones.
    text = _ascii_digits(remove_default_ignorables(text))
    language_fold = _LANGUAGE_FOLDS.get(language.lower().split("-")[0])
    return language_fold(text) if language_fold else text


def fold_expect(expect: Mapping[str, Any], language: str) -> dict[str, Any]:
    """Every string of an ``expect`` block (nested in lists and mappings) folded for ``language``."""
    return {key: _fold_value(value, language) for key, value in expect.items()}


def _fold_value(value: Any, language: str) -> Any:
    if isinstance(value, str):
        return fold_text(value, language)
    if isinstance(value, Mapping):
        return fold_expect(value, language)
    if isinstance(value, list | tuple):
        return type(value)(_fold_value(v, language) for v in value)
    return value
