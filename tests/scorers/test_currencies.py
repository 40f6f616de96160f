"""The one currency table: CLDR display names (Babel) plus the colloquial names, in every language."""

from __future__ import annotations

import pytest

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.currencies import CURRENCIES, currency_mismatch, names
from pytest_ttsbench.scorers.numbers import NumbersScorer
from pytest_ttsbench.scorers.semantic_zh import CURRENCIES as ZH_CURRENCIES


def test_cldr_names_come_first_then_the_colloquial_ones() -> None:
    assert names("SGD", "zh")[0] == "新加坡元" and "新元" in names("SGD", "zh")
    assert "singapore dollars" in names("SGD", "en")
    assert "جنيه إسترليني" in names("GBP", "ar") and "هللة" in names("SAR", "ar")
    assert {"quid", "pence"} <= set(names("GBP", "en"))


def test_the_chinese_scorer_reads_its_currencies_from_the_same_table() -> None:
    for code, currency in ZH_CURRENCIES.items():
        assert currency.marks == CURRENCIES[code].marks
        assert currency.names == names(code, "zh")


@pytest.mark.parametrize(
    ("written", "transcript", "language", "mismatch"),
    [
        ("S$50", "fifty Singapore dollars", "en", False),
        ("£50", "fifty Singapore dollars", "en", True),
        ("£50", "fifty quid", "en", False),
        ("€5.20", "five euros twenty", "en", False),
        ("50 جنيه إسترليني", "خمسون جنيها إسترلينيا", "ar", False),
        ("50 جنيه إسترليني", "خمسون دولارا", "ar", True),
        ("5.20 ريال", "خمسة ريالات وعشرون هللة", "ar", False),
        ("5.20 ريال", "خمسة دولارات وعشرون سنتا", "ar", True),
    ],
)
def test_a_written_currency_must_be_the_one_heard(written: str, transcript: str, language: str, mismatch: bool) -> None:
    assert (currency_mismatch(written, transcript, language) is not None) == mismatch


def test_another_currency_fails_the_numbers_scorer_in_arabic_sub_units() -> None:
    scorer = NumbersScorer()
    context = ScoreContext(language="ar", text="5.20 ريال")
    assert scorer.score("خمسة ريالات وعشرون هللة", {"values": ["5.20"]}, context).outcome == "correct"
    assert scorer.score("خمسة دولارات وعشرون سنتا", {"values": ["5.20"]}, context).outcome == "wrong"
