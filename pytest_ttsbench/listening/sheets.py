"""Rating sheets sent back by listeners: read, checked against the kit's key, kept as they are.

Two kinds, told apart by their header: clip sheets (``listener,clip,pronunciation,dialect_fit,
naturalness,notes``) and consistency sheets (``listener,group,consistency,notes``). A value
outside the 1–5 scale, an id the kit does not know or a listener rating one thing twice is an
error naming the file, the row and the field; a blank rating is an incomplete sheet (a warning).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.listening.scale import (
    CLIP_COLUMNS,
    CLIP_DIMENSIONS,
    CONSISTENCY,
    CONSISTENCY_COLUMNS,
    SCALE_MAX,
    SCALE_MIN,
)


class SheetError(ValueError):
    """A sheet that cannot be used; the message names the file, the row and the field."""


@dataclass(frozen=True)
class Rating:
    """One listener's rating of one clip (or one group) on one dimension."""

    listener: str
    unit: str  # clip id, or group id for consistency
    dimension: str
    value: int


@dataclass
class Sheet:
    path: Path
    kind: str  # "clips" or "consistency"
    ratings: list[Rating] = field(default_factory=list)
    blanks: list[str] = field(default_factory=list)  # "<unit> <dimension>" left empty
    listeners: set[str] = field(default_factory=set)
    units: set[tuple[str, str]] = field(default_factory=set)  # (listener, unit) rows present


def _kind(path: Path, header: Sequence[str]) -> str:
    columns = tuple(h.strip().lstrip("\ufeff") for h in header)
    if columns == CLIP_COLUMNS:
        return "clips"
    if columns == CONSISTENCY_COLUMNS:
        return "consistency"
    raise SheetError(
        f"{path}: row 1: header {','.join(columns)!r} is neither a clip sheet ({','.join(CLIP_COLUMNS)}) "
        f"nor a consistency sheet ({','.join(CONSISTENCY_COLUMNS)})"
    )


def _value(path: Path, row_number: int, row: Mapping[str, str], unit: str, dimension: str) -> int | None:
    raw = (row.get(dimension) or "").strip()
    if not raw:
        return None
    where = f"{path}: row {row_number} (listener {row.get('listener', '')!r}, {unit}): field {dimension!r}"
    try:
        value = int(raw)
    except ValueError:
        raise SheetError(f"{where}: {raw!r} is not a whole number from {SCALE_MIN} to {SCALE_MAX}") from None
    if not SCALE_MIN <= value <= SCALE_MAX:
        raise SheetError(f"{where}: {value} is outside the scale {SCALE_MIN}–{SCALE_MAX}")
    return value


def read_sheet(path: Path, known: Mapping[str, set[str]]) -> Sheet:
    """One sheet; ``known`` gives the kit's ids per kind (``clips``, ``consistency``)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as exc:
        raise SheetError(f"{path}: cannot read: {exc}") from exc
    if not rows:
        raise SheetError(f"{path}: empty file, no header")
    kind = _kind(path, rows[0])
    columns = CLIP_COLUMNS if kind == "clips" else CONSISTENCY_COLUMNS
    unit_field = columns[1]
    dimensions = [d.name for d in CLIP_DIMENSIONS] if kind == "clips" else [CONSISTENCY.name]
    sheet = Sheet(path, kind)
    for number, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(columns):
            raise SheetError(f"{path}: row {number}: {len(cells)} fields, the header has {len(columns)}")
        row = dict(zip(columns, cells, strict=True))
        listener, unit = row["listener"].strip(), row[unit_field].strip()
        if not listener:
            raise SheetError(f"{path}: row {number}: field 'listener': empty")
        if unit not in known[kind]:
            raise SheetError(f"{path}: row {number}: field {unit_field!r}: {unit!r} is not a {unit_field} of this kit")
        if (listener, unit) in sheet.units:
            raise SheetError(f"{path}: row {number}: listener {listener!r} rated {unit_field} {unit!r} twice")
        sheet.units.add((listener, unit))
        sheet.listeners.add(listener)
        for dimension in dimensions:
            value = _value(path, number, row, f"{unit_field} {unit}", dimension)
            if value is None:
                sheet.blanks.append(f"{unit} {dimension}")
            else:
                sheet.ratings.append(Rating(listener, unit, dimension, value))
    return sheet


def read_sheets(paths: Sequence[Path], key: Mapping[str, Any]) -> list[Sheet]:
    """Every sheet, checked against the kit's key; a listener rating the same thing in two sheets is an error."""
    known = {"clips": set(key["clips"]), "consistency": set(key["groups"])}
    sheets = [read_sheet(path, known) for path in paths]
    owners: dict[tuple[str, str, str], Path] = {}
    for sheet in sheets:
        for listener, unit in sorted(sheet.units):
            slot = (sheet.kind, listener, unit)
            if slot in owners:
                raise SheetError(
                    f"{sheet.path}: listener {listener!r} rated {unit!r} again (already in {owners[slot]})"
                )
            owners[slot] = sheet.path
    return sheets
