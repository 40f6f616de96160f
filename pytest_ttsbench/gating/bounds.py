"""The gate's one currency: every floor, limit and rule is a :class:`Bound`, judged once into :class:`Judged`.

Floors (per category and slices), quality floors, ceilings and tolerances, latency budgets and
slowdowns, the error-rate limit, the regression rule, coverage, the items under a repeat policy,
strict snapshots and the shards of a merged run are all bounds (known gaps are facts they read:
which failures are expected). Each is one object that
knows its kind, its source (an option, a case file, the configuration, a default) and its scope,
and judges the run's rows once: ``bound.judge(run) → [Judged, ...]``, one entry per scope it
judged (a floor on each engine's bucket, a budget on its engine). The judged list is the only
input of the verdict, the exit status, the gate file, the terminal, the HTML report, the GitHub
annotations and ``ttsbench gate``: nothing re-derives a decision from the figures.

Each judged entry has exactly one status:

* ``held`` — measured, and within the bound;
* ``breached`` — measured, and outside it;
* ``too few`` — measured on fewer targets than ``min_n`` (reported, neither passes nor fails);
* ``not judged`` — a scope the bound judged elsewhere has no figure here (a quality bucket the
  baseline has no figure for: a new category); shown, neither passes nor fails;
* ``not measured`` — its scope is defined and in play, but nothing was judged there (``-k``
  deselected the category a floor named on the command line or in the configuration asks about,
  a shard never ran, a latency figure was never taken);
* ``not selected`` — a floor a case file brings with it, on a category (or slice) the run's
  ``-k``/``-m`` selection left out, or an engine allowed to be unavailable here: a narrowed run is
  not asked the floors it did not choose, so this neither passes nor fails, and says so;
* ``matches nothing`` — no loaded case file defines the suite, category or facet value it names
  (a typo: ``yeras=0.9``). This is a usage error before anything is synthesized
  (:func:`scope_errors`); the gate lists it too, so no path passes over one.

The gate passes only when no entry is ``breached``, ``not measured`` or ``matches nothing``
(:func:`gate_reasons`); ``--tts-allow-unmeasured-bounds`` (:data:`ALLOW_UNMEASURED_OPTION`) lets
entries go ``not measured`` for a deliberately partial run. Nothing here reads files: both front
ends (the pytest plugin and ``ttsbench gate``) build the same bounds and judge the same facts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from pytest_ttsbench.run_model.results import ItemResult

if TYPE_CHECKING:
    from pytest_ttsbench.gating.snapshots import SnapshotCheck
from pytest_ttsbench.support.plugin_options import ALLOW_UNMEASURED_OPTION as ALLOW_UNMEASURED_OPTION
from pytest_ttsbench.support.record_dicts import NOT_WRITTEN, record_dict
from pytest_ttsbench.support.text import closest_names

HELD, BREACHED, TOO_FEW, NOT_JUDGED, NOT_MEASURED, NOT_SELECTED, MATCHES_NOTHING = (
    "held",
    "breached",
    "too few",
    "not judged",
    "not measured",
    "not selected",
    "matches nothing",
)
STATUSES = (HELD, BREACHED, TOO_FEW, NOT_JUDGED, NOT_MEASURED, NOT_SELECTED, MATCHES_NOTHING)
T = TypeVar("T")
#: where a floor named on the command line comes from
CLI_SOURCE = "--tts-threshold"
#: the suite of a bucket measured across every suite (a slice named without a suite)
ALL_SUITES = "*"


@dataclass(frozen=True)
class Judged:
    """One bound's verdict on one scope of the run, with the figures it rests on."""

    kind: str  # floor, quality floor/ceiling/tolerance, latency budget, latency slowdown, error rate, ...
    name: str  # as written: ``en-numerals/years=0.9``, ``form=western=0.9``, ``p95<=800ms``
    source: str  # where it came from: an option, a case file, the configuration
    status: str
    engine: str | None = None
    detail: str = ""
    #: why it fails the gate, one line each (breached and matches nothing; not measured says ``detail``)
    reasons: tuple[str, ...] = field(default=(), metadata=NOT_WRITTEN)
    #: what was measured (a floor's bucket figures, a quality check, a latency check ...): the tables' rows
    measured: Any = field(default=None, compare=False, repr=False, metadata=NOT_WRITTEN)

    @property
    def failing(self) -> bool:
        """Whether it fails the gate whatever the run allows (``not measured`` is :func:`gate_reasons`' call)."""
        return self.status in (BREACHED, MATCHES_NOTHING)

    def describe(self) -> str:
        engine = f" [{self.engine}]" if self.engine else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.kind} {self.name}{engine} ({self.source}){detail}"

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, order=("kind", "name", "source", "engine", "status", "detail"))


