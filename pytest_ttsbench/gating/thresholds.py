"""Accuracy floors on categories and other slices: where they come from, and which fall below them.

Floors come from three layers, lowest precedence first:

1. the case file: ``thresholds: {default: 0.8, years: 0.9}``;
2. the configuration (``ttsbench.yaml`` / ``[tool.ttsbench]``), same shape, where a key whose
   value is a mapping names a suite: ``{default: 0.7, en-numerals: {years: 0.95}}``;
3. the command line: ``--tts-threshold CATEGORY=0.9`` or ``--tts-threshold SUITE/CATEGORY=0.9``.

The layers merge key by key, a suite-specific key beating a general one within a layer; a
category then takes its own key if any layer names it, and ``default`` otherwise. So a case
file's ``years: 0.9`` survives a configuration ``default: 0.7``, while a configuration or
command-line ``years`` overrides it. The figure gated is strict accuracy (correct / n over the
auto-evaluable targets), so unknowns, errors and known gaps all count against the floor.

A key holding ``=`` is a *slice* rather than a category: ``form=arabic_indic`` (a facet),
``language=ar`` (the item language or its primary subtag), ``suite=zh-news`` or
``category=years``. A slice named at the top level of the command line or the configuration
is measured across every suite; one in a case file, under a suite in the configuration, or as
``SUITE/form=arabic_indic`` on the command line only within that suite.

Two settings apply to every floor, with the same precedence (command line, configuration,
case file): ``min_n`` (default 5) — a bucket with fewer targets is reported as *too few to
gate*: it neither passes nor fails, and says so — and ``floor_on`` (``point`` or ``lower``):
compare the point estimate, or the Wilson 95 % lower bound, which a small bucket must clear
by a margin before the release manager can say the floor holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from pytest_ttsbench.figures.summary import bucket_of
from pytest_ttsbench.gating.bounds import (
    ALL_SUITES,
    BREACHED,
    CLI_SOURCE,
    HELD,
    MATCHES_NOTHING,
    NOT_MEASURED,
    NOT_SELECTED,
    TOO_FEW,
    Judged,
    RunFacts,
    SuiteScope,
    closest,
)
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE, SHARE, NumberError, checked_number, parse_number
from pytest_ttsbench.support.plugin_options import FLOOR_ON as FLOOR_ON

DEFAULT_KEY = "default"
MIN_N_KEY = "min_n"
FLOOR_ON_KEY = "floor_on"
#: keys of a ``thresholds`` mapping that are settings, not floors
SETTING_KEYS = frozenset({MIN_N_KEY, FLOOR_ON_KEY})
DEFAULT_MIN_N = 5
SLICE_SEPARATOR = "="


#: a floor or floor setting that cannot be used; the message names where it came from (the one number check's)
ThresholdError = NumberError


def _check_floor_on(value: Any, where: str) -> str:
    if value not in FLOOR_ON:
        raise ThresholdError(f"{where}: floor_on must be one of {', '.join(FLOOR_ON)}, got {value!r}")
    return str(value)


def is_slice(key: str) -> bool:
    """Whether a floor key names a slice (``form=arabic_indic``) rather than a category."""
    return SLICE_SEPARATOR in key


def _check_slice(key: str, where: str) -> str:
    name, _, value = key.partition(SLICE_SEPARATOR)
    if not name.strip() or not value.strip():
        raise ThresholdError(f"{where}: a slice is FIELD=VALUE (e.g. form=arabic_indic), got {key!r}")
    return f"{name.strip()}{SLICE_SEPARATOR}{value.strip()}"


def slice_matches(row: ItemResult, key: str) -> bool:
    """Whether a row belongs to the slice ``FIELD=VALUE``: language, suite, category, else a facet."""
    name, _, value = key.partition(SLICE_SEPARATOR)
    if name == "language":
        return row.language == value or row.language.split("-")[0] == value
    if name in ("suite", "category"):
        return str(getattr(row, name)) == value
    return str(row.facets.get(name, "")) == value


@dataclass(frozen=True)
class FloorSettings:
    """``min_n`` and ``floor_on`` as one source (the command line, the configuration, a case file) sets them."""

    min_n: int | None = None
    floor_on: str | None = None

    @classmethod
    def checked(cls, min_n: Any, floor_on: Any, where: tuple[str, str]) -> FloorSettings:
        """Settings read from a source, each refused with its option or field when it cannot be used."""
        return cls(
            None if min_n is None else int(checked_number(min_n, f"{where[0]}: min_n", AT_LEAST_ONE)),
            None if floor_on is None else _check_floor_on(floor_on, where[1]),
        )


@dataclass(frozen=True)
class FloorPolicy:
    """How a bucket is checked: the smallest bucket worth gating, and which figure is compared."""

    min_n: int = DEFAULT_MIN_N
    floor_on: str = "point"


@dataclass(frozen=True)
class FloorPolicies:
    """The settings of every source, highest precedence first, and each case file's own."""

    overrides: tuple[FloorSettings, ...] = ()
    by_suite: Mapping[str, FloorSettings] = field(default_factory=dict)

    def of(self, suite: str) -> FloorPolicy:
        """``min_n`` and ``floor_on`` for one suite (:data:`ALL_SUITES`: a slice across suites)."""
        layers = (*self.overrides, self.by_suite.get(suite, FloorSettings()))
        min_n = next((s.min_n for s in layers if s.min_n is not None), DEFAULT_MIN_N)
        return FloorPolicy(min_n, next((s.floor_on for s in layers if s.floor_on is not None), "point"))


