"""How much each ASR route contributes: single-route accuracy, agreement, subset ablation.

These answer "is the vote carried by one recognizer?" and "would two routes have done?" from the
``route_verdicts`` already stored in the results, without transcribing anything again. Only
auto-evaluable rows are used. A route with no verdict on a target counts as unknown there, and
an ``error`` is treated as unknown for agreement (it is not a reading either way).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from pytest_ttsbench.figures.summary import Bucket, bucket_of
from pytest_ttsbench.figures.voting import majority, vote
from pytest_ttsbench.run_model.reader import route_names
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.scorers.text import readings_canon


def _counted(results: Iterable[ItemResult]) -> list[ItemResult]:
    return [r for r in results if r.auto_evaluable]


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
    names = sorted(route_names(rows))
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
    names = sorted(routes if routes is not None else route_names(_counted(rows)))
    out: dict[tuple[str, ...], Bucket] = {}
    for size in range(1, len(names) + 1):
        for subset in combinations(names, size):
            # Excluded rows pass through untouched so each bucket still reports them.
            out[subset] = bucket_of(revote(r, subset) if r.auto_evaluable else r for r in rows)
    return out


# --- the CN-NewsTTS analyses: ties, label changes, pooled figures, rank stability, ranges -------


def tie_rate(results: Iterable[ItemResult]) -> float | None:
    """Share of auto-evaluable targets with two or more routes whose routes tie: no single label
    (correct / wrong / unknown) was given by more routes than every other (1-1-1, or 1-1 of two)."""
    rows = [r for r in _counted(results) if len(r.route_verdicts) > 1]
    if not rows:
        return None
    ties = 0
    for row in rows:
        counts = Counter(_tri_label(label) for label in row.route_verdicts.values()).most_common()
        ties += len(counts) > 1 and counts[0][1] == counts[1][1]
    return ties / len(rows)


def label_changes(
    results: Iterable[ItemResult], routes: Sequence[str] | None = None
) -> dict[tuple[str, ...], dict[tuple[str, str], int]]:
    """For every proper subset of the routes, how many voted labels change from the full set's
    vote to the subset's, by (label with every route, label with the subset)."""
    rows = _counted(results)
    names = sorted(routes) if routes is not None else route_names(rows)
    full = [revote(r, names).verdict for r in rows]
    out: dict[tuple[str, ...], dict[tuple[str, str], int]] = {}
    for size in range(1, len(names)):
        for subset in combinations(names, size):
            changes = Counter(
                (before, after)
                for before, after in zip(full, (revote(r, subset).verdict for r in rows), strict=True)
                if before != after
            )
            out[subset] = dict(sorted(changes.items()))
    return out


def pooled(runs: Mapping[str, Sequence[ItemResult]]) -> Bucket:
    """All systems' targets in one bucket: the benchmark's figures pooled across systems."""
    return bucket_of(row for rows in runs.values() for row in rows)


def _ranks(accuracy: Mapping[str, float]) -> dict[str, int]:
    """Competition ranks by strict accuracy, best first (equal accuracy, equal rank)."""
    return {name: 1 + sum(other > value for other in accuracy.values()) for name, value in accuracy.items()}


def rank_stability(
    runs: Mapping[str, Sequence[ItemResult]], routes: Sequence[str] | None = None
) -> dict[tuple[str, ...], dict[str, int]]:
    """Each system's rank when the vote uses only a subset of the routes, for every non-empty subset."""
    names = sorted(routes) if routes is not None else route_names(row for rows in runs.values() for row in rows)
    out: dict[tuple[str, ...], dict[str, int]] = {}
    for size in range(1, len(names) + 1):
        for subset in combinations(names, size):
            accuracy = {
                system: bucket_of(revote(r, subset) if r.auto_evaluable else r for r in rows).strict_accuracy or 0.0
                for system, rows in runs.items()
            }
            out[subset] = _ranks(accuracy)
    return out


@dataclass(frozen=True)
class RankInterval:
    """A system's rank on the results as they are, and a bootstrap interval on it."""

    rank: int
    low: int
    high: int
    samples: int


def bootstrap_rank_intervals(
    runs: Mapping[str, Sequence[ItemResult]], samples: int = 1000, seed: int = 0, level: float = 0.95
) -> dict[str, RankInterval]:
    """Percentile intervals on each system's rank, resampling the targets (the same draw for every
    system, so the comparison stays paired). Only targets every system has count."""
    correct: dict[str, dict[str, bool]] = {
        system: {r.key: r.verdict == "correct" for r in _counted(rows)} for system, rows in runs.items()
    }
    shared = sorted(set.intersection(*(set(keys) for keys in correct.values()))) if correct else []
    if not shared:
        return {}
    systems = sorted(correct)
    table = np.array([[correct[s][key] for key in shared] for s in systems], dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(shared), size=(samples, len(shared)))
    accuracy = table[:, draws].mean(axis=2)  # systems × samples
    ranks = 1 + (accuracy[None, :, :] > accuracy[:, None, :]).sum(axis=1)  # systems × samples
    observed = _ranks(dict(zip(systems, (float(v) for v in table.mean(axis=1)), strict=True)))
    tail = (1 - level) / 2 * 100
    return {
        system: RankInterval(
            observed[system],
            int(np.percentile(ranks[i], tail, method="lower")),
            int(np.percentile(ranks[i], 100 - tail, method="higher")),
            samples,
        )
        for i, system in enumerate(systems)
    }


# How a hyphen between two numbers was read, by the word a reading puts there.
READ_AS = {
    "至": "range",
    "到": "range",
    "比": "score",
    "减去": "subtraction",
    "减": "subtraction",
    "负": "minus",
    "杠": "dash",
}
_HYPHENATED_NUMBERS = re.compile(r"[0-9][-‐‑–][0-9]")


def _connective_forms(reading: str) -> dict[str, str]:
    """A reading with its connective swapped for each of :data:`READ_AS`: form → how it reads."""
    for word in sorted(READ_AS, key=len, reverse=True):
        at = reading.find(word)
        if at > 0:
            return {reading[:at] + other + reading[at + len(word) :]: READ_AS[other] for other in READ_AS}
    return {}


def range_readings(results: Iterable[ItemResult]) -> dict[str, dict[str, int]]:
    """For targets whose span joins two numbers with a hyphen (ranges, scores): how each route's
    transcript read the hyphen, tallied by category — range, score, subtraction, minus, dash,
    ``as_written`` (the recognizer wrote the digits and hyphen back), or ``unheard`` when none of
    these readings of the span is in the transcript."""
    tallies: dict[str, Counter[str]] = {}
    for row in _counted(results):
        expected = row.expected if isinstance(row.expected, dict) else {}
        if not row.target or not _HYPHENATED_NUMBERS.search(row.target):
            continue
        forms: dict[str, str] = {}
        for reading in [*expected.get("positive", []), *expected.get("negative", [])]:
            forms.update({readings_canon(k): v for k, v in _connective_forms(reading).items()})
        tally = tallies.setdefault(row.category, Counter())
        written = readings_canon(row.target)
        for transcript in row.transcripts.values():
            heard = readings_canon(transcript)
            found = [kind for form, kind in sorted(forms.items(), key=lambda f: -len(f[0])) if form in heard]
            tally[found[0] if found else "as_written" if written in heard else "unheard"] += 1
    return {category: dict(sorted(counts.items())) for category, counts in sorted(tallies.items())}
