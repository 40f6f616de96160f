"""The number grammars have one home per language, and every built-in language takes part in the
``numbers`` scorer's seams (issue 34).

* Every built-in number parser has a material finder, so a reading the parser cannot read is
  ``unknown`` with its span, in every language, not ``wrong``.
* The Chinese colloquial amounts (块/毛/角/分) are read in ``scorers/numbers_zh.py`` only
  (``colloquial_amount``); another scorer that compiled its own pattern would read 三块五 or 五毛
  differently from the ``numbers`` scorer. The package's source is parsed (ast), so a pattern in
  any function or constant is seen.
* Each built-in parser marks a value said per mille or in a sub-unit with its unit, so the
  scorer's unit check (``numbers.usable_tokens``) sees it: 5‰ is never 5%.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pytest_ttsbench
from pytest_ttsbench.scorers.numbers import MATERIAL_FINDERS, PARSERS, parser_for

SCORERS = Path(pytest_ttsbench.__file__).parent / "scorers"
MONEY_GRAMMAR_HOME = "numbers_zh.py"
#: the characters only a colloquial yuan amount pattern holds
_MONEY_MARKS = ("毛", "角")


def _patterns_with_money_marks(source: str) -> list[str]:
    """Every ``re.compile`` argument in ``source`` that holds 毛 or 角."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "compile" and node.args:
            first = node.args[0]
            text = "".join(
                part.value for part in ast.walk(first) if isinstance(part, ast.Constant) and isinstance(part.value, str)
            )
            if any(mark in text for mark in _MONEY_MARKS):
                found.append(text)
    return found


def test_every_built_in_parser_names_its_material() -> None:
    assert set(PARSERS.builtin_names()) <= set(MATERIAL_FINDERS.builtin_names())


def test_the_chinese_money_grammar_has_one_home() -> None:
    elsewhere = {
        path.name: found
        for path in SCORERS.glob("*.py")
        if path.name != MONEY_GRAMMAR_HOME and (found := _patterns_with_money_marks(path.read_text(encoding="utf-8")))
    }
    assert not elsewhere, (
        f"read 块/毛/角 amounts through numbers_zh.colloquial_amount, not a pattern of your own: {elsewhere}"
    )
    assert _patterns_with_money_marks((SCORERS / MONEY_GRAMMAR_HOME).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("language", "per_mille", "in_sub_units"),
    [("zh", "千分之五", "五毛"), ("ar", "خمسة في الألف", "خمسون فلسًا"), ("ar", "5‰", "خمس هللات")],
)
def test_every_parser_marks_ratios_and_sub_units(language: str, per_mille: str, in_sub_units: str) -> None:
    parser = parser_for(language)
    assert parser is not None
    assert "‰" in {token.unit for token in parser(per_mille)}
    assert {token.unit for token in parser(in_sub_units)} - {"", "%", "‰", "‱", "/"}
