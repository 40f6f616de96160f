"""Re-deriving verdicts from stored transcripts: no synthesis, no ASR.

The same :class:`~pytest_ttsbench.pipeline.evaluator.Evaluator` that serves pytest runs here, fed by a
``transcripts`` replay engine, so ``ttsbench rescore`` and ``pytest --tts-engine=<replay>``
cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.loader import CaseFileError, load_case_paths
from pytest_ttsbench.cases.model import Suite
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.replay import TranscriptsEngine
from pytest_ttsbench.figures.summary import overall, summarize
from pytest_ttsbench.pipeline.evaluator import Evaluator, RunOptions
from pytest_ttsbench.protocols import DEFAULT_PROTOCOL, Protocol
from pytest_ttsbench.run_model.results import MISSING, ItemResult

_RESULT_FIELDS = frozenset(f.name for f in fields(ItemResult))


@dataclass
class Rescore:
    """The outcome of rescoring: one result per target, plus what could not be matched."""

    results: list[ItemResult]
    missing: list[str] = field(default_factory=list)  # targets with no transcript
    unmatched_rows: list[str] = field(default_factory=list)  # transcript ids matching no item
    overwritten_rows: list[str] = field(default_factory=list)  # ids given twice: the later row was used
    routes: list[str] = field(default_factory=list)


def load_suites(paths: Sequence[Path]) -> list[Suite]:
    suites, problems = load_case_paths(paths)
    if problems:
        raise CaseFileError(problems)
    return suites


def rescore(
    suites: Sequence[Suite],
    transcripts: Path,
    engine_name: str = "transcripts",
    quorum: int | None = None,
    protocol: Protocol = DEFAULT_PROTOCOL,
) -> Rescore:
    """Score every target of ``suites`` against the transcripts at ``transcripts`` under ``protocol``."""
    profile = EngineProfile(name=engine_name, type="transcripts", options={"path": str(transcripts)})
    engine = TranscriptsEngine(profile)
    store = engine.store
    full_ids = [item.full_id for suite in suites for item in suite.items]
    ambiguous = store.ambiguous_bare_ids(full_ids)
    if ambiguous:
        raise ValueError(
            f"{transcripts}: bare id(s) {', '.join(ambiguous[:5])} match items of several suites; "
            "use '<suite>/<item id>'"
        )
    evaluator = Evaluator(
        {engine_name: profile},
        lambda _profile: [],
        RunOptions(quorum=quorum, protocol=protocol),
        engines={engine_name: engine},
    )
    outcome = Rescore(results=[], routes=list(store.routes))
    for suite in suites:
        for item in suite.items:
            for target in item.targets:
                result = evaluator.evaluate(item, target, engine_name)
                outcome.results.append(result)
                if not result.transcripts:
                    outcome.missing.append(result.key)
    known = set(full_ids) | {f.split("/", 1)[1] for f in full_ids}
    outcome.unmatched_rows = sorted(row for row in store.rows if row not in known)
    outcome.overwritten_rows = list(store.overwritten)
    return outcome


SUMMARY_DIMENSIONS = {"by_category": "category", "by_group": "group", "by_domain": "domain", "by_suite": "suite"}


def summary_json(results: Sequence[ItemResult], facets: Sequence[str] = ()) -> dict[str, Any]:
    """``{"overall": {...}, "by_category": {...}, ...}``: every bucket with the full figure set."""
    summary: dict[str, Any] = {"overall": overall(results).to_dict()}
    for key, dimension in SUMMARY_DIMENSIONS.items():
        buckets = summarize(results, [dimension])
        summary[key] = {k[0]: b.to_dict() for k, b in sorted(buckets.items()) if k[0] != MISSING}
    all_facets = sorted({name for r in results for name in r.facets}) if not facets else list(facets)
    if all_facets:
        summary["by_facet"] = {
            name: {k[0]: b.to_dict() for k, b in sorted(summarize(results, [f"facet:{name}"]).items())}
            for name in all_facets
        }
    return summary


def item_json(result: ItemResult) -> dict[str, Any]:
    return {
        "id": result.id,
        "target": result.target,
        "category": result.category,
        "verdict": result.verdict,
        "auto_evaluable": result.auto_evaluable,
        "transcripts": result.transcripts,
        "route_verdicts": result.route_verdicts,
        "protocol": result.protocol,
        "protocols": result.protocols,
        "protocol_rules": result.protocol_rules,
        "expected": result.expected,
        "evidence": result.evidence,
    }


# --- guarded slices -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Guard:
    """A slice of the results whose verdicts must not move: ``field=value`` (an ItemResult field or a facet)."""

    name: str
    value: str

    @classmethod
    def parse(cls, text: str) -> Guard:
        name, sep, value = text.partition("=")
        name = name.strip().removeprefix("facet:")
        if not sep or not name or not value.strip():
            raise ValueError(f"--guard {text!r}: expected NAME=VALUE, e.g. category=years or form=western")
        return cls(name, value.strip())

    def matches(self, result: ItemResult) -> bool:
        if self.name in _RESULT_FIELDS and self.name != "facets":
            value = getattr(result, self.name)
        else:
            value = result.facets.get(self.name)
        return value is not None and str(value) == self.value

    def __str__(self) -> str:
        return f"{self.name}={self.value}"


@dataclass(frozen=True)
class Move:
    """One target whose verdict differs between the stored results and the new ones."""

    engine: str
    key: str
    before: str
    after: str
    guards: tuple[str, ...]  # the guarded slices it falls in (empty: unguarded)

    def __str__(self) -> str:
        where = f" [{', '.join(self.guards)}]" if self.guards else ""
        return f"{self.key} on {self.engine}: {self.before} -> {self.after}{where}"


def verdict_moves(before: Sequence[ItemResult], after: Sequence[ItemResult], guards: Sequence[Guard]) -> list[Move]:
    """Targets present in both result sets whose verdict changed, each labelled with its guarded slices.

    Targets only in one set are new or retired items, not moved verdicts, and are not reported.
    """
    old = {(r.engine, r.key, r.repeat): r for r in before}
    moves: list[Move] = []
    for new in after:
        previous = old.get((new.engine, new.key, new.repeat))
        if previous is None or previous.verdict == new.verdict:
            continue
        hit = tuple(str(g) for g in guards if g.matches(new) or g.matches(previous))
        moves.append(Move(new.engine, new.key, previous.verdict, new.verdict, hit))
    return moves
