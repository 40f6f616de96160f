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
same under both protocols. Which scorer each protocol uses, and which strict rule makes a verdict
differ, is :mod:`pytest_ttsbench.pipeline.protocol_scoring`; this module only reads rows, so reports can.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_ttsbench.run_model.reader import Run
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.run_model.text_variants import one_value_per_run
from pytest_ttsbench.support.plugin_options import DEFAULT_PROTOCOL as DEFAULT_PROTOCOL
from pytest_ttsbench.support.plugin_options import PROTOCOL_HELP as PROTOCOL_HELP
from pytest_ttsbench.support.plugin_options import PROTOCOLS as PROTOCOLS
from pytest_ttsbench.support.plugin_options import Protocol as Protocol


class ProtocolMixError(ValueError):
    """Runs scored under different protocols, put side by side as if they had not been."""


def check_protocol(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise ValueError(f"protocol {name!r} is not one of {', '.join(PROTOCOLS)}")
    return name


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
    return one_value_per_run(
        runs,
        protocols_of,
        lambda detail: ProtocolMixError(
            f"runs scored under different protocols ({detail}) would be compared as one: pass --protocol "
            "strict or --protocol published to view every run under one"
        ),
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
    """Auto-evaluable targets whose final verdicts differ between the protocols, by rule and direction.

    ``items`` are rows each holding both protocols' verdicts (one generation per target); for a
    run with repeats, :func:`run_difference_tally` applies the repeat policy under each protocol.
    """
    pairs = ((row, protocol_verdict(row, "published"), protocol_verdict(row, "strict")) for row in items)
    return _tally(pairs, examples)


def _tally(pairs: Iterable[tuple[ItemResult, str | None, str | None]], examples: int) -> list[ProtocolDifference]:
    counts: Counter[tuple[str, str, str]] = Counter()
    shown: dict[tuple[str, str, str], list[str]] = {}
    for row, published, strict in pairs:
        if not row.auto_evaluable or published is None or strict is None or published == strict:
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


def items_by_protocol(run: Run) -> dict[str, list[ItemResult]]:
    """The run's items (after its repeat policy) under each protocol that every row records."""
    views: dict[str, list[ItemResult]] = {}
    for protocol in PROTOCOLS:
        if run.rows and all(protocol_verdict(row, protocol) is not None for row in run.rows):
            views[protocol] = runs_under([run], protocol)[0].items
    return views


def run_difference_tally(run: Run, examples: int = 3) -> list[ProtocolDifference]:
    """:func:`difference_tally` over a run's items, each protocol's verdict after the repeat policy."""
    views = items_by_protocol(run)
    if len(views) < len(PROTOCOLS):
        return []
    strict = {(r.engine, r.key): r.verdict for r in views["strict"]}
    return _tally(((r, r.verdict, strict.get((r.engine, r.key))) for r in views["published"]), examples)


def has_both(items: Iterable[ItemResult]) -> bool:
    """Whether every row records both protocols' verdicts (rows written before protocols did not)."""
    return all(protocol_verdict(r, p) is not None for r in items for p in PROTOCOLS)
