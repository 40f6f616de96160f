"""The syntax of quality bounds: floors, ceilings and tolerances on quality measures, apart from accuracy.

A bound names a measure and, optionally, a scope: names that must each equal the engine, the
suite or the category of a bucket (``piper/dnsmos_ovrl=3.2``, ``en-numerals/years/
speaking_rate=9``). Bounds come from three layers, highest precedence first: the command line
(``--tts-quality-floor``, ``--tts-quality-ceiling``, ``--tts-quality-tolerance``), the
configuration's ``quality`` section, and a case file's ``quality`` section (scoped to its
suite). How the gate judges them is in :mod:`pytest_ttsbench.gating.quality`.

The obvious bound that cannot be judged is refused before anything runs, with the other options
(:mod:`pytest_ttsbench.session.gate_options`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pytest_ttsbench.quality.measures import QualityOptionError, measure
from pytest_ttsbench.support.checked_numbers import FINITE, NON_NEGATIVE, NumberError, checked_number, parse_number

Kind = Literal["floor", "ceiling", "tolerance"]
KINDS: tuple[Kind, ...] = ("floor", "ceiling", "tolerance")
#: The key of each kind in a configuration or case file's ``quality`` section.
SECTION_KEYS: dict[str, Kind] = {"floors": "floor", "ceilings": "ceiling", "tolerance": "tolerance"}
OPTION_NAMES: dict[Kind, str] = {
    "floor": "--tts-quality-floor",
    "ceiling": "--tts-quality-ceiling",
    "tolerance": "--tts-quality-tolerance",
}
ALLOW_MODEL_CHANGE_OPTION = "--tts-allow-quality-model-change"


@dataclass(frozen=True)
class QualityBound:
    """One floor, ceiling or tolerance on a measure, for the buckets its scope matches, as written.

    The gate judges it as a :class:`~pytest_ttsbench.gating.quality.QualityLimit` (case files are
    checked against this syntax when they load, below the gate)."""

    kind: Kind
    measure: str
    value: float
    scope: tuple[str, ...] = ()
    source: str = ""

    def matches(self, bucket: Sequence[str]) -> bool:
        return all(name in bucket for name in self.scope)

    def describe(self) -> str:
        """``floor piper/dnsmos_ovrl=3.2 (--tts-quality-floor)``: the bound as written, and where."""
        where = f" ({self.source})" if self.source else ""
        return f"{self.kind} {self.written}{where}"

    @property
    def written(self) -> str:
        """``piper/dnsmos_ovrl=3.2``: scope, measure and value as the user wrote them."""
        return f"{'/'.join((*self.scope, self.measure))}={self.value:g}"

    @property
    def title(self) -> str:
        return f"quality {self.describe()}"


def _number(value: Any, where: str, kind: Kind) -> float:
    """A bound's value: any finite number, and not negative for a tolerance (a move the wrong way)."""
    try:
        return float(checked_number(value, f"{where}: a {kind}", NON_NEGATIVE if kind == "tolerance" else FINITE))
    except NumberError as exc:
        raise QualityOptionError(str(exc)) from None


def parse_cli_bounds(values: Sequence[str], kind: Kind) -> list[QualityBound]:
    """``["dnsmos_ovrl=3.0", "piper/dnsmos_ovrl=3.2"]`` → bounds; a bad entry names the option and itself."""
    option = OPTION_NAMES[kind]
    bounds: list[QualityBound] = []
    for entry in values:
        name, sep, number = entry.partition("=")
        parts = [p.strip() for p in name.split("/")]
        if not sep or not all(parts):
            raise QualityOptionError(f"{option} {entry!r}: expected [SCOPE/...]MEASURE=VALUE")
        where = f"{option} {entry!r}"
        measure(parts[-1], where)
        try:
            value = parse_number(number.strip(), f"{where}: a {kind}")
        except NumberError as exc:
            raise QualityOptionError(str(exc)) from None
        bounds.append(QualityBound(kind, parts[-1], _number(value, where, kind), tuple(parts[:-1]), option))
    return bounds


def section_bounds(section: Any, where: str, scope: tuple[str, ...] = ()) -> list[QualityBound]:
    """Bounds from a ``quality`` section: ``{floors: {dnsmos_ovrl: 3, piper: {dnsmos_ovrl: 3.2}}, ...}``.

    Under ``floors``, ``ceilings`` and ``tolerance``, a key holding a number is a measure and a key
    holding a mapping is a scope (an engine, suite or category name, or several joined by ``/``).
    """
    if section is None:
        return []
    if not isinstance(section, Mapping):
        raise QualityOptionError(f"{where}: field quality must be a mapping")
    bounds: list[QualityBound] = []
    for key, kind in SECTION_KEYS.items():
        entries = section.get(key)
        if entries is None:
            continue
        if not isinstance(entries, Mapping):
            raise QualityOptionError(f"{where}: field quality.{key} must be a mapping of measure to number")
        bounds += _entries(entries, kind, f"{where}: field quality.{key}", scope)
    return bounds


def _entries(entries: Mapping[str, Any], kind: Kind, where: str, scope: tuple[str, ...]) -> list[QualityBound]:
    bounds: list[QualityBound] = []
    for key, value in entries.items():
        field_where = f"{where}.{key}"
        if isinstance(value, Mapping):
            inner = tuple(p for p in str(key).split("/") if p)
            bounds += _entries(value, kind, field_where, scope + inner)
            continue
        measure(str(key), field_where)
        bounds.append(QualityBound(kind, str(key), _number(value, field_where, kind), scope, where.split(":")[0]))
    return bounds


def no_figures_hint(name: str, quality_sets: Sequence[str] | None) -> str:
    """Why a run has no figures for ``name``, as far as the run's chosen measure sets tell."""
    measure_set = measure(name, "quality gate").measure_set
    if quality_sets is not None and measure_set in quality_sets:
        return "none of their clips has a figure: each failed before it was measured, or the measure does not apply"
    if quality_sets is not None:
        return f"--tts-quality {measure_set} measures them; this run measured {', '.join(quality_sets) or 'none'}"
    return f"--tts-quality {measure_set} measures them"


def override_layers(
    config_section: Mapping[str, Any],
    where: str,
    floors: Sequence[str],
    ceilings: Sequence[str],
    tolerance: Sequence[str],
) -> list[list[QualityBound]]:
    """The command line's bounds, then the configuration's: the layers above every case file's own."""
    cli = parse_cli_bounds(floors, "floor") + parse_cli_bounds(ceilings, "ceiling")
    cli += parse_cli_bounds(tolerance, "tolerance")
    return [cli, section_bounds(config_section, where)]


def case_file_layer(sections: Mapping[str, Mapping[str, Any]]) -> list[QualityBound]:
    """Every suite's own ``quality`` section, each scoped to its suite (already validated when loaded)."""
    bounds: list[QualityBound] = []
    for suite, section in sorted(sections.items()):
        bounds += section_bounds(section, f"suite {suite}", (suite,))
    return bounds
