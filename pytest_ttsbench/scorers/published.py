"""Benchmarks' own matchers, reimplemented from the rules their scoring code applies.

These are the ``published`` protocol (see :mod:`pytest_ttsbench.protocols`): they give the
verdicts a benchmark publishes, its known mistakes included, so its leaderboard can be reproduced
from the product. They are not our judge; the scorers next to them (``strict``) are.

* CN-NewsTTS Bench v0.1 (``scripts/score_submission.py`` at tag v0.1): both sides NFKC, upper
  case, every whitespace character and a fixed list of punctuation and symbols removed (dashes are
  not in it); a listed forbidden reading found anywhere → wrong; else a listed accepted reading
  found anywhere → correct; else unknown. Nothing is implied from the accepted readings and no
  boundary is checked.
* The Thai TTS hard-keyword benchmark (``keyword/eval_keyword.py`` of wayu-research/thai-tts-eval
  at 29a7a4a, its ``keyword_correct``): an exact substring after its canonicalization, tried with
  and without spaces, with no syllable boundary check. Its canonicalization, step by step and in
  its order: NFC; five zero-width characters (U+200B-U+200D, U+2060, U+FEFF) removed, no other
  default-ignorable one (a soft hyphen stays); ``ํา`` → ``ำ`` only where the two are adjacent (so
  a tone mark typed between them leaves sara am decomposed); ``เเ`` → ``แ``; Thai digits only → ASCII;
  the marks on a consonant stably sorted (the same four ranks as ``scorers/thai.py``); each ``ๆ``
  replaced by the whole run of Thai letters (U+0E01-U+0E2E, U+0E30-U+0E4E) before it, nothing when
  a space or anything else stands right before it (``ต่างๆมากมาย`` holds no ``ต่างต่าง`` after a
  longer word, ``เด็ก ๆ`` is ``เด็ก``); case folding; whitespace runs collapsed and trimmed.
  ``tests/scorers/test_published_thai.py`` checks every verdict against the harness itself.

Neither reads through the language fold of :mod:`~pytest_ttsbench.scorers.folding`
(``folding = "published"``): a harness's own canonicalization, gaps included, is what it publishes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import Folding, ScoreContext
from pytest_ttsbench.scorers.keyword import KeywordScorer
from pytest_ttsbench.scorers.readings import ReadingsScorer
from pytest_ttsbench.scorers.thai import MAI_YAMOK, NIKHAHIT, SARA_AA, SARA_AE, SARA_AM, SARA_E, sort_marks
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
    folding: ClassVar[Folding] = "published"

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


# The Thai keyword bench's canonicalization (see the module docstring).
_THAI_BENCH_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_RUN_BEFORE_MAI_YAMOK = re.compile("[\u0e01-\u0e2e\u0e30-\u0e4e]*\\Z")


def _repeat_whole_runs(text: str) -> str:
    """Each ``ๆ`` replaced by the run of Thai letters right before it, as already expanded."""
    first, *rest = text.split(MAI_YAMOK)
    expanded = first
    for piece in rest:
        run = _RUN_BEFORE_MAI_YAMOK.search(expanded)
        expanded += (run.group() if run else "") + piece
    return expanded


def thai_bench_canon(text: str) -> str:
    """A text as the Thai keyword bench's harness compares it (its ``normalize``)."""
    text = unicodedata.normalize("NFC", text).translate(_THAI_BENCH_ZERO_WIDTH)
    text = text.replace(NIKHAHIT + SARA_AA, SARA_AM).replace(SARA_E + SARA_E, SARA_AE)
    text = _repeat_whole_runs(sort_marks(text.translate(_THAI_DIGITS)))
    return _WHITESPACE.sub(" ", text.casefold()).strip()


def _despaced(text: str) -> str:
    return _WHITESPACE.sub("", text)


class PublishedKeywordScorer(KeywordScorer):
    """The Thai keyword bench's matcher: a listed form as an exact substring after its canonicalization."""

    name: ClassVar[str] = "keyword"
    folding: ClassVar[Folding] = "published"

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        heard = thai_bench_canon(transcript)
        forms = list(dict.fromkeys(f for f in [expect["expected"], *expect.get("alternates", [])] if f))
        for form in forms:
            canon = thai_bench_canon(form)
            if canon and (canon in heard or _despaced(canon) in _despaced(heard)):
                return Verdict("correct", matched=(form,), heard=(heard,), extra={"matched_form": canon})
        return Verdict("wrong", missing=tuple(forms), heard=(heard,))
