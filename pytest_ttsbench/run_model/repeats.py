"""Several generations of the same item: one verdict per item, and how consistent the engine was.

With ``--tts-repeats N`` every item is synthesized N times (each its own test, ``-r<k>``). The
item's verdict follows a policy over its generations:

* ``all`` — correct only when every generation was correct (the default: a voice that gets a
  number right two times in three is not shippable);
* ``majority`` — correct when more than half were;
* ``any`` — correct when at least one was.

When the item is not correct, its verdict is the commonest non-correct one among its
generations (ties: wrong, then unknown, then error), so the summary still says *how* it failed.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.plugin_options import POLICIES as POLICIES
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, record_dict

_NOT_CORRECT = ("wrong", "unknown", "error")


def failure_is_a_draw(generations: int, policy: str) -> bool:
    """Whether a generation that is not correct is one draw of several, its test XFAIL rather than failed.

    Under ``majority`` or ``any`` the item's verdict is the policy's over all its generations
    (``ttsbench::gate`` fails on it), so a failed draw alone must not turn a report red; under
    ``all`` each failed generation fails its test. The plugin's item test and ``ttsbench gate``'s
    reading of a run on disk both ask here, so they count the same failures.
    """
    return generations > 1 and policy != "all"


def policy_verdict(verdicts: Sequence[str], policy: str) -> str:
    """The item verdict from its generations' verdicts."""
    if policy not in POLICIES:
        raise ValueError(f"repeat policy {policy!r} is not one of {POLICIES}")
    if not verdicts:
        raise ValueError("an item needs at least one generation")
    correct = sum(1 for v in verdicts if v == "correct")
    passed = {
        "all": correct == len(verdicts),
        "majority": 2 * correct > len(verdicts),
        "any": correct > 0,
    }[policy]
    if passed:
        return "correct"
    counts = Counter(v for v in verdicts if v != "correct")
    return max(_NOT_CORRECT, key=lambda v: (counts[v], -_NOT_CORRECT.index(v)))


@dataclass(frozen=True)
class RepeatedItem:
    """One item (target) on one engine over its generations."""

    engine: str
    key: str
    verdict: str
    verdicts: tuple[str, ...]  # by repeat index
    #: kept in memory for the consistency figures; the gate file holds the figures only
    transcripts: tuple[str | None, ...] = field(metadata=NOT_WRITTEN)
    audio_hashes: tuple[str | None, ...] = field(default=(), metadata=NOT_WRITTEN)

    @property
    def consistent(self) -> bool:
        """Same verdict and same transcript in every generation."""
        return len(set(self.verdicts)) == 1 and len(set(self.transcripts)) == 1

    @property
    def correct_count(self) -> int:
        return sum(1 for v in self.verdicts if v == "correct")

    @property
    def correct_rate(self) -> float:
        return self.correct_count / len(self.verdicts)

    @property
    def flaky(self) -> bool:
        """Some generations correct and some not: the verdict is a coin, not a property of the voice."""
        return 0 < self.correct_count < len(self.verdicts)

    @property
    def audio_varies(self) -> bool:
        """Identical requests gave different audio: the engine is not deterministic."""
        return len({h for h in self.audio_hashes if h}) > 1

    def to_dict(self) -> dict[str, Any]:
        figures = {
            "correct_rate": round(self.correct_rate, 4),
            "flaky": self.flaky,
            "consistent": self.consistent,
            "audio_varies": self.audio_varies,
        }
        return record_dict(self, computed=figures)


def group_generations(results: Iterable[ItemResult]) -> dict[tuple[str, str], list[ItemResult]]:
    """Rows by (engine, target key), one per repeat index; a repeat index seen twice keeps its last row."""
    grouped: dict[tuple[str, str], dict[int, ItemResult]] = {}
    for result in results:
        grouped.setdefault((result.engine, result.key), {})[result.repeat] = result
    return {key: [rows[i] for i in sorted(rows)] for key, rows in grouped.items()}


def aggregate(results: Iterable[ItemResult], policy: str) -> tuple[list[ItemResult], list[RepeatedItem]]:
    """One row per item with the policy's verdict, and the per-item detail.

    The row kept is the first generation's (its evidence and transcript), with the verdict
    replaced, so every summary and gate downstream counts items, not generations. Each route's
    own verdict goes through the same policy over the generations that route judged, so the
    per-route figures count items too. Targets that are not auto-evaluable (items judged by
    listeners) have no verdict to compare across generations, so they get a row but no per-item
    detail.
    """
    rows: list[ItemResult] = []
    items: list[RepeatedItem] = []
    for (engine, key), generations in group_generations(results).items():
        verdicts = [g.verdict for g in generations]
        verdict = policy_verdict(verdicts, policy)
        routes = dict.fromkeys(name for g in generations for name in g.route_verdicts)
        route_verdicts = {
            name: policy_verdict([g.route_verdicts.get(name) or "unknown" for g in generations], policy)
            for name in routes
        }
        rows.append(dataclasses.replace(generations[0], verdict=verdict, route_verdicts=route_verdicts))  # type: ignore[arg-type]
        if not generations[0].auto_evaluable:
            continue
        items.append(
            RepeatedItem(
                engine,
                key,
                verdict,
                tuple(verdicts),
                tuple(g.transcript for g in generations),
                tuple(g.audio_sha256 for g in generations),
            )
        )
    return rows, items


def nondeterministic_engines(items: Iterable[RepeatedItem]) -> dict[str, tuple[int, int]]:
    """Engines whose identical requests gave different audio: engine → (items that varied, items repeated)."""
    found: dict[str, tuple[int, int]] = {}
    for item in items:
        if len(item.audio_hashes) < 2:
            continue
        varied, total = found.get(item.engine, (0, 0))
        found[item.engine] = (varied + item.audio_varies, total + 1)
    return {engine: counts for engine, counts in found.items() if counts[0]}
