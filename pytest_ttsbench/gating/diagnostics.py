"""How much each ASR route contributes: single-route accuracy, agreement, subset ablation.

These answer "is the vote carried by one recognizer?" and "would two routes have done?" from the
``route_verdicts`` already stored in the results, without transcribing anything again. Only
auto-evaluable rows are used. A route with no verdict on a target counts as unknown there, and
an ``error`` is treated as unknown for agreement (it is not a reading either way).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from pytest_ttsbench.gating.summary import Bucket, bucket_of
from pytest_ttsbench.gating.voting import majority, vote
from pytest_ttsbench.results import ItemResult


def _counted(results: Iterable[ItemResult]) -> list[ItemResult]:
    return [r for r in results if r.auto_evaluable]


def route_names(results: Iterable[ItemResult]) -> list[str]:
    """Every route that gave a verdict on any auto-evaluable row, sorted."""
    return sorted({name for r in _counted(results) for name in r.route_verdicts})


def route_accuracy(results: Iterable[ItemResult]) -> dict[str, float | None]:
    """Strict accuracy of each single route's own verdicts (missing counts as unknown)."""
    return {name: figures.strict_accuracy for name, figures in bucket_of(results).routes.items()}


def _tri_label(label: str | None) -> str:
    return label if label in ("correct", "wrong") else "unknown"


@dataclass(frozen=True)
class Agreement:
    """How often two routes gave the same label among correct / wrong / unknown."""

    first: str
    second: str
    n: int
    agree: int

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None


def pairwise_agreement(results: Iterable[ItemResult]) -> dict[tuple[str, str], Agreement]:
    """Tri-label agreement for every pair of routes, keyed by the sorted pair of names."""
    rows = _counted(results)
    names = route_names(rows)
    out: dict[tuple[str, str], Agreement] = {}
    for first, second in combinations(names, 2):
        agree = sum(
            1 for r in rows if _tri_label(r.route_verdicts.get(first)) == _tri_label(r.route_verdicts.get(second))
        )
        out[(first, second)] = Agreement(first, second, len(rows), agree)
    return out


def revote(result: ItemResult, subset: Sequence[str]) -> ItemResult:
    """The row as if only ``subset`` routes had run: its route verdicts cut down and re-voted.

    The quorum is a majority of the subset (1 of 1, both of 2, 2 of 3), so a two-route setting
    only resolves when the routes agree.
    """
    kept = {name: result.route_verdicts.get(name) or "unknown" for name in subset}
    return replace(result, route_verdicts=kept, verdict=vote(kept, majority(len(subset))))


def ablation(results: Iterable[ItemResult], routes: Sequence[str] | None = None) -> dict[tuple[str, ...], Bucket]:
    """A bucket for every non-empty subset of the routes, each re-voted on that subset alone.

    Keys are sorted tuples of route names, smallest subsets first. ``routes`` defaults to every
    route found in the results.
    """
    rows = list(results)
    names = sorted(routes) if routes is not None else route_names(rows)
    out: dict[tuple[str, ...], Bucket] = {}
    for size in range(1, len(names) + 1):
        for subset in combinations(names, size):
            # Excluded rows pass through untouched so each bucket still reports them.
            out[subset] = bucket_of(revote(r, subset) if r.auto_evaluable else r for r in rows)
    return out
