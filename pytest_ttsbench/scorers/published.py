"""Benchmarks' own matchers, reimplemented from the rules their scoring code applies.

These are the ``published`` protocol (see :mod:`pytest_ttsbench.protocols`): they give the
verdicts a benchmark publishes, its known mistakes included, so its leaderboard can be reproduced
from the product. They are not our judge; the scorers next to them (``strict``) are.

* CN-NewsTTS Bench v0.1 (``scripts/score_submission.py`` at tag v0.1): both sides NFKC, upper
  case, every whitespace character and a fixed list of punctuation and symbols removed (dashes are
  not in it); a listed forbidden reading found anywhere → wrong; else a listed accepted reading
  found anywhere → correct; else unknown. Nothing is implied from the accepted readings and no
  boundary is checked.
* The Thai keyword bench: its written rule, an exact substring after canonicalization (tried with
  and without spaces), with no syllable boundary check. Its ``eval_keyword.py`` has not been
  available to us, so parity with that file's own deviations from the rule is not verified.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.keyword import KeywordScorer
from pytest_ttsbench.scorers.readings import ReadingsScorer
from pytest_ttsbench.verdict import Verdict

# The characters CN-NewsTTS v0.1 strips before matching, besides whitespace: Chinese and ASCII
# sentence punctuation, quotes, brackets, the middle dots, and / \ | _ + = ~ `. Anything else
# (dashes, 「」, …) stays.
CN_NEWS_STRIPPED = frozenset("，。！？、：；,.!?;:“”\"'‘’（）()[]{}《》<>〈〉·•/\\|_+=~`")
_WHITESPACE = re.compile(r"\s+")


def cn_news_canon(text: str) -> str:
    """A text as CN-NewsTTS v0.1 compares it: NFKC, upper case, no whitespace, no listed punctuation."""
    folded = _WHITESPACE.sub("", unicodedata.normalize("NFKC", text).upper())
    return "".join(ch for ch in folded if ch not in CN_NEWS_STRIPPED)


class PublishedReadingsScorer(ReadingsScorer):
    """CN-NewsTTS Bench v0.1's matcher: listed readings only, found anywhere."""

    name: ClassVar[str] = "readings"

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        heard = cn_news_canon(transcript)
        listed_negative = [str(r) for r in expect.get("negative") or [] if str(r).strip()]
        listed_positive = [str(r) for r in expect.get("positive") or [] if str(r).strip()]
        negatives = tuple(r for r in listed_negative if cn_news_canon(r) and cn_news_canon(r) in heard)
        if negatives:
            return Verdict("wrong", negative=negatives, heard=(heard,))
        positives = tuple(r for r in listed_positive if cn_news_canon(r) and cn_news_canon(r) in heard)
        if positives:
            return Verdict("correct", matched=positives, heard=(heard,))
        return Verdict("unknown", missing=tuple(listed_positive), heard=(heard,))


class PublishedKeywordScorer(KeywordScorer):
    """The keyword rule as written: an exact substring after canonicalization, anywhere."""

    name: ClassVar[str] = "keyword"
    whole_word_rules: ClassVar[bool] = False
