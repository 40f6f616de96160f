"""The one check of every number a user gives: a case file's, the configuration's, an option's.

A floor, ceiling, tolerance, budget, min-n, alpha, limit, timeout or rate that is not a finite
number in its range cannot judge anything: ``nan < 0`` and ``nan > 1`` are both false, so a NaN
floor passed every range check written as two comparisons, and then every bucket "met" it; a NaN
``max_clip_seconds`` switched the decoder's limit off. Each such number is checked here, where it is
read, and refused with where it came from (the file and field, or the option), the range and the
value:

* :func:`checked_number` for a value read from a document (YAML and JSON give numbers);
* :func:`parse_number` for text (a compound option's ``years=0.9``);
* :func:`number_option` as the ``type`` of a plain numeric option (pytest's and argparse's);
* :func:`non_finite_paths`, which ``support.schema_check`` runs over every document it checks, so a
  ``.nan`` or ``.inf`` anywhere in a case file or the configuration is refused even in a field no
  code has read yet.

This module imports nothing of the package.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple


class NumberError(ValueError):
    """A number that is not finite or not in its range; the message names where it came from."""


class NumberRange(NamedTuple):
    """The values a number may take: finite always, whole when ``integer``, within the bounds given.

    A named tuple, not a dataclass: every pytest run imports it (the numeric options' types), and a
    named tuple costs a fraction of a frozen dataclass to build (benchmarks/idle_cost.py)."""

    minimum: float | None = None
    maximum: float | None = None
    #: the minimum itself is refused (a timeout of 0)
    exclusive_minimum: bool = False
    integer: bool = False

    def describe(self) -> str:
        """``a whole number of at least 1``, ``a number in [0, 1]``, ``a number above 0``."""
        kind = "a whole number" if self.integer else "a number"
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"{kind} in {'(' if self.exclusive_minimum else '['}{low:g}, {high:g}]"
        if low is not None:
            return f"{kind} {'above' if self.exclusive_minimum else 'of at least'} {low:g}"
        if high is not None:
            return f"{kind} of at most {high:g}"
        return "a finite number" if kind == "a number" else kind

    def admits(self, value: float) -> bool:
        if not math.isfinite(value) or (self.integer and value != int(value)):
            return False
        if self.minimum is not None and (value < self.minimum or (self.exclusive_minimum and value == self.minimum)):
            return False
        return self.maximum is None or value <= self.maximum


#: shares: floors, error rates, regression rates
SHARE = NumberRange(0, 1)
#: a significance level
ALPHA = NumberRange(0, 1, exclusive_minimum=True)
#: a count of at least one (min-n, repeats, listeners)
AT_LEAST_ONE = NumberRange(1, integer=True)
#: a count that may be zero (retries, a regression limit)
COUNT = NumberRange(0, integer=True)
#: seconds, sizes and rates that must be above zero (timeouts, budgets, clip lengths)
POSITIVE = NumberRange(0, exclusive_minimum=True)
#: amounts that may be zero (a tolerance, a wait)
NON_NEGATIVE = NumberRange(0)
#: any whole number (a seed)
WHOLE = NumberRange(integer=True)
#: any finite number (a quality floor or ceiling on a measure such as peak_dbfs)
FINITE = NumberRange()


def checked_number(value: Any, where: str, allowed: NumberRange = FINITE) -> float:
    """``value`` when it is a number ``allowed`` admits (an int stays an int); else :class:`NumberError`
    naming ``where``, the subject of the message (``ttsbench.yaml: field limits.max_clip_seconds``,
    ``--tts-min-n``), the range and the value."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not allowed.admits(float(value)):
        raise NumberError(f"{where} must be {allowed.describe()}, got {value!r}")
    return int(value) if allowed.integer else value


def parse_number(text: str, where: str, allowed: NumberRange = FINITE) -> float:
    """The number ``text`` spells, checked as :func:`checked_number` checks it."""
    try:
        value: float = int(text) if allowed.integer else float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not allowed.admits(value):
        raise NumberError(f"{where} must be {allowed.describe()}, got {text!r}")
    return value


def checked_fields(record: Mapping[str, Any], ranges: Mapping[str, NumberRange], where: str) -> None:
    """Check each numeric field of ``record`` that ``ranges`` names and the record sets (not None)."""
    for key, allowed in ranges.items():
        if record.get(key) is not None:
            checked_number(record[key], f"{where}: field {key}", allowed)


def number_option(flag: str, allowed: NumberRange) -> Callable[[str], float]:
    """The ``type`` of a numeric option: parses and checks its text, naming ``flag`` when it refuses.

    argparse (and so pytest) turns the :class:`argparse.ArgumentTypeError` into a usage error with
    the message as it is. The returned function carries ``allowed`` for the tests that hold every
    numeric option to this check.
    """

    def parse(text: str) -> float:
        try:
            return parse_number(text, flag, allowed)
        except NumberError as exc:  # argparse names the option itself: "argument --tts-min-n: must be ..."
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{flag} ")) from None

    parse.allowed = allowed  # type: ignore[attr-defined]
    parse.__name__ = allowed.describe()  # argparse names the type in "invalid <name> value"
    return parse


def non_finite_paths(document: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], float]]:
    """Every NaN or infinity in a decoded document, with its path (keys and indexes)."""
    if isinstance(document, float) and not math.isfinite(document):
        yield path, document
    elif isinstance(document, Mapping):
        for key, value in document.items():
            yield from non_finite_paths(value, (*path, key))
    elif isinstance(document, list | tuple):
        for index, value in enumerate(document):
            yield from non_finite_paths(value, (*path, index))
