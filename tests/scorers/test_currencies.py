"""The one currency table: CLDR display names plus the colloquial names, in every language.

The CLDR names are read at run time from a checked-in table (``scorers/cldr_currency_names.py``,
written by ``scripts/gen_currency_names.py``); Babel is their oracle here, never imported by a run.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from babel.numbers import get_currency_name
from processes import run

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.cldr_currency_names import CLDR_NAMES
from pytest_ttsbench.scorers.currencies import CURRENCIES, Currency, currency_mismatch, names
from pytest_ttsbench.scorers.numbers import NumbersScorer
from pytest_ttsbench.scorers.semantic_zh import CURRENCIES as ZH_CURRENCIES

ROOT = Path(__file__).resolve().parents[2]
#: every language a currency is named in, and ones none is (no CLDR part, no colloquial names)
LANGUAGES = sorted({lang for c in CURRENCIES.values() for lang in (*c.cldr, *c.colloquial)} | {"fr", "th"})


def babel_names(code: str, language: str) -> tuple[str, ...]:
    """The oracle: CLDR's display names through Babel, for the counts 1, 2, 3 and 11 (the plural
    forms one, two, few, many/other), English lower-cased, first seen first, the bare code left out."""
    found: list[str] = []
    for count in (1, 2, 3, 11):
        name = str(get_currency_name(code, count=count, locale=language))
        name = name.lower() if language == "en" else name
        if name != code.lower() and name not in found:
            found.append(name)
    return tuple(found)


def test_the_checked_in_cldr_table_is_what_babel_gives() -> None:
    """Every currency in every language of its ``cldr`` tuple, nothing more; on a failure, rerun
    scripts/gen_currency_names.py (a new currency, a new language, or a Babel with newer CLDR data)."""
    expected = {(code, lang): babel_names(code, lang) for code, c in CURRENCIES.items() for lang in c.cldr}
    assert expected == CLDR_NAMES


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("code", sorted(CURRENCIES))
def test_names_are_cldr_then_colloquial_in_every_language(code: str, language: str) -> None:
    currency = CURRENCIES[code]
    expected = list(babel_names(code, language)) if language in currency.cldr else []
    expected += [n for n in currency.colloquial.get(language, ()) if n not in expected]
    assert names(code, language) == tuple(expected)


def test_a_currency_missing_from_the_cldr_table_says_to_rerun_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CURRENCIES, "XTS", Currency("XTS", ("XTS",), cldr=("fr",)))
    with pytest.raises(LookupError, match=r"XTS in 'fr'.*scripts/gen_currency_names\.py"):
        names.__wrapped__("XTS", "fr")  # uncached: the test currency leaves nothing behind


#: Run in a fresh interpreter with every ``import babel…`` refused (as where Babel is not
#: installed) and recorded: the currency and Chinese scorers import, name and judge currencies.
_WITHOUT_BABEL = """
import json, sys
attempts = []
class NoBabel:
    def find_spec(self, name, path=None, target=None):
        if name == "babel" or name.startswith("babel."):
            attempts.append(name)
            raise ImportError(f"No module named {name!r} (refused by the test)")
sys.meta_path.insert(0, NoBabel())
from pytest_ttsbench.scorers import currencies, semantic_zh
from pytest_ttsbench.scorers.base import ScoreContext
codes = currencies.CURRENCIES
named = {f"{code} {lang}": currencies.names(code, lang) for code in codes for lang in ("en", "ar", "zh")}
mismatch = currencies.currency_mismatch("£50", "fifty singapore dollars", "en")
expect = {"type": "currency", "amount": "50", "currency": "SGD"}
zh = semantic_zh.SemanticScorer().score("五十新加坡元", expect, ScoreContext(language="zh", text="S$50")).outcome
print(json.dumps({"attempts": attempts, "loaded": sorted(m for m in sys.modules if m.split(".")[0] == "babel"),
                  "named": named, "mismatch": mismatch is not None, "zh": zh}))
"""


def test_the_scorers_run_without_babel_and_never_import_it() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = run([sys.executable, "-c", _WITHOUT_BABEL], env=env, cwd=ROOT, timeout=300)
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["attempts"] == [] and report["loaded"] == []
    assert report["named"] == {f"{c} {lang}": list(names(c, lang)) for c in CURRENCIES for lang in ("en", "ar", "zh")}
    assert report["mismatch"] is True and report["zh"] == "correct"


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
