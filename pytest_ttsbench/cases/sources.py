"""External benchmark files loaded directly as suites, with no conversion step.

Supported JSON-lines formats, recognised by their fields:

* CN-NewsTTS Bench records (``targets[]`` with ``positive_readings`` / ``negative_readings``,
  ``auto_evaluable``, ``category``, ``group``; a record-level ``domain``) → ``readings`` items.
  The suite is named ``cn-news-<split>``, e.g. ``cn-news-test-public``.
* The Thai keyword benchmark's ``eval_set.jsonl`` (``id, category, text, text_mono,
  text_bilingual, keyword, expected, alternates, meta``) → ``keyword`` items, suite ``th-<file stem>``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.loader import CaseFileError, Problem, parse_suite
from pytest_ttsbench.cases.model import Suite


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _read_records(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    records: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError([Problem(path, None, "(file)", f"cannot read: {exc}")]) from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(path, f"line {number}", "(record)", f"not valid JSON: {exc.msg}"))
            continue
        if not isinstance(record, dict):
            problems.append(Problem(path, f"line {number}", "(record)", "each line must be a JSON object"))
            continue
        records.append((number, record))
    return records, problems


def _cn_news_item(record: Mapping[str, Any]) -> dict[str, Any]:
    targets = []
    for target in record.get("targets") or []:
        if not isinstance(target, dict):
            targets.append(target)  # left for the schema to reject with its path
            continue
        converted = {
            "span": target.get("span"),
            "positive": target.get("positive_readings"),
            "negative": target.get("negative_readings", []),
            "category": target.get("category"),
            "auto_evaluable": target.get("auto_evaluable", True),
        }
        for optional in ("group", "target_id"):
            if target.get(optional) is not None:
                converted[optional] = target[optional]
        targets.append({k: v for k, v in converted.items() if v is not None})
    first = targets[0] if targets and isinstance(targets[0], dict) else {}
    item = {
        "id": record.get("id"),
        "category": first.get("category", "uncategorized"),
        "text": record.get("text"),
        "expect": {"targets": targets},
    }
    if record.get("domain") is not None:
        item["domain"] = record["domain"]
    return item


def _thai_item(record: Mapping[str, Any]) -> dict[str, Any]:
    expect: dict[str, Any] = {"expected": record.get("expected")}
    if record.get("keyword") is not None:
        expect["keyword"] = record["keyword"]
    if record.get("alternates"):
        expect["alternates"] = record["alternates"]
    item = {"id": record.get("id"), "category": record.get("category"), "text": record.get("text"), "expect": expect}
    for key in ("text_mono", "text_bilingual"):
        if record.get(key):
            item[key] = record[key]
    return item


def load_jsonl_source(path: Path) -> Suite:
    """Load a supported external JSON-lines benchmark as a :class:`Suite`."""
    records, problems = _read_records(path)
    if not records and not problems:
        raise CaseFileError([Problem(path, None, "(file)", "no records")])
    sample = records[0][1] if records else {}
    if "targets" in sample:
        split = sample.get("split") or path.stem
        suite = {
            "suite": f"cn-news-{_slug(str(split))}",
            "language": "zh",
            "scorer": "readings",
            "items": [_cn_news_item(r) for _, r in records],
        }
    elif "expected" in sample:
        suite = {
            "suite": f"th-{_slug(path.stem)}",
            "language": "th",
            "scorer": "keyword",
            "items": [_thai_item(r) for _, r in records],
        }
    else:
        raise CaseFileError(
            [
                Problem(
                    path,
                    None,
                    "(file)",
                    "unrecognised JSON-lines format: expected CN-NewsTTS records "
                    "(with 'targets') or Thai keyword records (with 'expected')",
                )
            ]
        )
    if problems:
        raise CaseFileError(problems)
    return parse_suite(path, suite)