#: where each source stands: the command line over the configuration over a case file
CLI_RANK, CONFIG_RANK, CASE_FILE_RANK = 0, 1, 2


@dataclass(frozen=True)
class Floor:
    """One accuracy floor as a source wrote it (``suite`` None: across suites), a :class:`~.bounds.Bound`.

    :func:`settle_floors` gives it its ``rivals`` (every other floor of the run), so it knows where
    it is in force, by the precedence the module's docstring gives: settled once, for every reader.
    """

    kind: ClassVar[str] = "floor"

    suite: str | None
    key: str
    floor: float
    source: str
    #: brought by a case file rather than named by the user (command line, configuration): a
    #: selection that leaves its scope out makes it ``not selected``, not ``not measured``
    inherited: bool = False
    rank: int = CLI_RANK
    policies: FloorPolicies = field(default_factory=FloorPolicies, compare=False, repr=False)
    rivals: tuple[Floor, ...] = field(default=(), compare=False, repr=False)

    @property
    def name(self) -> str:
        scope = f"{self.suite}/" if self.suite is not None else ""
        return f"{scope}{self.key}={self.floor:g}"

    @property
    def title(self) -> str:
        return f"floor {self.name} ({self.source})"

    @property
    def from_command_line(self) -> bool:
        return self.source == CLI_SOURCE

    def _precedence(self) -> tuple[bool, int, bool]:
        return (self.key == DEFAULT_KEY, self.rank, self.suite is None)

    def covers(self, suite: str, key: str) -> bool:
        """Whether the floor speaks for a bucket: a category (or :data:`ALL_SUITES`' slice) of a suite."""
        if is_slice(key) or is_slice(self.key):
            return self.key == key and (self.suite == suite or (self.suite is None and suite == ALL_SUITES))
        if suite == ALL_SUITES:  # a category named across suites where no suite the engine played defines it
            return self.suite is None and self.key == key
        return self.key in (key, DEFAULT_KEY) and self.suite in (None, suite)

    def in_force(self, suite: str, key: str) -> bool:
        """Whether this is the floor a bucket is judged against: it covers it and no rival outranks it."""
        mine = self._precedence()
        return self.covers(suite, key) and not any(
            rival.covers(suite, key) and rival._precedence() < mine for rival in self.rivals
        )

    def scope_problem(self, scopes: Mapping[str, SuiteScope], engines: Sequence[str] = ()) -> str | None:
        """Why the floor's scope matches nothing in the loaded case files (with the closest names), or None."""
        if self.suite is not None and self.suite not in scopes:
            return f"no loaded case file defines suite {self.suite!r} ({closest(self.suite, scopes)})"
        suites = [self.suite] if self.suite is not None else sorted(scopes)
        where = f"suite {self.suite!r}" if self.suite is not None else "any loaded case file"
        if self.key == DEFAULT_KEY:
            return None
        if not is_slice(self.key):
            categories = {c for s in suites for c in scopes[s].categories}
            if self.key in categories:
                return None
            return f"no category {self.key!r} in {where} ({closest(self.key, categories)})"
        field_name, _, value = self.key.partition(SLICE_SEPARATOR)
        values = _slice_values(field_name, scopes, suites)
        if values is None:
            fields = {"language", "suite", "category"} | {f for s in suites for f in scopes[s].facets}
            return f"no facet {field_name!r} in {where} ({closest(field_name, fields)})"
        return None if value in values else f"no {field_name} {value!r} in {where} ({closest(value, values)})"

    def judge(self, run: RunFacts) -> list[Judged]:
        """The floor on each engine's bucket where it is in force; a bucket it asks about that judged
        nothing is ``not selected`` (a case file's floor the selection left out) or ``not measured``."""
        problem = self.scope_problem(run.scopes)
        if problem is not None:
            reason = f"{self.title} matches nothing: {problem}"
            return [Judged(self.kind, self.name, self.source, MATCHES_NOTHING, None, problem, (reason,))]
        judged = []
        for engine in run.engines:
            rows = [row for row in run.items if row.engine == engine]
            for suite, key in self._buckets(run, engine, rows):
                if self.in_force(suite, key):
                    entry = self._judge_bucket(run, engine, suite, key, [r for r in rows if _in_bucket(r, suite, key)])
                    judged += [entry] if entry is not None else []
        return judged

    def _buckets(self, run: RunFacts, engine: str, rows: Sequence[ItemResult]) -> list[tuple[str, str]]:
        """The (suite, key) buckets the floor is asked of for one engine: where the run played, or
        anywhere for a floor named on the command line (the user asked this run)."""
        if self.key == DEFAULT_KEY:  # a rule for every category: listed where it judged
            return sorted({(r.suite, r.category) for r in rows if self.suite in (None, r.suite)})
        playing = run.playing.get(engine, set())
        found = [(bucket, suites) for bucket, suites in self._defined(run.scopes) if suites & playing]
        if found or not self.from_command_line:
            return [bucket for bucket, _ in found]
        return [(self.suite or ALL_SUITES, self.key)]

    def _defined(self, scopes: Mapping[str, SuiteScope]) -> list[tuple[tuple[str, str], set[str]]]:
        """Each bucket the floor names, with the suites whose play puts it in question."""
        if self.suite is not None:
            return [((self.suite, self.key), {self.suite})]
        if is_slice(self.key):
            defining = {s for s in scopes if replace(self, suite=s).scope_problem(scopes) is None}
            return [((ALL_SUITES, self.key), defining)]
        return [((s, self.key), {s}) for s in sorted(scopes) if self.key in scopes[s].categories]

    def _judge_bucket(
        self, run: RunFacts, engine: str, suite: str, key: str, members: Sequence[ItemResult]
    ) -> Judged | None:
        name = f"{'' if suite == ALL_SUITES else suite + '/'}{key}={self.floor:g}"
        bucket = bucket_of(members)
        if bucket.strict_accuracy is None or bucket.ci95 is None:  # no auto-evaluable target
            if self.key == DEFAULT_KEY:
                return None
            ran = any(_in_bucket(row, suite, key) for row in run.results if row.engine == engine)
            if self.inherited and not ran:
                left_out = "the run's selection left its scope out"
                return Judged(self.kind, name, self.source, NOT_SELECTED, engine, left_out)
            return Judged(self.kind, name, self.source, NOT_MEASURED, engine, "nothing judged in its scope")
        policy = self.policies.of(suite)
        measured = bucket.ci95[0] if policy.floor_on == "lower" else bucket.strict_accuracy
        status = TOO_FEW if bucket.n < policy.min_n else BREACHED if measured < self.floor else HELD
        figures = {
            "engine": engine, "suite": suite, "category": key, "n": bucket.n, "correct": bucket.correct,
            "strict_accuracy": bucket.strict_accuracy, "floor": self.floor, "floor_on": policy.floor_on,
            "measured": measured, "min_n": policy.min_n, "ci95": list(bucket.ci95),
            "status": {HELD: "passed", BREACHED: "breached", TOO_FEW: "too few to gate"}[status],
            "breached": status == BREACHED,
        }  # fmt: skip
        detail = f"{bucket.correct}/{bucket.n}" + (f", fewer than min_n {policy.min_n}" if status == TOO_FEW else "")
        figure = "Wilson 95% lower bound" if policy.floor_on == "lower" else "strict accuracy"
        counted = f"({bucket.correct}/{bucket.n})"
        why = f"{engine} {suite}/{key}: {figure} {measured:.1%} {counted} below floor {self.floor:.1%}"
        return Judged(
            self.kind, name, self.source, status, engine, detail, (why,) if status == BREACHED else (), figures
        )