@dataclass(frozen=True)
class SuiteScope:
    """What one loaded case file defines: the names a bound may scope itself to."""

    categories: frozenset[str] = frozenset()
    languages: frozenset[str] = frozenset()
    facets: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "categories": sorted(self.categories),
            "languages": sorted(self.languages),
            "facets": {name: sorted(values) for name, values in sorted(self.facets.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SuiteScope:
        facets = data.get("facets") or {}
        return cls(
            frozenset(str(c) for c in data.get("categories") or ()),
            frozenset(str(lang) for lang in data.get("languages") or ()),
            {str(name): frozenset(str(v) for v in values) for name, values in facets.items()},
        )

    @classmethod
    def of(cls, entries: Iterable[tuple[str, str, Mapping[str, Any]]]) -> SuiteScope:
        """From (category, language, facets) of every target a case file holds, selected or not."""
        categories: set[str] = set()
        languages: set[str] = set()
        facets: dict[str, set[str]] = {}
        for category, language, item_facets in entries:
            categories.add(category)
            languages.add(language)
            for name, value in item_facets.items():
                facets.setdefault(str(name), set()).add(str(value))
        return cls(frozenset(categories), frozenset(languages), {k: frozenset(v) for k, v in facets.items()})


@dataclass(frozen=True)
class RunFacts:
    """What every bound is judged over, gathered once per gate."""

    results: tuple[ItemResult, ...]  # every generation's row
    items: tuple[ItemResult, ...]  # one row per target and engine: the verdict under the repeat policy
    engines: tuple[str, ...]  # the engines the bounds are asked of
    scopes: Mapping[str, SuiteScope] = field(default_factory=dict)
    baseline: tuple[ItemResult, ...] | None = None
    # What some kinds read beyond the rows, worked out once by the gate:
    comparison: Any = None  # the regression rule's baseline.Comparison (that module imports this one)
    blocking_regressions: tuple[str, ...] = ()  # the regressions that count against the rule
    snapshots: tuple[SnapshotCheck, ...] = ()  # each engine's strict snapshot check (an update judges nothing)
    items_not_correct: tuple[str, ...] = ()  # under a repeat policy, known gaps aside (the items bound)
    engine_profiles: tuple[str, ...] = ()  # every profile a quality bound's scope may name (empty: engines)
    quality_sets: tuple[str, ...] | None = None  # the quality measure sets the run took (None: not known)
    allow_quality_model_change: bool = False  # a tolerance judges figures measured by other models
    _made: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def once(self, key: str, make: Callable[[], T]) -> T:
        """A figure several bounds read (the quality summaries), worked out the first time it is asked for."""
        if key not in self._made:
            self._made[key] = make()
        return cast(T, self._made[key])

    @cached_property
    def playing(self) -> dict[str, set[str]]:
        """engine → the suites it ran something of (error rows included)."""
        found: dict[str, set[str]] = {}
        for row in self.results:
            found.setdefault(row.engine, set()).add(row.suite)
        return found


class Bound(Protocol):
    """A floor, limit or rule of the gate: it knows its kind and source, and judges the run once."""

    @property
    def kind(self) -> str: ...

    def judge(self, run: RunFacts) -> list[Judged]: ...


def judge_all(bounds: Iterable[Bound], run: RunFacts) -> list[Judged]:
    """Every bound's judged entries, in the order the bounds are given."""
    return [judged for bound in bounds for judged in bound.judge(run)]


def gate_reasons(judged: Sequence[Judged], allow_unmeasured: bool) -> list[str]:
    """Why the gate fails, from the judged list alone: the one decision every front end reads.

    A breached entry and one that matches nothing give their own reasons; entries not measured
    are counted in one line unless the run opted in (:data:`ALLOW_UNMEASURED_OPTION`).
    """
    reasons = [reason for entry in judged if entry.failing for reason in entry.reasons or (entry.describe(),)]
    unmeasured = [entry for entry in judged if entry.status == NOT_MEASURED and not allow_unmeasured]
    # A bound that says in its own words why it judged nothing (a quality bound) says it; the rest are counted.
    reasons += [reason for entry in unmeasured for reason in entry.reasons]
    counted = [entry for entry in unmeasured if not entry.reasons]
    if counted:
        reasons.append(
            f"{len(counted)} bound(s) not measured ({ALLOW_UNMEASURED_OPTION} allows a partial run): "
            + "; ".join(entry.describe() for entry in counted)
        )
    return list(dict.fromkeys(reasons))


def fails(reason: str, kind: str = "session") -> Judged:
    """A run-level failure that is no bound's figure (an unfinished session, a refused write) as an entry."""
    return Judged(kind, "ran to its end", "the session", BREACHED, None, reason, (reason,))


def case_file_source(path: str | Path, base_dir: Path) -> str:
    """A case file as a bound's source: relative to the project (the same in pytest and ``ttsbench gate``)."""
    try:
        return Path(path).resolve().relative_to(base_dir.resolve()).as_posix()
    except ValueError:
        return str(path)


def closest(name: str, names: Iterable[str]) -> str:
    """``closest: a, b`` (the names nearest a misspelt one), else the names known."""
    matches = closest_names(name, names)
    return f"closest: {', '.join(matches)}" if matches else f"known: {', '.join(sorted(set(names))[:12]) or 'none'}"


class ScopedBound(Bound, Protocol):
    """A bound whose scope names suites, categories, facets or engines a case file must define."""

    def scope_problem(self, scopes: Mapping[str, SuiteScope], engines: Sequence[str]) -> str | None: ...

    @property
    def title(self) -> str: ...  # as written, with kind and source: ``floor years=0.9 (--tts-threshold)``


def scope_errors(bounds: Iterable[ScopedBound], engines: Sequence[str], scopes: Mapping[str, SuiteScope]) -> list[str]:
    """One message per bound whose scope no loaded case file defines: a usage error, before anything runs.

    ``engines``: every configured engine profile (a quality bound may be scoped to one not run now)."""
    errors = []
    for bound in bounds:
        problem = bound.scope_problem(scopes, engines)
        if problem is not None:
            errors.append(f"{bound.title} matches nothing: {problem}")
    return list(dict.fromkeys(errors))
