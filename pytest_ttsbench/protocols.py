"""Scoring protocols: ``strict`` (our judge) and ``published`` (a benchmark's own verdicts).

Every item is scored under both protocols; the run's protocol (``--tts-protocol``, ``ttsbench
rescore --protocol``, default ``strict``) decides the row's ``verdict`` and ``route_verdicts``, and
the row keeps the other protocol's verdicts and the rules that make them differ
(:attr:`ItemResult.protocols`, :attr:`ItemResult.protocol_rules`). So one results file shows both
figures side by side, and the commands that read runs (``leaderboard``, ``diagnostics``,
``compare``, ``gate``) can view every row under one protocol (``--protocol``) or refuse to put
runs of different protocols side by side.

``published`` is a benchmark's own matcher where its scoring code is public
(:mod:`pytest_ttsbench.scorers.published`); a scorer with no published counterpart judges the
same under both protocols.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pytest_ttsbench.results import ItemResult
from pytest_ttsbench.runs import Run
from pytest_ttsbench.scorers.base import Scorer
from pytest_ttsbench.scorers.registry import get_scorer
from pytest_ttsbench.scorers.text import readings_canon
from pytest_ttsbench.verdict import Verdict

Protocol = Literal["strict", "published"]
PROTOCOLS: tuple[Protocol, ...] = ("strict", "published")
DEFAULT_PROTOCOL: Protocol = "strict"
PROTOCOL_HELP = "strict (our judge, the default) or published (the benchmark's own matcher, where its code is public)"


class ProtocolMixError(ValueError):
    """Runs scored under different protocols, put side by side as if they had not been."""


def check_protocol(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise ValueError(f"protocol {name!r} is not one of {', '.join(PROTOCOLS)}")
    return name


def _published_scorers() -> dict[str, Scorer]:
    from pytest_ttsbench.scorers.published import PublishedKeywordScorer, PublishedReadingsScorer

    return {"readings": PublishedReadingsScorer(), "keyword": PublishedKeywordScorer()}


_PUBLISHED: dict[str, Scorer] = {}


def scorers_by_protocol(scorer_name: str) -> dict[Protocol, Scorer]:
    """The scorer each protocol judges an item of ``scorer_name`` with."""
    if not _PUBLISHED:
        _PUBLISHED.update(_published_scorers())
    strict = get_scorer(scorer_name)
    published = _PUBLISHED.get(scorer_name)
    # Only where the name is the built-in scorer the published matcher stands beside (not a plugin's).
    if published is None or not isinstance(published, type(strict)):
        published = strict
    return {"strict": strict, "published": published}


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


def difference_rule(scorer_name: str, expect: Mapping[str, Any], strict: Verdict, published: Verdict) -> str:
    """The strict rule that gave ``strict`` where the published matcher gave ``published``."""
    if scorer_name == "keyword":
        if strict.outcome == "wrong" and published.outcome == "correct":
            return "keyword inside another syllable"
        return "keyword canonicalization"
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
        if any(readings_canon(r) not in listed_positive for r in strict.matched):
            return "neighbouring digits of a range said together (四五天)"
    return "canonicalization"


def route_rules(scorer_name: str, expect: Mapping[str, Any], by_protocol: Mapping[str, Mapping[str, Verdict]]) -> list[str]:
    """The rules behind every route whose strict and published verdicts differ, each once."""
    strict, published = by_protocol.get("strict", {}), by_protocol.get("published", {})
    rules = [
        difference_rule(scorer_name, expect, strict[route], published[route])
        for route in strict
        if route in published and strict[route].outcome != published[route].outcome
    ]
    return sorted(set(rules))


# --- viewing rows and runs under one protocol ----------------------------------------------------


def protocol_of(row: ItemResult) -> str:
    return row.protocol or DEFAULT_PROTOCOL


def under_protocol(row: ItemResult, protocol: str, where: str = "") -> ItemResult:
    """``row`` with the verdicts ``protocol`` gave it; an error names the row when it never recorded them."""
    if protocol_of(row) == protocol:
        return row
    recorded = row.protocols.get(protocol)
    if not isinstance(recorded, Mapping) or "verdict" not in recorded:
        raise ProtocolMixError(
            f"{where or row.engine}: {row.key} was scored under {protocol_of(row)!r} only and records no "
            f"{protocol!r} verdict; rescore it (ttsbench rescore --protocol {protocol})"
        )
    return dataclasses.replace(
        row,
        verdict=recorded["verdict"],
        route_verdicts=dict(recorded.get("route_verdicts") or {}),
        protocol=protocol,
    )


def protocols_of(rows: Iterable[ItemResult]) -> list[str]:
    return sorted({protocol_of(row) for row in rows})


def require_one_protocol(runs: Mapping[str, Sequence[ItemResult]]) -> str | None:
    """The one protocol every run was scored under, or :class:`ProtocolMixError` naming each run's."""
    used = {name: protocols_of(rows) for name, rows in runs.items() if rows}
    every = sorted({p for protocols in used.values() for p in protocols})
    if len(every) <= 1:
        return every[0] if every else None
    detail = "; ".join(f"{name}: {', '.join(protocols)}" for name, protocols in used.items())
    raise ProtocolMixError(
        f"runs scored under different protocols ({detail}) would be compared as one: pass --protocol "
        "strict or --protocol published to view every run under one"
    )


def runs_under(runs: Sequence[Run], protocol: str | None) -> list[Run]:
    """The runs with every row under ``protocol``; with None, the runs as scored, all under one protocol."""
    if protocol is None:
        require_one_protocol({f"{run.system} in {run.path}": run.rows for run in runs})
        return list(runs)
    check_protocol(protocol)
    return [
        dataclasses.replace(run, rows=tuple(under_protocol(row, protocol, str(run.path)) for row in run.rows))
        for run in runs
    ]


# --- the difference tally -------------------------------------------------------------------------


@dataclass(frozen=True)
class ProtocolDifference:
    """Targets whose published and strict verdicts differ by one rule in one direction."""

    rule: str
    published: str
    strict: str
    n: int
    examples: tuple[str, ...]  # target keys, with what one route heard

    def __str__(self) -> str:
        return f"{self.rule}: {self.n} {self.published} → {self.strict}"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def protocol_verdict(row: ItemResult, protocol: str) -> str | None:
    if protocol_of(row) == protocol:
        return row.verdict
    recorded = row.protocols.get(protocol)
    return recorded.get("verdict") if isinstance(recorded, Mapping) else None


def difference_tally(items: Iterable[ItemResult], examples: int = 3) -> list[ProtocolDifference]:
    """Auto-evaluable targets whose final verdicts differ between the protocols, by rule and direction."""
    counts: Counter[tuple[str, str, str]] = Counter()
    shown: dict[tuple[str, str, str], list[str]] = {}
    for row in items:
        if not row.auto_evaluable:
            continue
        published, strict = protocol_verdict(row, "published"), protocol_verdict(row, "strict")
        if published is None or strict is None or published == strict:
            continue
        key = (" + ".join(row.protocol_rules) or "unexplained", published, strict)
        counts[key] += 1
        if len(shown.setdefault(key, [])) < examples:
            heard = next((t for t in row.transcripts.values() if t), "")
            shown[key].append(f"{row.key} heard {heard[:60]!r}")
    return [
        ProtocolDifference(rule, published, strict, n, tuple(shown[(rule, published, strict)]))
        for (rule, published, strict), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def has_both(items: Iterable[ItemResult]) -> bool:
    """Whether every row records both protocols' verdicts (rows written before protocols did not)."""
    return all(protocol_verdict(r, p) is not None for r in items for p in PROTOCOLS)
