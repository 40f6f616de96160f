"""Counting final verdicts into buckets (overall, per engine, per category, per facet ...).

Definitions, over the *n* auto-evaluable targets of a bucket (``auto_evaluable`` false rows are
only counted as ``excluded``):

* strict accuracy = correct / n. Unknowns and errors stay in the denominator: a system is not
  rewarded for being unintelligible to the recognizers or for crashing.
* coverage = (correct + wrong) / n, the share the routes could judge at all.
* resolved accuracy = correct / (correct + wrong); None when nothing was resolved.
* unknown rate = unknown / n.
* disagreement rate = targets whose route verdicts (``ItemResult.route_verdicts``) are not
  unanimous, over n; None unless some target in the bucket had at least two routes.
* ci95 = Wilson 95 % interval on strict accuracy.
* routes = the same counts for each single route's own verdicts. A target on which a route has
  no verdict counts as unknown for that route, so every route shares the bucket's n.

Every rate is None for an empty bucket (n = 0). Floats keep full precision; rounding is the
renderer's job.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from pytest_ttsbench.run_model.results import FACET_PREFIX, ItemResult, group_value
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, record_dict
from pytest_ttsbench.support.stats import wilson_interval
from pytest_ttsbench.verdict import OUTCOMES

#: Group key used when a row has no value for a ``by`` attribute or facet.
_FIELDS = frozenset(f.name for f in fields(ItemResult))


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


@dataclass
class RouteFigures:
    """One ASR route's own verdicts over a bucket's targets."""

    n: int = 0
    correct: int = 0
    wrong: int = 0
    unknown: int = 0
    error: int = 0

    @property
    def strict_accuracy(self) -> float | None:
        return _ratio(self.correct, self.n)

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, computed={"strict_accuracy": self.strict_accuracy})


@dataclass
class Bucket(RouteFigures):
    """Counts for one group of results (the final, voted verdicts); the rates are derived from them."""

    excluded: int = 0
    #: targets whose route verdicts were not unanimous (written as the rate)
    disagreements: int = field(default=0, metadata=NOT_WRITTEN)
    #: targets that had at least two route verdicts (disagreement is only defined for those)
    multi_route: int = field(default=0, metadata=NOT_WRITTEN)
    #: written by route name, after the rates
    routes: dict[str, RouteFigures] = field(default_factory=dict, metadata=NOT_WRITTEN)

    @property
    def coverage(self) -> float | None:
        return _ratio(self.correct + self.wrong, self.n)

    @property
    def resolved_accuracy(self) -> float | None:
        return _ratio(self.correct, self.correct + self.wrong)

    @property
    def unknown_rate(self) -> float | None:
        return _ratio(self.unknown, self.n)

    @property
    def disagreement_rate(self) -> float | None:
        return _ratio(self.disagreements, self.n) if self.multi_route else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return wilson_interval(self.correct, self.n)

    def to_dict(self) -> dict[str, Any]:
        rates = {
            "strict_accuracy": self.strict_accuracy,
            "coverage": self.coverage,
            "resolved_accuracy": self.resolved_accuracy,
            "unknown_rate": self.unknown_rate,
            "disagreement_rate": self.disagreement_rate,
            "ci95": self.ci95,
        }
        return record_dict(self, computed=rates | {"routes": dict(sorted(self.routes.items()))})


def _route_label(label: str | None) -> str:
    """A route verdict as counted: missing or empty is unknown."""
    label = label or "unknown"
    if label not in OUTCOMES:
        raise ValueError(f"route verdict {label!r} is not one of {OUTCOMES}")
    return label


def bucket_of(results: Iterable[ItemResult]) -> Bucket:
    """Count one group of results into a :class:`Bucket`."""
    counted: list[ItemResult] = []
    bucket = Bucket()
    for result in results:
        if not result.auto_evaluable:
            bucket.excluded += 1
            continue
        if result.verdict not in OUTCOMES:
            raise ValueError(f"{result.key}: verdict {result.verdict!r} is not one of {OUTCOMES}")
        counted.append(result)
    route_names = sorted({name for r in counted for name in r.route_verdicts})
    bucket.routes = {name: RouteFigures() for name in route_names}
    for result in counted:
        bucket.n += 1
        setattr(bucket, result.verdict, getattr(bucket, result.verdict) + 1)
        labels = [_route_label(v) for v in result.route_verdicts.values()]
        if len(labels) >= 2:
            bucket.multi_route += 1
            if len(set(labels)) > 1:
                bucket.disagreements += 1
        for name, figures in bucket.routes.items():
            label = _route_label(result.route_verdicts.get(name))
            figures.n += 1
            setattr(figures, label, getattr(figures, label) + 1)
    return bucket


def overall(results: Iterable[ItemResult]) -> Bucket:
    """All results in one bucket."""
    return bucket_of(results)


def _check_by(by: Sequence[str]) -> None:
    for name in by:
        if name.startswith(FACET_PREFIX):
            if not name[len(FACET_PREFIX) :]:
                raise ValueError(f"{name!r}: a facet name is needed after {FACET_PREFIX!r}")
        elif name not in _FIELDS:
            raise ValueError(f"cannot group by {name!r}: not an ItemResult field nor 'facet:<name>'")


def summarize(results: Iterable[ItemResult], by: Sequence[str]) -> dict[tuple[str, ...], Bucket]:
    """One bucket per distinct combination of the ``by`` values, sorted by key.

    ``by`` names are ItemResult fields (``engine``, ``suite``, ``category``, ``group``,
    ``domain``, ``language`` ...) or ``facet:<name>``.
    An empty ``by`` gives the single key ``()`` (no keys at all when there are no results).
    """
    _check_by(by)
    groups: dict[tuple[str, ...], list[ItemResult]] = {}
    for result in results:
        key = tuple(group_value(result, name) for name in by)
        groups.setdefault(key, []).append(result)
    return {key: bucket_of(groups[key]) for key in sorted(groups)}
