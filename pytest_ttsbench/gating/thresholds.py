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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ttsbench.figures.summary import bucket_of
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE, SHARE, NumberError, checked_number, parse_number
from pytest_ttsbench.support.plugin_options import FLOOR_ON as FLOOR_ON
from pytest_ttsbench.support.record_dicts import record_dict, written_as

DEFAULT_KEY = "default"
MIN_N_KEY = "min_n"
FLOOR_ON_KEY = "floor_on"
#: keys of a ``thresholds`` mapping that are settings, not floors
SETTING_KEYS = frozenset({MIN_N_KEY, FLOOR_ON_KEY})
DEFAULT_MIN_N = 5
SLICE_SEPARATOR = "="
#: suite label of a slice measured across every suite
ALL_SUITES = "*"


class ThresholdError(ValueError):
    """A floor that cannot be used; the message names where it came from."""


def _check_floor(value: Any, where: str) -> float:
    try:
        return float(checked_number(value, f"{where}: a floor", SHARE))
    except NumberError as exc:
        raise ThresholdError(str(exc)) from None


def _check_min_n(value: Any, where: str) -> int:
    try:
        return int(checked_number(value, f"{where}: min_n", AT_LEAST_ONE))
    except NumberError as exc:
        raise ThresholdError(str(exc)) from None


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
class FloorLayer:
    """One source of floors: general ``key → floor`` plus ``suite → {key → floor}``, and its settings."""

    general: Mapping[str, float]
    by_suite: Mapping[str, Mapping[str, float]]
    min_n: int | None = None
    floor_on: str | None = None
    #: where the layer's floors come from (an option, the configuration file), to name them in messages
    source: str = ""

    def lookup(self, suite: str, key: str) -> float | None:
        if key in self.by_suite.get(suite, {}):
            return self.by_suite[suite][key]
        return self.general.get(key)


def config_layer(raw: Mapping[str, Any], where: str = "configuration") -> FloorLayer:
    """The configuration's ``thresholds``: numbers are categories, mappings are suites."""
    general: dict[str, float] = {}
    by_suite: dict[str, dict[str, float]] = {}
    min_n = floor_on = None
    for key, value in raw.items():
        field_name = f"{where}: field thresholds.{key}"
        if key == MIN_N_KEY:
            min_n = _check_min_n(value, field_name)
        elif key == FLOOR_ON_KEY:
            floor_on = _check_floor_on(value, field_name)
        elif isinstance(value, Mapping):
            by_suite[str(key)] = {
                _floor_key(str(cat), f"{where}: field thresholds.{key}.{cat}"): _check_floor(
                    floor, f"{where}: field thresholds.{key}.{cat}"
                )
                for cat, floor in value.items()
            }
        else:
            general[_floor_key(str(key), field_name)] = _check_floor(value, field_name)
    return FloorLayer(general, by_suite, min_n, floor_on, where)


def _floor_key(key: str, where: str) -> str:
    return _check_slice(key, where) if is_slice(key) else key


def parse_cli_thresholds(values: Sequence[str], min_n: int | None = None, floor_on: str | None = None) -> FloorLayer:
    """``["years=0.9", "en-numerals/default=0.5", "form=arabic_indic=0.8"]`` → a layer; a bad entry names itself."""
    general: dict[str, float] = {}
    by_suite: dict[str, dict[str, float]] = {}
    if min_n is not None:
        _check_min_n(min_n, "--tts-min-n")
    if floor_on is not None:
        _check_floor_on(floor_on, "--tts-floor-on")
    for entry in values:
        # The floor follows the last "=": a slice key holds one itself (form=arabic_indic=0.8).
        name, sep, number = entry.rpartition("=")
        name = name.strip()
        if not sep or not name:
            raise ThresholdError(
                f"--tts-threshold {entry!r}: expected [SUITE/]CATEGORY=FLOOR or [SUITE/]FIELD=VALUE=FLOOR"
            )
        try:
            floor = float(parse_number(number.strip(), f"--tts-threshold {entry!r}: a floor", SHARE))
        except NumberError as exc:
            raise ThresholdError(str(exc)) from None
        suite, slash, category = name.partition("/")
        if slash and is_slice(suite):  # a slice whose value holds a slash: not a suite scope
            suite, slash, category = "", "", name
        if slash:
            if not suite or not category:
                raise ThresholdError(f"--tts-threshold {entry!r}: expected SUITE/CATEGORY=FLOOR")
            by_suite.setdefault(suite, {})[_floor_key(category, f"--tts-threshold {entry!r}")] = floor
        else:
            general[_floor_key(name, f"--tts-threshold {entry!r}")] = floor
    return FloorLayer(general, by_suite, min_n, floor_on, "--tts-threshold")


