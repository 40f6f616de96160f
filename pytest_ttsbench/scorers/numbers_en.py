"""English number reading: digits and number words in a transcript → values. (Placeholder: digits only.)"""

from __future__ import annotations

import re

from pytest_ttsbench.scorers.numbers import NumberToken

_DIGITS = re.compile(r"-?\d+(?:\.\d+)?")


def parse_numbers(text: str) -> list[NumberToken]:
    return [NumberToken(m.group(), m.start(), m.end()) for m in _DIGITS.finditer(text)]