def _in_bucket(row: ItemResult, suite: str, key: str) -> bool:
    if suite != ALL_SUITES and row.suite != suite:
        return False
    return slice_matches(row, key) if is_slice(key) else row.category == key


def _slice_values(field_name: str, scopes: Mapping[str, SuiteScope], suites: Sequence[str]) -> set[str] | None:
    """The values a slice field takes in the given suites; None when no suite has that field at all."""
    values: set[str] = set()
    known = False
    for suite in suites:
        scope = scopes[suite]
        if field_name in ("language", "suite", "category"):
            known = True
            values |= {
                "language": scope.languages | {lang.split("-")[0] for lang in scope.languages},
                "suite": {suite},
                "category": scope.categories,
            }[field_name]
        elif field_name in scope.facets:
            known = True
            values |= scope.facets[field_name]
    return values if known else None


def config_floors(raw: Mapping[str, Any], where: str = "configuration") -> tuple[list[Floor], FloorSettings]:
    """The configuration's ``thresholds``: numbers are categories (or slices), mappings are suites.

    Two keys naming one floor (``form=w`` and ``form = w``) leave one: the later, as in the mapping."""
    floors: dict[tuple[str | None, str], Floor] = {}
    for key, value in raw.items():
        if key in SETTING_KEYS:
            continue
        inner = value.items() if isinstance(value, Mapping) else [(None, value)]
        for category, floor in inner:
            suite, name = (None, str(key)) if category is None else (str(key), str(category))
            field_name = f"{where}: field thresholds.{key}" + ("" if category is None else f".{category}")
            number = float(checked_number(floor, f"{field_name}: a floor", SHARE))
            checked = Floor(suite, _floor_key(name, field_name), number, where, False, CONFIG_RANK)
            floors[(checked.suite, checked.key)] = checked
    fields = (f"{where}: field thresholds.min_n", f"{where}: field thresholds.floor_on")
    return list(floors.values()), FloorSettings.checked(raw.get(MIN_N_KEY), raw.get(FLOOR_ON_KEY), fields)