def resolve_floor(
    suite: str,
    category: str,
    suite_thresholds: Mapping[str, Mapping[str, float]],
    layers: Sequence[FloorLayer],
) -> float | None:
    """The floor for one suite's category: ``layers`` are the overrides, highest precedence first."""
    case_file = suite_thresholds.get(suite, {})
    for key in (category, DEFAULT_KEY) if not is_slice(category) else (category,):
        for layer in layers:
            found = layer.lookup(suite, key)
            if found is not None:
                return found
        if key in case_file:
            return float(case_file[key])
    return None


@dataclass(frozen=True)
class FloorPolicy:
    """How every floor is checked: the smallest bucket worth gating, and which figure is compared."""

    min_n: int = DEFAULT_MIN_N
    floor_on: str = "point"


def resolve_policy(
    suite: str | None, layers: Sequence[FloorLayer], case_settings: Mapping[str, Mapping[str, Any]]
) -> FloorPolicy:
    """``min_n`` and ``floor_on`` for one suite (None: a slice across suites): the first layer naming each."""
    case = case_settings.get(suite, {}) if suite is not None else {}
    min_n = next((layer.min_n for layer in layers if layer.min_n is not None), case.get(MIN_N_KEY))
    floor_on = next((layer.floor_on for layer in layers if layer.floor_on is not None), case.get(FLOOR_ON_KEY))
    return FloorPolicy(min_n if min_n is not None else DEFAULT_MIN_N, floor_on or "point")


PASSED, BREACHED, TOO_FEW = "passed", "breached", "too few to gate"

#: the keys of a floor check in the gate file, in their order there
_FLOOR_CHECK_LAYOUT = (
    "engine", "suite", "category", "n", "correct", "strict_accuracy", "floor", "floor_on", "measured", "min_n",
    "ci95", "status", "breached",
)  # fmt: skip


@dataclass(frozen=True)
class FloorCheck:
    """One engine × suite × category (or slice) bucket measured against its floor.

    ``suite`` is :data:`ALL_SUITES` for a slice measured across every suite; ``category`` holds
    the slice key (``form=arabic_indic``) for a slice.
    """

    engine: str
    suite: str
    category: str
    n: int
    correct: int
    accuracy: float = field(metadata=written_as("strict_accuracy"))
    floor: float
    ci95: tuple[float, float]
    min_n: int = 1
    floor_on: str = "point"

    @property
    def measured(self) -> float:
        """The figure compared with the floor: strict accuracy, or its Wilson lower bound."""
        return self.ci95[0] if self.floor_on == "lower" else self.accuracy

    @property
    def status(self) -> str:
        if self.n < self.min_n:
            return TOO_FEW
        return BREACHED if self.measured < self.floor else PASSED

    @property
    def breached(self) -> bool:
        return self.status == BREACHED

    @property
    def too_few(self) -> bool:
        return self.status == TOO_FEW

    @property
    def label(self) -> str:
        return f"{self.engine} {self.suite}/{self.category}"

    def to_dict(self) -> dict[str, Any]:
        return record_dict(
            self,
            computed={"measured": self.measured, "status": self.status, "breached": self.breached},
            order=_FLOOR_CHECK_LAYOUT,
        )


