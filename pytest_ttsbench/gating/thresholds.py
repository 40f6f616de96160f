"""Per-category accuracy floors: where they come from, and which categories fall below them.

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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_ttsbench.gating.summary import summarize
from pytest_ttsbench.results import ItemResult

DEFAULT_KEY = "default"


class ThresholdError(ValueError):
    """A floor that cannot be used; the message names where it came from."""


def _check_floor(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ThresholdError(f"{where}: a floor must be a number between 0 and 1, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class FloorLayer:
    """One source of floors: general ``category → floor`` plus ``suite → {category → floor}``."""

    general: Mapping[str, float]
    by_suite: Mapping[str, Mapping[str, float]]

    def lookup(self, suite: str, key: str) -> float | None:
        if key in self.by_suite.get(suite, {}):
            return self.by_suite[suite][key]
        return self.general.get(key)


def config_layer(raw: Mapping[str, Any], where: str = "configuration") -> FloorLayer:
    """The configuration's ``thresholds``: numbers are categories, mappings are suites."""
    general: dict[str, float] = {}
    by_suite: dict[str, dict[str, float]] = {}
    for key, value in raw.items():
        if isinstance(value, Mapping):
            by_suite[str(key)] = {
                str(cat): _check_floor(floor, f"{where}: field thresholds.{key}.{cat}") for cat, floor in value.items()
            }
        else:
            general[str(key)] = _check_floor(value, f"{where}: field thresholds.{key}")
    return FloorLayer(general, by_suite)


def parse_cli_thresholds(values: Sequence[str]) -> FloorLayer:
    """``["years=0.9", "en-numerals/default=0.5"]`` → a layer; a bad entry names itself."""
    general: dict[str, float] = {}
    by_suite: dict[str, dict[str, float]] = {}
    for entry in values:
        name, sep, number = entry.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ThresholdError(f"--tts-threshold {entry!r}: expected CATEGORY=FLOOR or SUITE/CATEGORY=FLOOR")
        try:
            floor = _check_floor(float(number), f"--tts-threshold {entry!r}")
        except ValueError as exc:
            if isinstance(exc, ThresholdError):
                raise
            raise ThresholdError(f"--tts-threshold {entry!r}: {number!r} is not a number") from exc
        suite, slash, category = name.partition("/")
        if slash:
            if not suite or not category:
                raise ThresholdError(f"--tts-threshold {entry!r}: expected SUITE/CATEGORY=FLOOR")
            by_suite.setdefault(suite, {})[category] = floor
        else:
            general[name] = floor
    return FloorLayer(general, by_suite)


def resolve_floor(
    suite: str,
    category: str,
    suite_thresholds: Mapping[str, Mapping[str, float]],
    layers: Sequence[FloorLayer],
) -> float | None:
    """The floor for one suite's category: ``layers`` are the overrides, highest precedence first."""
    case_file = suite_thresholds.get(suite, {})
    for key in (category, DEFAULT_KEY):
        for layer in layers:
            found = layer.lookup(suite, key)
            if found is not None:
                return found
        if key in case_file:
            return float(case_file[key])
    return None


@dataclass(frozen=True)
class FloorCheck:
    """One engine × suite × category bucket measured against its floor."""

    engine: str
    suite: str
    category: str
    n: int
    correct: int
    accuracy: float
    floor: float
    ci95: tuple[float, float]

    @property
    def breached(self) -> bool:
        return self.accuracy < self.floor

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "suite": self.suite,
            "category": self.category,
            "n": self.n,
            "correct": self.correct,
            "strict_accuracy": self.accuracy,
            "floor": self.floor,
            "ci95": list(self.ci95),
            "breached": self.breached,
        }


def evaluate(
    results: Iterable[ItemResult],
    suite_thresholds: Mapping[str, Mapping[str, float]],
    layers: Sequence[FloorLayer] = (),
) -> list[FloorCheck]:
    """Every bucket that has a floor and at least one auto-evaluable target, in table order."""
    checks: list[FloorCheck] = []
    for (engine, suite, category), bucket in summarize(results, ["engine", "suite", "category"]).items():
        floor = resolve_floor(suite, category, suite_thresholds, layers)
        if floor is None or bucket.n == 0:
            continue
        assert bucket.strict_accuracy is not None and bucket.ci95 is not None  # n > 0
        checks.append(
            FloorCheck(engine, suite, category, bucket.n, bucket.correct, bucket.strict_accuracy, floor, bucket.ci95)
        )
    return checks


def breaches(checks: Iterable[FloorCheck]) -> list[FloorCheck]:
    """The categories below their floor."""
    return [check for check in checks if check.breached]
