"""Which scorer each protocol judges with, and which strict rule makes its verdict differ.

See :mod:`pytest_ttsbench.protocols`. The rule names are what the difference tally counts by:
"scores read with 至", "ranges read with 减", "a dropped 零", "neighbouring digits of a range said
together (四五天)", "accepted reading heard only inside a longer number", "keyword inside another
syllable"; "canonicalization" where only the two matchers' text folding differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ttsbench.protocols import Protocol
from pytest_ttsbench.scorers.base import Scorer
from pytest_ttsbench.scorers.readings import two_said_both_ways
from pytest_ttsbench.scorers.registry import get_scorer
from pytest_ttsbench.scorers.text import readings_canon
from pytest_ttsbench.verdict import Verdict


def _published_scorers() -> dict[str, type[Scorer]]:
    from pytest_ttsbench.scorers.published import PublishedKeywordScorer, PublishedReadingsScorer

    return {"readings": PublishedReadingsScorer, "keyword": PublishedKeywordScorer}


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def scorers_by_protocol(scorer_name: str) -> dict[Protocol, Scorer]:
    """The scorer each protocol judges an item of ``scorer_name`` with."""
    strict = get_scorer(scorer_name)
    published_class = _published_scorers().get(scorer_name)
    # Only where the name is the built-in scorer the published matcher stands beside (not a
    # plugin's); compared by name, as a module may be imported afresh (pytester drops modules).
    if published_class is None or _class_name(type(strict)) != _class_name(published_class.__mro__[1]):
        return {"strict": strict, "published": strict}
    return {"strict": strict, "published": published_class()}


# --- which rule makes the protocols differ ------------------------------------------------------

_SUBSTITUTES = ("减去", "减", "负", "杠", "至", "到")
_RANGE_OR_SCORE = {"比": "scores", "至": "ranges", "到": "ranges"}


def _implied_negative_rule(negative: str, positives: Sequence[str]) -> str | None:
    """How an implied forbidden reading comes from an accepted one: 'scores read with 至' …"""
    heard = readings_canon(negative)
    for positive in positives:
        accepted = readings_canon(positive)
        at = next((i for i, (a, b) in enumerate(zip(accepted, heard, strict=False)) if a != b), None)
        if at is None:
            continue
        if accepted[at] == "零" and heard == accepted[:at] + accepted[at + 1 :]:
            return "a dropped 零"
        kind = _RANGE_OR_SCORE.get(accepted[at])
        for word in _SUBSTITUTES:
            if kind and heard.startswith(word, at) and heard[at + len(word) :] == accepted[at + 1 :]:
                return f"{kind} read with {word}"
    return None


def _keyword_rule(strict: Verdict, published: Verdict) -> str:
    """The strict keyword rule behind a difference (the published one is the Thai bench's harness)."""
    if strict.outcome == "wrong" and published.outcome == "correct":
        return "keyword inside another syllable"
    if strict.outcome == "unknown":
        return "keyword's place unread (unknown, not wrong)"
    if "amount_read_as" in strict.extra:
        return "an amount in digits, words or with separators"
    if "reading" in strict.extra:
        return "ๆ repeating the word before it (the harness repeats the whole run)"
    return "keyword canonicalization (default-ignorables, width, sara am, silent ฯ, hyphens)"


def difference_rule(scorer_name: str, expect: Mapping[str, Any], strict: Verdict, published: Verdict) -> str:
    """The strict rule that gave ``strict`` where the published matcher gave ``published``."""
    if scorer_name == "keyword":
        return _keyword_rule(strict, published)
    if scorer_name != "readings":
        return f"{scorer_name} rule"
    positives = list(expect.get("positive") or [])
    listed = {readings_canon(r) for r in expect.get("negative") or []}
    if strict.outcome == "wrong" and "longer number" in strict.note:
        return "accepted reading heard only inside a longer number"
    if strict.outcome == "wrong":
        rules = {_implied_negative_rule(r, positives) for r in strict.negative if readings_canon(r) not in listed}
        named = sorted(r for r in rules if r)
        if named:
            return " + ".join(named)
    if strict.outcome == "correct" and published.outcome == "unknown":
        listed_positive = {readings_canon(r) for r in positives}
        implied = [readings_canon(r) for r in strict.matched if readings_canon(r) not in listed_positive]
        two_both_ways = {readings_canon(v) for r in positives for v in two_said_both_ways(r)}
        if implied and all(r in two_both_ways for r in implied):
            return "a lone 2 said 两 or 二 (两百三十, 两比零)"
        if implied:
            return "neighbouring digits of a range said together (四五天)"
    return "canonicalization"


def route_rules(
    scorer_name: str, expect: Mapping[str, Any], by_protocol: Mapping[str, Mapping[str, Verdict]]
) -> list[str]:
    """The rules behind every route whose strict and published verdicts differ, each once."""
    strict, published = by_protocol.get("strict", {}), by_protocol.get("published", {})
    rules = [
        difference_rule(scorer_name, expect, strict[route], published[route])
        for route in strict
        if route in published and strict[route].outcome != published[route].outcome
    ]
    return sorted(set(rules))
