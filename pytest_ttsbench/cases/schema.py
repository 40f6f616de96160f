"""The JSON Schema of a case file (the shape only; each scorer validates its own ``expect``)."""

from __future__ import annotations

from typing import Any

from pytest_ttsbench.support.text import CATEGORY_PATTERN

# Every pattern ends in \Z, never $: JSON Schema patterns are searched with Python's re, where $
# also matches before a final newline, so "years\n" would pass as a separate category.
SUITE_PATTERN = r"^[a-z0-9-]+\Z"
ITEM_ID_PATTERN = r"^[A-Za-z0-9_.-]+\Z"
# Facet keys become pytest markers like categories (CATEGORY_PATTERN says why they start as they do).
FACET_KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]*\Z"
# BCP-47, loosely: a primary subtag and optional subtags (en, en-US, zh-Hans-CN, cmn).
LANGUAGE_PATTERN = r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*\Z"
_NON_BLANK = r"\S"

_TEXT = {"type": "string", "minLength": 1, "pattern": _NON_BLANK}

ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "category", "text", "expect"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": ITEM_ID_PATTERN},
        "category": {"type": "string", "minLength": 1, "pattern": CATEGORY_PATTERN},
        "text": _TEXT,
        # Alternative texts chosen by --tts-contract (e.g. Thai keywords in Thai script).
        "text_mono": _TEXT,
        "text_bilingual": _TEXT,
        "expect": {"type": "object"},
        "scorer": {"type": "string", "minLength": 1},
        "language": {"type": "string", "pattern": LANGUAGE_PATTERN},
        "facets": {
            "type": "object",
            "propertyNames": {"pattern": FACET_KEY_PATTERN},
            "additionalProperties": {"type": ["string", "number", "boolean"]},
        },
        "domain": {"type": "string"},
        "notes": {"type": "string"},
        # Whatever else a benchmark record carries (its metadata, fields we do not read): kept
        # as it is and copied into every result row of the item.
        "metadata": {"type": "object"},
        # Who must check the prompt before results built on it are published (dialect prompts:
        # ``native-speaker``), and, once done, who checked it and when.
        "review": {"type": "string", "minLength": 1, "pattern": _NON_BLANK},
        "reviewed": {"type": "string", "minLength": 1, "pattern": _NON_BLANK},
    },
}

# The recognizer a pack's expectations were written against: an ASR route, and its model.
_RECOGNIZER = {
    "type": "object",
    "required": ["route"],
    "additionalProperties": False,
    "properties": {"route": {"type": "string", "minLength": 1}, "model": {"type": "string", "minLength": 1}},
}

CASE_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["suite", "language", "scorer", "items"],
    "additionalProperties": False,
    "properties": {
        "suite": {"type": "string", "pattern": SUITE_PATTERN},
        "language": {"type": "string", "pattern": LANGUAGE_PATTERN},
        "scorer": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        # category or FIELD=VALUE slice → floor; min_n and floor_on set how every floor is checked
        "thresholds": {
            "type": "object",
            "properties": {
                "min_n": {"type": "integer", "minimum": 1},
                "floor_on": {"enum": ["point", "lower"]},
            },
            "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1},
        },
        # Gates on quality measures for this suite (see pytest_ttsbench/quality/bounds.py).
        "quality": {
            "type": "object",
            "additionalProperties": False,
            "properties": {key: {"type": "object"} for key in ("floors", "ceilings", "tolerance")},
        },
        "items": {"type": "array", "minItems": 1, "items": ITEM_SCHEMA},
        "recognizer": {"oneOf": [_RECOGNIZER, {"type": "array", "minItems": 1, "items": _RECOGNIZER}]},
    },
}
