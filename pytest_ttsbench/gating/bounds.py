"""Every bound the gate enforces accounts for itself: one status each, never silence.

Floors (per category, per suite, slices), quality floors, ceilings and tolerances, latency
budgets, the error-rate limit, the regression rule and the shards of a merged run are all
*bounds*. The gate lists each with exactly one status:

* ``held`` — measured, and within the bound;
* ``breached`` — measured, and outside it;
* ``too few`` — measured on fewer targets than ``min_n`` (reported, neither passes nor fails);
* ``not measured`` — its scope is defined and in play, but nothing was judged there (``-k``
  deselected the category a floor named on the command line or in the configuration asks about,
  a shard never ran, a latency figure was never taken);
* ``not selected`` — a floor a case file brings with it, on a category (or slice) the run's
  ``-k``/``-m`` selection left out: a narrowed run is not asked the floors it did not choose, so
  this neither passes nor fails, and says so;
* ``matches nothing`` — no loaded case file defines the suite, category or facet value it names
  (a typo: ``yeras=0.9``). This is a usage error before anything is synthesized
  (:func:`scope_errors`); the gate lists it too, so no path passes over one.

The gate passes only when no bound is ``breached``, ``not measured`` or ``matches nothing``;
``--tts-allow-unmeasured-bounds`` (:data:`ALLOW_UNMEASURED_OPTION`) lets bounds go ``not
measured`` for a deliberately partial run. Nothing here reads files: both front ends (the
pytest plugin and ``ttsbench gate``) call the same functions over the same facts.

Which bounds a run is asked: every bound named on the command line, always (the user asked this
run); bounds from a case file or the configuration only in suites the run selected something
of for that engine (an English-only engine is not asked the Arabic pack's floors). A ``default``
floor is a rule for every category rather than a bound on one: it is listed where it judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.gating.baseline import Comparison, RegressionRule, regression_reasons
from pytest_ttsbench.gating.thresholds import (
    ALL_SUITES,
    DEFAULT_KEY,
    SETTING_KEYS,
    SLICE_SEPARATOR,
    FloorCheck,
    FloorLayer,
    is_slice,
    slice_matches,
)
from pytest_ttsbench.gating.thresholds import BREACHED as FLOOR_BREACHED
from pytest_ttsbench.gating.thresholds import TOO_FEW as FLOOR_TOO_FEW
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.plugin_options import ALLOW_UNMEASURED_OPTION as ALLOW_UNMEASURED_OPTION
from pytest_ttsbench.support.plugin_options import GATE_DECIDES_EXIT_OPTION as GATE_DECIDES_EXIT_OPTION
from pytest_ttsbench.support.record_dicts import record_dict
from pytest_ttsbench.support.text import closest_names

HELD, BREACHED, TOO_FEW, NOT_MEASURED, NOT_SELECTED, MATCHES_NOTHING = (
    "held",
    "breached",
    "too few",
    "not measured",
    "not selected",
    "matches nothing",
)
STATUSES = (HELD, BREACHED, TOO_FEW, NOT_MEASURED, NOT_SELECTED, MATCHES_NOTHING)
#: the one opt-in that lets a bound go unmeasured (never one that matches nothing)
#: where a floor named on the command line comes from
CLI_SOURCE = "--tts-threshold"


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
class Bound:
    """One bound the gate enforced, and what became of it."""

    kind: str  # floor, quality floor/ceiling/tolerance, latency budget, latency slowdown, error rate, ...
    name: str  # as written: ``en-numerals/years=0.9``, ``form=western=0.9``, ``p95<=800ms``
    source: str  # where it came from: an option, a case file, the configuration
    status: str
    engine: str | None = None
    detail: str = ""

    @property
    def unmeasured(self) -> bool:
        return self.status == NOT_MEASURED

    @property
    def failing(self) -> bool:
        return self.status in (BREACHED, NOT_MEASURED, MATCHES_NOTHING)

    def describe(self) -> str:
        engine = f" [{self.engine}]" if self.engine else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.kind} {self.name}{engine} ({self.source}){detail}"

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, order=("kind", "name", "source", "engine", "status", "detail"))


@dataclass(frozen=True)
class DeclaredFloor:
    """One floor as some source wrote it: ``suite`` None for one named across suites."""

    suite: str | None
    key: str
    floor: float
    source: str
    #: brought by a case file rather than named by the user (command line, configuration): a
    #: selection that leaves its scope out makes it ``not selected``, not ``not measured``
    inherited: bool = False

    @property
    def name(self) -> str:
        scope = f"{self.suite}/" if self.suite is not None else ""
        return f"{scope}{self.key}={self.floor:g}"

    @property
    def from_command_line(self) -> bool:
        return self.source == CLI_SOURCE


def declared_floors(
    suite_thresholds: Mapping[str, Mapping[str, Any]],
    layers: Sequence[FloorLayer],
    suite_sources: Mapping[str, str] | None = None,
) -> list[DeclaredFloor]:
    """Every floor a source names, in precedence order (command line, configuration, case files)."""
    found: list[DeclaredFloor] = []
    for layer in layers:
        source = layer.source or "configuration"
        found += [DeclaredFloor(None, key, floor, source) for key, floor in layer.general.items()]
        for suite, floors in layer.by_suite.items():
            found += [DeclaredFloor(suite, key, floor, source) for key, floor in floors.items()]
    for suite, raw in suite_thresholds.items():
        source = (suite_sources or {}).get(suite) or f"the case file of suite {suite}"
        for key, floor in raw.items():
            if key not in SETTING_KEYS and isinstance(floor, (int, float)):
                found.append(DeclaredFloor(suite, str(key), float(floor), source, inherited=True))
    return found


def case_file_source(path: str | Path, base_dir: Path) -> str:
    """A case file as a bound's source: relative to the project (the same in pytest and ``ttsbench gate``)."""
    try:
        return Path(path).resolve().relative_to(base_dir.resolve()).as_posix()
    except ValueError:
        return str(path)


