"""Chinese text folded before matching: width by NFKC, Traditional to Simplified by OpenCC.

A recognizer may write ``１２３`` for ``123`` or ``兩千零五點三`` for ``两千零五点三``; the Chinese
readers compare characters, so both are folded first. Neither table is ours to write: NFKC
(Unicode) decides width, and OpenCC's ``t2s`` dictionaries (phrases first, then characters)
decide the script. The readers keep character offsets into the caller's text, so folding never
changes the length: a character NFKC would turn into several (``㍿``) is left as it is, and if
OpenCC's phrase conversion changed the length, each character is converted on its own instead.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import opencc


@lru_cache(maxsize=1)
def _converter() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


def _width(ch: str) -> str:
    folded = unicodedata.normalize("NFKC", ch)
    return folded if len(folded) == 1 else ch


def fold_chinese(text: str) -> str:
    """``text`` with full-width forms narrowed and Traditional characters Simplified, same length."""
    narrowed = "".join(_width(ch) for ch in text)
    converter = _converter()
    simplified = str(converter.convert(narrowed))
    if len(simplified) == len(narrowed):
        return simplified
    return "".join(c if len(c := str(converter.convert(ch))) == 1 else ch for ch in narrowed)
