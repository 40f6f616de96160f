"""Records as JSON objects: one way a record (a dataclass) becomes the dictionary a file holds.

Gate files, reports and caches hold records: a floor check, a latency budget, a repeated item.
:func:`record_dict` writes a record's fields in the order they are declared, each under its own
name or the key its field's metadata gives (:func:`written_as`), leaving out the fields marked
:data:`NOT_WRITTEN` (and the :data:`WRITTEN_WHEN_SET` ones that hold nothing), then the figures the
record computes (``computed``), in the order given. Values are made plain on the way: a nested
record by its own ``to_dict`` (or as a record), tuples and lists as lists, dicts as copies.

The layout of these files is compared byte for byte by tests and by users' baselines, so a
record whose file layout puts a computed figure between two fields (it was written before this
helper) restates its keys in ``order``; a key missing from ``order``, or one it names that the
record does not write, is a programming error, raised at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

_KEY = "pytest_ttsbench.record_key"
_WRITTEN = "pytest_ttsbench.record_written"

#: field metadata: the field is never written (it feeds a computed figure, or is kept in memory only)
NOT_WRITTEN: Mapping[str, Any] = MappingProxyType({_WRITTEN: "never"})
#: field metadata: the field is written only when it holds something (not None, not empty)
WRITTEN_WHEN_SET: Mapping[str, Any] = MappingProxyType({_WRITTEN: "when set"})


def written_as(key: str) -> Mapping[str, Any]:
    """Field metadata: the field is written under ``key`` (the file's name for it) instead of its own name."""
    return MappingProxyType({_KEY: key})


def record_dict(
    record: Any, *, computed: Mapping[str, Any] | None = None, order: Sequence[str] | None = None
) -> dict[str, Any]:
    """The JSON object of a dataclass ``record``: its written fields, then ``computed``, in ``order`` if given."""
    data: dict[str, Any] = {}
    for spec in dataclasses.fields(record):
        written = spec.metadata.get(_WRITTEN, "always")
        value = getattr(record, spec.name)
        if written == "never" or (written == "when set" and not value):
            continue
        data[spec.metadata.get(_KEY, spec.name)] = plain(value)
    for key, value in (computed or {}).items():
        if key in data:
            raise ValueError(f"{type(record).__name__}: {key!r} is both a field and a computed figure")
        data[key] = plain(value)
    if order is None:
        return data
    if sorted(order) != sorted(data):
        raise ValueError(f"{type(record).__name__}: order {list(order)} does not list the keys {list(data)}")
    return {key: data[key] for key in order}


def plain(value: Any) -> Any:
    """``value`` as JSON holds it: records as their dicts, tuples as lists, containers copied."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        return to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return record_dict(value)
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value