def _closest(name: str, names: Iterable[str]) -> str:
    matches = closest_names(name, names)
    return f"closest: {', '.join(matches)}" if matches else f"known: {', '.join(sorted(set(names))[:12]) or 'none'}"


def _slice_values(field_name: str, scopes: Mapping[str, SuiteScope], suites: Iterable[str]) -> set[str] | None:
    """The values a slice field takes in the given suites; None when no suite has that field at all."""
    values: set[str] = set()
    known = False
    for suite in suites:
        scope = scopes[suite]
        if field_name == "language":
            known = True
            values |= scope.languages | {lang.split("-")[0] for lang in scope.languages}
        elif field_name == "suite":
            known = True
            values.add(suite)
        elif field_name == "category":
            known = True
            values |= scope.categories
        elif field_name in scope.facets:
            known = True
            values |= scope.facets[field_name]
    return values if known else None


def floor_scope_problem(floor: DeclaredFloor, scopes: Mapping[str, SuiteScope]) -> str | None:
    """Why a floor's scope matches nothing in the loaded case files (with the closest names), or None."""
    if floor.suite is not None and floor.suite not in scopes:
        return f"no loaded case file defines suite {floor.suite!r} ({_closest(floor.suite, scopes)})"
    suites = [floor.suite] if floor.suite is not None else sorted(scopes)
    where = f"suite {floor.suite!r}" if floor.suite is not None else "any loaded case file"
    if floor.key == DEFAULT_KEY:
        return None
    if not is_slice(floor.key):
        categories = {c for s in suites for c in scopes[s].categories}
        if floor.key in categories:
            return None
        return f"no category {floor.key!r} in {where} ({_closest(floor.key, categories)})"
    field_name, _, value = floor.key.partition(SLICE_SEPARATOR)
    values = _slice_values(field_name, scopes, suites)
    if values is None:
        fields = {"language", "suite", "category"} | {f for s in suites for f in scopes[s].facets}
        return f"no facet {field_name!r} in {where} ({_closest(field_name, fields)})"
    if value in values:
        return None
    return f"no {field_name} {value!r} in {where} ({_closest(value, values)})"


def quality_scope_problem(scope: Sequence[str], engines: Iterable[str], scopes: Mapping[str, SuiteScope]) -> str | None:
    """Why a quality bound's scope (engine, suite or category names) matches nothing, or None."""
    names = set(engines) | set(scopes) | {c for s in scopes.values() for c in s.categories}
    missing = [name for name in scope if name not in names]
    if not missing:
        return None
    return "; ".join(f"no engine, suite or category {name!r} ({_closest(name, names)})" for name in missing)


