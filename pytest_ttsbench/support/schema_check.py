"""Checking a document against a JSON schema: the case files', the scorers' ``expect``, the configuration's.

One module both the case loader and the configuration use, so neither imports the other, and
jsonschema (a quarter of a second to import) loads only for a document that is invalid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_ttsbench.support.checked_numbers import non_finite_paths

# schema id → (the schema, kept so its id is never reused; its compiled check, or None)
_COMPILED: dict[int, tuple[Mapping[str, Any], Callable[[Any], Any] | None]] = {}


def _compiled(schema: Mapping[str, Any]) -> Callable[[Any], Any] | None:
    entry = _COMPILED.get(id(schema))
    if entry is None or entry[0] is not schema:
        import fastjsonschema

        try:
            check: Callable[[Any], Any] | None = fastjsonschema.compile(dict(schema))
        except fastjsonschema.JsonSchemaDefinitionException:
            check = None  # a schema it cannot compile: jsonschema alone decides
        entry = _COMPILED[id(schema)] = (schema, check)
    return entry[1]


@dataclass(frozen=True)
class NonFiniteNumber:
    """A NaN or infinity in a document, shaped as a jsonschema error (``absolute_path``, ``message``)."""

    absolute_path: tuple[Any, ...]
    value: float
    #: jsonschema's fields a reader may look at: the keyword that failed, the schema there, the value
    validator: str = "type"
    schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def instance(self) -> float:
        return self.value

    @property
    def path(self) -> tuple[Any, ...]:
        return self.absolute_path

    @property
    def message(self) -> str:
        return f"{self.value!r} is not a finite number"


def schema_errors(schema: Mapping[str, Any], data: Any) -> list[Any]:
    """Every jsonschema error of ``data`` against ``schema`` (Draft 2020-12), in jsonschema's words,
    and every NaN or infinity in it: JSON Schema's ``number`` admits them, and its ``minimum`` and
    ``maximum`` cannot refuse NaN (every comparison with it is false), so a ``.nan`` floor or limit
    would otherwise pass (support/checked_numbers.py).

    Valid documents, nearly all of them, are recognised by a check fastjsonschema compiles from
    the schema once, several times faster than jsonschema walking it: collecting a large benchmark
    validates every item. Only a document that check rejects is walked by jsonschema, whose errors
    name the path and the problem.
    """
    non_finite: list[Any] = [NonFiniteNumber(path, value) for path, value in non_finite_paths(data)]
    check = _compiled(schema)
    if check is not None:
        try:
            check(data)
            return non_finite
        except ValueError:  # fastjsonschema's JsonSchemaValueException: the document is invalid
            pass
    import jsonschema

    return non_finite + list(jsonschema.Draft202012Validator(schema).iter_errors(data))
