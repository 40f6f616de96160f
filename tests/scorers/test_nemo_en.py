"""English ``numbers`` against NVIDIA NeMo's written ↔ spoken test pairs (see ``nemo_corpus``).

Each value-bearing pair's spoken side must be ``correct`` for its written side, and each
value-changing perturbation of it must not be; the pairs in ``tests/data/nemo-exclusions/en.tsv``
are one grammar's choice rather than a reading, and are printed after the run.
"""

from __future__ import annotations

import pytest
from nemo_corpus import ABSENT, available, load_exclusions, load_pairs, perturbations, written_values

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.numbers import NumbersScorer

LANGUAGE = "en"
NUMBERS = NumbersScorer()
PAIRS = load_pairs(LANGUAGE) if available() else []
EXCLUDED = load_exclusions(LANGUAGE)
pytestmark = pytest.mark.skipif(not available(), reason=ABSENT)


def _judged() -> list[tuple[object, list[str]]]:
    cases = []
    for pair in PAIRS:
        values = written_values(pair.written, pair.cls, LANGUAGE)
        if isinstance(values, list) and not any(ex.claims(pair) for ex in EXCLUDED):
            cases.append((pair, values))
    return cases


CASES = _judged()


def verdict(spoken: str, values: list[str], written: str) -> str:
    return NUMBERS.score(spoken, {"values": values}, ScoreContext(language=LANGUAGE, text=written)).outcome


def test_the_corpus_is_there_and_value_bearing() -> None:
    assert len(CASES) > 500, f"only {len(CASES)} value-bearing English pairs"


@pytest.mark.parametrize(("pair", "values"), CASES, ids=[f"{p.cls}-{p.source}" for p, _ in CASES])  # type: ignore[attr-defined]
def test_the_spoken_side_is_correct_for_the_written_value(pair, values) -> None:  # type: ignore[no-untyped-def]
    assert verdict(pair.spoken, values, pair.written) == "correct", (pair.written, pair.spoken, values)


@pytest.mark.parametrize(("pair", "values"), CASES, ids=[f"{p.cls}-{p.source}" for p, _ in CASES])  # type: ignore[attr-defined]
def test_a_value_changed_in_the_spoken_side_is_never_correct(pair, values) -> None:  # type: ignore[no-untyped-def]
    for kind, changed in perturbations(pair.spoken, pair.written, pair.cls, LANGUAGE):
        assert verdict(changed, values, pair.written) != "correct", (kind, pair.written, changed, values)


@pytest.mark.parametrize("excluded", EXCLUDED, ids=[f"{ex.cls}:{ex.written}" for ex in EXCLUDED])
def test_every_exclusion_is_a_pair_of_the_corpus_still_not_held(excluded) -> None:  # type: ignore[no-untyped-def]
    """An excluded pair must be in the corpus and still fail one of the two checks: once the
    scorer holds it, the entry goes."""
    pair = next((p for p in PAIRS if excluded.claims(p)), None)
    assert pair is not None, f"{excluded} is no pair of the corpus"
    values = written_values(pair.written, pair.cls, LANGUAGE)
    assert isinstance(values, list), f"{excluded}: the written side has no value to judge ({values}): drop it"
    accepted = verdict(pair.spoken, values, pair.written) == "correct"
    changed_accepted = any(
        verdict(changed, values, pair.written) == "correct"
        for _, changed in perturbations(pair.spoken, pair.written, pair.cls, LANGUAGE)
    )
    assert not accepted or changed_accepted, f"{excluded} is held now: drop it from the exclusion list"