def scope_errors(
    floors: Sequence[DeclaredFloor],
    quality_bounds: Iterable[Any],
    engines: Sequence[str],
    scopes: Mapping[str, SuiteScope],
) -> list[str]:
    """One message per bound whose scope no loaded case file defines: a usage error, before anything runs.

    ``engines``: every configured engine profile (a quality bound may be scoped to one not run now)."""
    errors = []
    for floor in floors:
        problem = floor_scope_problem(floor, scopes)
        if problem is not None:
            errors.append(f"floor {floor.name} ({floor.source}) matches nothing: {problem}")
    for bound in quality_bounds:
        problem = quality_scope_problem(bound.scope, engines, scopes)
        if problem is not None:
            errors.append(f"quality {bound.describe()} matches nothing: {problem}")
    return list(dict.fromkeys(errors))


def _floor_status(check: FloorCheck) -> str:
    if check.status == FLOOR_TOO_FEW:
        return TOO_FEW
    return BREACHED if check.status == FLOOR_BREACHED else HELD


def _check_name(suite: str, key: str, floor: float) -> str:
    scope = "" if suite == ALL_SUITES else f"{suite}/"
    return f"{scope}{key}={floor:g}"


def floor_bounds(
    checks: Sequence[FloorCheck],
    floors: Sequence[DeclaredFloor],
    engines: Sequence[str],
    scopes: Mapping[str, SuiteScope],
    in_play: Mapping[str, Iterable[str]] | None,
    ran: Mapping[str, Sequence[ItemResult]] | None = None,
) -> list[Bound]:
    """Every floor's bound: the measured buckets, then each named floor that judged nothing.

    ``in_play``: engine → suites the run selected something of (None: every loaded suite).
    ``ran``: engine → its rows, to tell a case file's floor the selection left out (``not selected``)
    from one whose targets ran and judged nothing (None: no floor is taken as left out).
    """
    bounds: list[Bound] = []
    judged: set[tuple[str, str, str]] = set()
    for check in checks:
        judged.add((check.engine, check.suite, check.category))
        suite = None if check.suite == ALL_SUITES else check.suite
        source = _source_of(floors, suite, check.category)
        detail = f"{check.correct}/{check.n}" + (f", fewer than min_n {check.min_n}" if check.too_few else "")
        bounds.append(
            Bound(
                "floor",
                _check_name(check.suite, check.category, check.floor),
                source,
                _floor_status(check),
                check.engine,
                detail,
            )
        )
    listed: set[tuple[str | None, str, str]] = set()
    # The floor a bucket is asked of is the one resolve_floor would judge it against: sources in
    # order, and within one source a suite's own floor before the general one on the same key, so
    # the first floor to list a bucket is the one that holds there.
    sources = list(dict.fromkeys(floor.source for floor in floors))
    for floor in sorted(floors, key=lambda f: (sources.index(f.source), f.suite is None)):
        problem = floor_scope_problem(floor, scopes)  # a default on a suite no case file defines too
        if problem is not None:
            if (None, floor.suite or ALL_SUITES, floor.name) not in listed:
                listed.add((None, floor.suite or ALL_SUITES, floor.name))
                bounds.append(Bound("floor", floor.name, floor.source, MATCHES_NOTHING, None, problem))
            continue
        if floor.key == DEFAULT_KEY:
            continue  # a rule for every category, listed where it judged
        for engine in engines:
            playing = set(scopes) if in_play is None else set(in_play.get(engine, ()))
            for suite, key in _instances(floor, scopes, playing):
                if (engine, suite, key) in judged or (engine, suite, key) in listed:
                    continue
                listed.add((engine, suite, key))
                bounds.append(_unjudged(floor, engine, suite, key, ran))
    return bounds


def _unjudged(
    floor: DeclaredFloor, engine: str, suite: str, key: str, ran: Mapping[str, Sequence[ItemResult]] | None
) -> Bound:
    """A floor's bucket that judged nothing: ``not selected`` when the floor is a case file's own and
    none of the engine's rows (``ran``; None: not known) fell in it, else ``not measured``."""
    if floor.inherited and ran is not None and not _ran_in(ran.get(engine, ()), suite, key):
        status, detail = NOT_SELECTED, "the run's selection left its scope out"
    else:
        status, detail = NOT_MEASURED, "nothing judged in its scope"
    return Bound("floor", _check_name(suite, key, floor.floor), floor.source, status, engine, detail)


