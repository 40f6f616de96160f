"""Every scorer reads through its language's fold (issue 34, point 2).

:mod:`pytest_ttsbench.scorers.folding` is the one place that decides which differences in how a
text is written cannot be heard (default-ignorable characters, width, digit scripts, Traditional
Chinese, Thai mark order). The :class:`~pytest_ttsbench.scorers.base.Scorer` base class wraps the
``score`` of every subclass so its inputs arrive folded. This test enumerates every scorer the
registry knows (built in or by entry point) and the published matchers beside them, and fails for
any whose ``score`` is not the wrapped one or that does not, when called, fold the transcript,
the ``expect`` block and the item's text. The published matchers are the one named exception:
they reproduce a benchmark's harness, fold and all (tests/scorers/test_published_thai.py and
tests/gating check them against the harness and the published figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from shipped_packs import all_pack_files

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.pipeline.protocol_scoring import _published_scorers
from pytest_ttsbench.scorers import base, folding
from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.registry import SCORERS, get_scorer
from pytest_ttsbench.verdict import Verdict

#: published matchers, which keep their harness's own canonicalization, and why
PUBLISHED_MATCHERS = {
    "readings": "CN-NewsTTS Bench v0.1's score_submission.py (NFKC, upper case, its punctuation list)",
    "keyword": "the Thai keyword bench's eval_keyword.py (its normalize)",
}


def reads_folded(cls: type[Scorer]) -> bool:
    """Whether ``cls.score`` is the base class's folding wrapper around the scorer's logic."""
    return bool(getattr(cls.score, "reads_folded", False))


def test_the_check_sees_a_scorer_that_bypasses_the_fold() -> None:
    class Folded(Scorer):
        def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
            return Verdict("correct", heard=(transcript,))

    class Bypassing(Scorer):
        pass

    def raw(self: Scorer, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        return Verdict("correct", heard=(transcript,))

    Bypassing.score = raw  # type: ignore[method-assign]  # set after the class was made: never wrapped
    assert reads_folded(Folded)
    assert not reads_folded(Bypassing)
    assert Folded().score("ＬＩＮＥ\u00ad", {}, ScoreContext("th")).heard == ("LINE",)


@pytest.mark.parametrize("name", SCORERS.names())
def test_every_registered_scorer_reads_through_the_fold(name: str) -> None:
    cls = type(get_scorer(name))
    assert reads_folded(cls), f"scorer {name!r} ({cls.__module__}) replaced the folding score wrapper"
    assert cls.folding == "language", f"scorer {name!r} opts out of its language's fold"


@pytest.mark.parametrize("name", sorted(_published_scorers()))
def test_only_the_published_matchers_keep_their_harness_fold(name: str) -> None:
    cls = _published_scorers()[name]
    assert reads_folded(cls)
    assert cls.folding == "published"
    assert name in PUBLISHED_MATCHERS, f"a new published matcher {name!r}: name its harness here"


def _sample_targets() -> dict[str, tuple[str, Mapping[str, Any], str]]:
    """(language, expect, text) of one shipped item per scorer."""
    found: dict[str, tuple[str, Mapping[str, Any], str]] = {}
    for path in all_pack_files():
        for item in load_case_file(path).items:
            found.setdefault(item.scorer, (item.language, item.targets[0].expect, item.text))
    return found


@pytest.mark.parametrize("name", SCORERS.names())
def test_every_registered_scorer_folds_what_it_reads(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    samples = _sample_targets()
    assert name in samples, f"no shipped item uses scorer {name!r}: add one, or a sample here"
    language, expect, text = samples[name]
    folded: list[str] = []
    real = base.fold_text

    def spy(value: str, lang: str) -> str:
        folded.append(value)
        return real(value, lang)

    monkeypatch.setattr(base, "fold_text", spy)
    monkeypatch.setattr(folding, "fold_text", spy)
    get_scorer(name).score("heard \u00ad text", expect, ScoreContext(language, text))
    assert "heard \u00ad text" in folded, f"scorer {name!r} did not fold the transcript"
    assert text in folded, f"scorer {name!r} did not fold the item's text"
    strings = [v for v in expect.values() if isinstance(v, str)]
    assert all(s in folded for s in strings), f"scorer {name!r} did not fold its expect block"
