"""External benchmark files loaded directly as suites, with no conversion step.

Supported JSON-lines formats, recognised by their fields:

* CN-NewsTTS Bench records (``targets[]`` with ``positive_readings`` / ``negative_readings``,
  ``auto_evaluable``, ``category``, ``group``; a record-level ``domain``) → ``readings`` items.
  The suite is named ``cn-news-<split>``, e.g. ``cn-news-test-public``.
* The Thai keyword benchmark's ``eval_set.jsonl`` (``id, category, text, text_mono,
  text_bilingual, keyword, expected, alternates, meta``) → ``keyword`` items, suite ``th-<file stem>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.model import CaseFileError, Problem
from pytest_ttsbench.support.json_documents import read_json_lines


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _read_records(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    records: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    try:
        lines = read_json_lines(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError([Problem(path, None, "(file)", f"cannot read: {exc}")]) from exc
    for line in lines:  # every bad line is reported, not only the first
        if line.problem is not None:
            problems.append(Problem(path, f"line {line.number}", "(record)", line.problem))
        elif not isinstance(line.value, dict):
            problems.append(Problem(path, f"line {line.number}", "(record)", "each line must be a JSON object"))
        else:
            records.append((line.number, line.value))
    return records, problems


# The ASR routes whose transcripts CN-NewsTTS Bench v0.1 published its figures on: its readings are
# calibrated against what these recognizers write.
CN_NEWS_ROUTES = ("mimo_v2_5_asr", "paraformer_zh", "sensevoice_small")

# The recognizer the Thai keyword benchmark's ``expected``/``alternates`` were written against:
# typhoon-ai/typhoon-whisper-large-v3 through the transformers pipeline (30 s chunks, language th,
# task transcribe, greedy). A ``whisper`` route on its CTranslate2 conversion in a folder of that
# name is labelled so (docs/recipes/pinned-recognizers.md); any other route gets the run's note.
THAI_RECOGNIZER = {"route": "whisper", "model": "typhoon-whisper-large-v3"}

# Fields each format maps onto the case model; every other field of a record is kept as it is.
_CN_NEWS_TARGET_FIELDS = {
    "span": "span",
    "positive_readings": "positive",
    "negative_readings": "negative",
    "category": "category",
    "group": "group",
    "target_id": "target_id",
    "auto_evaluable": "auto_evaluable",
    "start": "start",
    "end": "end",
    "rationale": "rationale",
}
_CN_NEWS_RECORD_FIELDS = {"id", "text", "targets", "domain"}
_THAI_RECORD_FIELDS = {"id", "category", "text", "text_mono", "text_bilingual", "keyword", "expected", "alternates"}


def _kept(record: Mapping[str, Any], used: set[str]) -> dict[str, Any]:
    """The fields of ``record`` the loader does not map: item metadata and anything unknown."""
    return {key: value for key, value in record.items() if key not in used}


def _cn_news_target(target: Mapping[str, Any]) -> dict[str, Any]:
    converted: dict[str, Any] = {"negative": [], "auto_evaluable": True}
    for source_name, name in _CN_NEWS_TARGET_FIELDS.items():
        if target.get(source_name) is not None:
            converted[name] = target[source_name]
    extra = _kept(target, set(_CN_NEWS_TARGET_FIELDS))
    if extra:
        converted["extra"] = extra
    return converted


def _cn_news_item(record: Mapping[str, Any]) -> dict[str, Any]:
    targets = [
        _cn_news_target(t) if isinstance(t, dict) else t  # a non-object is left for the schema to name
        for t in record.get("targets") or []
    ]
    first = targets[0] if targets and isinstance(targets[0], dict) else {}
    item = {
        "id": record.get("id"),
        "category": first.get("category", "uncategorized"),
        "text": record.get("text"),
        "expect": {"targets": targets},
        "metadata": _kept(record, _CN_NEWS_RECORD_FIELDS),
    }
    if record.get("domain") is not None:
        item["domain"] = record["domain"]
    return item


def _meta_facets(meta: Any) -> dict[str, Any]:
    """The Thai eval set's ``meta`` strata as facets: each scalar field (frequency band, keyword
    position, length bucket, name type ...) becomes a facet of that name."""
    if not isinstance(meta, dict):
        return {}
    return {
        str(key): value
        for key, value in meta.items()
        if isinstance(value, (str, int, float, bool)) and str(value) != "" and _FACET_NAME.fullmatch(str(key))
    }


_FACET_NAME = re.compile(r"[A-Za-z0-9_-]+")


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
    facets = _meta_facets(record.get("meta"))
    if facets:
        item["facets"] = facets
    item["metadata"] = _kept(record, _THAI_RECORD_FIELDS)
    return item


def jsonl_source_data(path: Path) -> dict[str, Any]:
    """A supported external JSON-lines benchmark as the data of a native case file.

    The loader validates it like any case file, so both kinds of file meet one schema.
    """
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
            "recognizer": [{"route": route} for route in CN_NEWS_ROUTES],
        }
    elif "expected" in sample:
        suite = {
            "suite": f"th-{_slug(path.stem)}",
            "language": "th",
            "scorer": "keyword",
            "items": [_thai_item(r) for _, r in records],
            "recognizer": [dict(THAI_RECOGNIZER)],
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
    return suite