def _ran_in(rows: Iterable[ItemResult], suite: str, key: str) -> bool:
    """Whether any of an engine's rows (an ``error`` row too) falls in a floor's bucket."""
    in_suite = (row for row in rows if suite == ALL_SUITES or row.suite == suite)
    if is_slice(key):
        return any(slice_matches(row, key) for row in in_suite)
    return any(row.category == key for row in in_suite)


def _source_of(floors: Sequence[DeclaredFloor], suite: str | None, key: str) -> str:
    """Where the floor a bucket was judged against comes from, by :func:`~.thresholds.resolve_floor`'s
    precedence: its own key before ``default``; sources in order; within one, suite-specific first."""
    sources = list(dict.fromkeys(floor.source for floor in floors))
    named = {(floor.source, floor.suite, floor.key) for floor in floors}
    for wanted in (key, DEFAULT_KEY) if not is_slice(key) else (key,):
        for source in sources:
            if (source, suite, wanted) in named or (source, None, wanted) in named:
                return source
    return "?"


def _instances(floor: DeclaredFloor, scopes: Mapping[str, SuiteScope], playing: set[str]) -> list[tuple[str, str]]:
    """(suite, key) buckets a defined floor is asked of for one engine: where it is in play."""
    if floor.suite is not None:
        return [(floor.suite, floor.key)] if floor.suite in playing or floor.from_command_line else []
    if is_slice(floor.key):
        defining = [s for s in scopes if floor_scope_problem(DeclaredFloor(s, floor.key, 0, ""), scopes) is None]
        asked = floor.from_command_line or any(s in playing for s in defining)
        return [(ALL_SUITES, floor.key)] if asked else []
    defining = sorted(s for s in scopes if floor.key in scopes[s].categories)
    found = [(s, floor.key) for s in defining if s in playing]
    if not found and floor.from_command_line:
        return [(ALL_SUITES, floor.key)]
    return found


def regression_bound(comparison: Comparison, blocking: Sequence[str], rule: RegressionRule) -> tuple[Bound, list[str]]:
    """The regression rule as one bound over the baseline's targets, and the reasons it is breached.

    ``breached`` when the regressions meet the rule (``blocking``: known gaps, and verdict changes
    another recognizer may explain, left out); else ``not measured`` when a target of the baseline
    has no row in the candidate (deselected with ``-k``, another engine, a shard cut short): whether
    it still works is not known, so the rule fails the gate like every bound that judged nothing
    (:func:`unmeasured_reasons`) unless :data:`ALLOW_UNMEASURED_OPTION`; else ``held``.
    """
    reasons = regression_reasons(comparison, blocking, rule)
    missing = comparison.missing
    status = BREACHED if reasons else NOT_MEASURED if missing else HELD
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    detail = f"{len(missing)} target(s) of the baseline not run: {shown}" if missing else ""
    return Bound("regression rule", "against the baseline", "--tts-fail-on-regression", status, None, detail), reasons


def regression_gate_reasons(
    comparison: Comparison, blocking: Sequence[str], rule: RegressionRule, allow_unmeasured: bool
) -> list[str]:
    """Why the regression rule fails: the one decision of ``--tts-fail-on-regression`` (pytest, ``ttsbench
    gate``, where the gate lists the bound among the others) and ``ttsbench compare --fail-on-regression``."""
    bound, reasons = regression_bound(comparison, blocking, rule)
    return reasons + unmeasured_reasons([bound], allow_unmeasured)


def unmeasured_reasons(bounds: Sequence[Bound], allow_unmeasured: bool) -> list[str]:
    """Why bounds that judged nothing fail the gate: one that matches nothing always, one not measured
    unless the run opted in (:data:`ALLOW_UNMEASURED_OPTION`)."""
    reasons = [
        f"{b.kind} {b.name} ({b.source}) matches nothing: {b.detail}" for b in bounds if b.status == MATCHES_NOTHING
    ]
    unmeasured = [b for b in bounds if b.status == NOT_MEASURED]
    if unmeasured and not allow_unmeasured:
        reasons.append(
            f"{len(unmeasured)} bound(s) not measured ({ALLOW_UNMEASURED_OPTION} allows a partial run): "
            + "; ".join(b.describe() for b in unmeasured)
        )
    return reasons