def _floor_key(key: str, where: str) -> str:
    return _check_slice(key, where) if is_slice(key) else key


def parse_cli_thresholds(values: Sequence[str]) -> list[Floor]:
    """``["years=0.9", "en-numerals/default=0.5", "form=arabic_indic=0.8"]`` → floors; a bad entry names itself."""
    floors: dict[tuple[str | None, str], Floor] = {}
    for entry in values:
        # The floor follows the last "=": a slice key holds one itself (form=arabic_indic=0.8).
        name, sep, number = entry.rpartition("=")
        name = name.strip()
        where = f"--tts-threshold {entry!r}"
        if not sep or not name:
            raise ThresholdError(f"{where}: expected [SUITE/]CATEGORY=FLOOR or [SUITE/]FIELD=VALUE=FLOOR")
        floor = float(parse_number(number.strip(), f"{where}: a floor", SHARE))
        suite, slash, category = name.partition("/")
        if slash and is_slice(suite):  # a slice whose value holds a slash: not a suite scope
            suite, slash, category = "", "", name
        if slash and (not suite or not category):
            raise ThresholdError(f"{where}: expected SUITE/CATEGORY=FLOOR")
        scope, key = (suite, category) if slash else (None, name)
        floors[(scope, _floor_key(key, where))] = Floor(scope, _floor_key(key, where), floor, CLI_SOURCE)
    return list(floors.values())


def case_file_floors(
    suite_thresholds: Mapping[str, Mapping[str, Any]], suite_sources: Mapping[str, str]
) -> tuple[list[Floor], dict[str, FloorSettings]]:
    """Every case file's own floors (validated when it was loaded) and its ``min_n``/``floor_on``."""
    floors: list[Floor] = []
    settings: dict[str, FloorSettings] = {}
    for suite, raw in suite_thresholds.items():
        source = suite_sources.get(suite) or f"the case file of suite {suite}"
        settings[suite] = FloorSettings(raw.get(MIN_N_KEY), raw.get(FLOOR_ON_KEY))
        for key, floor in raw.items():
            if key not in SETTING_KEYS and isinstance(floor, (int, float)):
                floors.append(Floor(suite, str(key), float(floor), source, True, CASE_FILE_RANK))
    return floors, settings


def settle_floors(
    overrides: Sequence[Floor],
    settings: Sequence[FloorSettings],
    suite_thresholds: Mapping[str, Mapping[str, Any]],
    suite_sources: Mapping[str, str] | None = None,
) -> list[Floor]:
    """Every floor of the run, each knowing its rivals and its settings: precedence settled once.

    ``overrides``: the command line's floors, then the configuration's; ``settings``: theirs, in the
    same order. The case files' own floors and settings come last."""
    case_floors, case_settings = case_file_floors(suite_thresholds, suite_sources or {})
    policies = FloorPolicies(tuple(settings), case_settings)
    floors = [replace(floor, policies=policies) for floor in (*overrides, *case_floors)]
    return [replace(floor, rivals=tuple(f for f in floors if f is not floor)) for floor in floors]
