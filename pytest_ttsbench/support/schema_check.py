"""Checking a document against a JSON schema: the case files', the scorers' ``expect``, the configuration's.

One module both the case loader and the configuration use, so neither imports the other, and
jsonschema (a quarter of a second to import) loads only for a document that is invalid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

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


def schema_errors(schema: Mapping[str, Any], data: Any) -> list[Any]:
    """Every jsonschema error of ``data`` against ``schema`` (Draft 2020-12), in jsonschema's words.

    Valid documents, nearly all of them, are recognised by a check fastjsonschema compiles from
    the schema once, several times faster than jsonschema walking it: collecting a large benchmark
    validates every item. Only a document that check rejects is walked by jsonschema, whose errors
    name the path and the problem.
    """
    check = _compiled(schema)
    if check is not None:
        try:
            check(data)
            return []
        except ValueError:  # fastjsonschema's JsonSchemaValueException: the document is invalid
            pass
    import jsonschema

    return list(jsonschema.Draft202012Validator(schema).iter_errors(data))
