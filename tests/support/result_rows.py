"""One way for tests to build an :class:`ItemResult` row: defaults for every required field.

Tests name only the fields their assertion is about; everything else is a neutral default.
"""

from __future__ import annotations

from typing import Any

from pytest_ttsbench.run_model.results import ItemResult

DEFAULTS: dict[str, Any] = {
    "engine": "e",
    "suite": "s",
    "id": "s/x",
    "target": None,
    "category": "c",
    "language": "en",
    "facets": {},
    "verdict": "correct",
    "transcript": "",
    "expected": {},
    "evidence": {},
}


def make_result(**fields: Any) -> ItemResult:
    """An ItemResult with :data:`DEFAULTS` for every field not given (mutable defaults copied)."""
    values = {key: (dict(value) if isinstance(value, dict) else value) for key, value in DEFAULTS.items()}
    values.update(fields)
    return ItemResult(**values)