def _split_case_thresholds(
    suite_thresholds: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, Any]]]:
    """Case files' ``thresholds`` → (floors per suite, settings per suite)."""
    floors = {suite: {k: v for k, v in raw.items() if k not in SETTING_KEYS} for suite, raw in suite_thresholds.items()}
    settings = {suite: {k: v for k, v in raw.items() if k in SETTING_KEYS} for suite, raw in suite_thresholds.items()}
    return floors, settings


def _check(
    engine: str, suite: str, key: str, rows: Sequence[ItemResult], floor: float, policy: FloorPolicy
) -> FloorCheck | None:
    bucket = bucket_of(rows)
    if bucket.n == 0:
        return None
    assert bucket.strict_accuracy is not None and bucket.ci95 is not None  # n > 0
    return FloorCheck(
        engine,
        suite,
        key,
        bucket.n,
        bucket.correct,
        bucket.strict_accuracy,
        floor,
        bucket.ci95,
        policy.min_n,
        policy.floor_on,
    )


def evaluate(
    results: Iterable[ItemResult],
    suite_thresholds: Mapping[str, Mapping[str, Any]],
    layers: Sequence[FloorLayer] = (),
) -> list[FloorCheck]:
    """Every category or slice bucket that has a floor and an auto-evaluable target, in table order.

    Categories first (engine, suite, category), then slices within a suite, then slices across
    suites; each with its own ``min_n`` and ``floor_on``.
    """
    rows = list(results)
    floors, settings = _split_case_thresholds(suite_thresholds)

    def policy_of(suite: str | None) -> FloorPolicy:
        return resolve_policy(suite, layers, settings)

    checks: list[FloorCheck] = []
    by_category: dict[tuple[str, str, str], list[ItemResult]] = {}
    for row in rows:
        by_category.setdefault((row.engine, row.suite, row.category), []).append(row)
    for (engine, suite, category), members in sorted(by_category.items()):
        floor = resolve_floor(suite, category, floors, layers)
        check = None if floor is None else _check(engine, suite, category, members, floor, policy_of(suite))
        if check is not None:
            checks.append(check)
    engines = sorted({r.engine for r in rows})
    suites = sorted({r.suite for r in rows})
    for suite in suites:
        keys = {k for k in floors.get(suite, {}) if is_slice(k)}
        keys |= {k for layer in layers for k in layer.by_suite.get(suite, {}) if is_slice(k)}
        for key in sorted(keys):
            candidates = [layer.by_suite.get(suite, {}).get(key) for layer in layers]
            floor = next(f for f in (*candidates, floors.get(suite, {}).get(key)) if f is not None)
            policy = policy_of(suite)
            for engine in engines:
                members = [r for r in rows if r.engine == engine and r.suite == suite and slice_matches(r, key)]
                check = _check(engine, suite, key, members, floor, policy)
                if check is not None:
                    checks.append(check)
    general = sorted({k for layer in layers for k in layer.general if is_slice(k)})
    for key in general:
        floor = next(layer.general[key] for layer in layers if key in layer.general)
        policy = policy_of(None)
        for engine in engines:
            members = [r for r in rows if r.engine == engine and slice_matches(r, key)]
            check = _check(engine, ALL_SUITES, key, members, floor, policy)
            if check is not None:
                checks.append(check)
    return checks


def breaches(checks: Iterable[FloorCheck]) -> list[FloorCheck]:
    """The categories and slices below their floor."""
    return [check for check in checks if check.breached]


def too_few(checks: Iterable[FloorCheck]) -> list[FloorCheck]:
    """The buckets with a floor but fewer targets than ``min_n``: reported, never passed."""
    return [check for check in checks if check.too_few]


def breach_reason(check: FloorCheck) -> str:
    """Why a breached floor fails the run, in one line."""
    figure = "Wilson 95% lower bound" if check.floor_on == "lower" else "strict accuracy"
    return f"{check.label}: {figure} {check.measured:.1%} ({check.correct}/{check.n}) below floor {check.floor:.1%}"
