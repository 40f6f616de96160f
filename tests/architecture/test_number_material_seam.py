"""Every number a parser reads is number-like material to its language's finder.

The ``numbers`` scorer calls a target ``wrong`` only where no material is left unread
(``scorers/numbers.py``: ``unread_spans``). That holds only if each language's finder names as
material every word its parser can read: a word the parser reads but the finder does not know
would, where the grammar fails on it, vanish instead of making the verdict ``unknown``. This test
holds every registered finder to its parser, on the texts of the language's shipped pack, its
recorded transcripts, NeMo's spoken sides and generated number words, so a language that registers a finder
(``MATERIAL_FINDERS``) is checked as soon as it does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from nemo_corpus import available, load_pairs
from num2words import num2words

from pytest_ttsbench.scorers.numbers import MATERIAL_FINDERS, material_finder_for, parser_for

DATA = Path(__file__).resolve().parents[1] / "data"
PACKS = Path(__file__).resolve().parents[2] / "pytest_ttsbench" / "packs"


def samples(language: str) -> list[str]:
    texts: list[str] = []
    pack = PACKS / f"{language}-numerals" / f"{language}-numerals.yaml"
    if pack.exists():
        texts += [item["text"] for item in yaml.safe_load(pack.read_text(encoding="utf-8"))["items"]]
    recorded = DATA / f"{language}-transcripts.jsonl"
    if recorded.exists():
        for line in recorded.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            texts += [str(value) for key, value in row.items() if key in ("text", "transcript")]
    if available():  # NeMo's spoken sides, where ../shared is here: readings written by others
        texts += [pair.spoken for pair in load_pairs(language)]
    for number in (7, 13, 40, 99, 101, 2026, 45_310, 1_000_001, 3.25, -12):
        try:
            texts.append(num2words(number, lang=language))
            texts.append(num2words(number, lang=language, to="ordinal"))
        except (NotImplementedError, TypeError, ValueError, OverflowError):
            continue
    return texts


@pytest.mark.parametrize("language", MATERIAL_FINDERS.builtin_names())
def test_every_parsed_number_lies_on_material(language: str) -> None:
    parser, finder = parser_for(language), material_finder_for(language)
    assert parser is not None, f"a material finder for {language!r}, which has no number parser"
    for text in samples(language):
        material = [(m.start, m.end) for m in finder(text)]  # joiners too: "one hundred and one"
        for token in parser(text):
            if token.kind == "month":
                continue  # a month's name is a number only for a numeric date's text: never unread
            for at in range(token.start, token.end):
                if text[at].isalnum():
                    assert any(start <= at < end for start, end in material), (
                        f"{language}: {text[token.start : token.end]!r} in {text!r} is read as {token.value}, "
                        f"but its {text[at]!r} is no material to the finder"
                    )


def test_the_scorer_reads_unread_material_through_the_seam() -> None:
    """The numbers scorer asks the finder of the item's language; none other decides unread."""
    source = (Path(__file__).resolve().parents[2] / "pytest_ttsbench" / "scorers" / "numbers.py").read_text()
    assert "material_finder_for(context.language)" in source
    packages = Path(__file__).resolve().parents[2] / "pytest_ttsbench"
    callers = [p for p in packages.rglob("*.py") if "unread_spans(" in p.read_text(encoding="utf-8")]
    assert [p.name for p in callers] == ["numbers.py"], callers
