"""Loading and validating case files.

Every problem found is reported with the file, the item id and the field, and loading goes on
past the first problem so one bad item never hides the others. Nothing here synthesizes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.cases.model import CaseFileError, CaseItem, Problem, Suite, Target
from pytest_ttsbench.cases.schema import CASE_FILE_SCHEMA
from pytest_ttsbench.cases.sources import jsonl_source_data
from pytest_ttsbench.scorers.registry import UnknownScorerError, get_scorer
from pytest_ttsbench.support.limits import DEFAULT_MAX_TEXT_CHARS
from pytest_ttsbench.support.schema_check import schema_errors
from pytest_ttsbench.support.text import did_you_mean
from pytest_ttsbench.support.yaml_documents import YAML_SUFFIXES, YamlSyntaxError, load_yaml_cached, node_lines

if TYPE_CHECKING:
    from pytest_ttsbench.support.cache import ClipCache

CASE_SUFFIXES = YAML_SUFFIXES  # a case file is a YAML file
#: the fields an item's text may be sent from (--tts-contract chooses)
TEXT_FIELDS = ("text", "text_mono", "text_bilingual")


def _field_path(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _item_label(items: Any, index: int) -> str:
    if isinstance(items, list) and index < len(items) and isinstance(items[index], dict):
        item_id = items[index].get("id")
        if isinstance(item_id, str) and item_id:
            return item_id
    return f"#{index + 1}"


def _schema_problems(path: Path, data: Any, schema: Mapping[str, Any]) -> list[Problem]:
    """Each schema error as a problem naming its item and field; an unknown field is named itself,
    with the closest field the schema allows (a misspelled ``txt`` → ``text``)."""
    problems = []
    for error in sorted(schema_errors(schema, data), key=lambda e: [str(p) for p in e.absolute_path]):
        for parts, message in _located(error):
            if len(parts) >= 2 and parts[0] == "items" and isinstance(parts[1], int):
                item = _item_label(data.get("items"), parts[1])
                problems.append(Problem(path, item, _field_path(parts[2:]), message, tuple(parts)))
            else:
                problems.append(Problem(path, None, _field_path(parts), message, tuple(parts)))
    return problems


_REQUIRED = re.compile(r"'([^']+)' is a required property")


def _located(error: Any) -> list[tuple[list[Any], str]]:
    """(where, what) of a schema error: an ``additionalProperties`` error once per unknown field, at the field."""
    parts = list(error.absolute_path)
    missing = _REQUIRED.fullmatch(error.message) if error.validator == "required" else None
    if missing is not None:  # named as the field it is, where it is missing
        return [([*parts, missing.group(1)], "a required field is missing")]
    allowed = error.schema.get("properties") if isinstance(error.schema, Mapping) else None
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict) or allowed is None:
        return [(parts, error.message)]
    patterns = error.schema.get("patternProperties") or {}
    unknown = [
        key
        for key in error.instance
        if key not in allowed and not any(re.search(pattern, str(key)) for pattern in patterns)
    ]
    return [
        (
            [*parts, key],
            f"not a field here; {did_you_mean(str(key), allowed) or 'fields: ' + ', '.join(sorted(allowed))}",
        )
        for key in unknown
    ] or [(parts, error.message)]


def recognizer_labels(pinned: Any) -> tuple[str, ...]:
    """A case file's ``recognizer`` (one mapping or a list) as route labels: ``route:model`` or ``route``."""
    pins = pinned if isinstance(pinned, list) else [pinned] if pinned else []
    return tuple(f"{p['route']}:{p['model']}" if p.get("model") else p["route"] for p in pins)


def parse_suite(
    path: Path, data: Any, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS, lines: Mapping[str, int] | None = None
) -> Suite:
    """Validate a parsed case file and build its :class:`Suite`; raises :class:`CaseFileError`.

    A text longer than ``max_text_chars`` is a problem of its item: no engine is ever asked to
    speak it. ``lines`` gives each item id's line in the file (:func:`item_lines`).
    """
    if not isinstance(data, dict):
        raise CaseFileError([Problem(path, None, "(top level)", "a case file must be a mapping")])
    problems = _schema_problems(path, data, CASE_FILE_SCHEMA)
    # Read once and given to every item as it is built (a file whose schema fails raises below anyway).
    recognizer = () if problems else recognizer_labels(data.get("recognizer"))
    items_raw: list[Any] = data["items"] if isinstance(data.get("items"), list) else []
    seen: set[str] = set()
    items: list[CaseItem] = []
    for index, raw in enumerate(items_raw):
        if not isinstance(raw, dict):
            continue
        label = _item_label(items_raw, index)
        problems.extend(_text_length_problems(path, raw, label, max_text_chars, ("items", index)))
        item_id = raw.get("id")
        if isinstance(item_id, str):
            if item_id in seen:
                problems.append(
                    Problem(path, label, "id", f"duplicate id {item_id!r} in suite", ("items", index, "id"))
                )
            seen.add(item_id)
        line = (lines or {}).get(item_id) if isinstance(item_id, str) else None
        item, item_problems = _parse_item(path, data, raw, (label, ("items", index), line), recognizer)
        problems.extend(item_problems)
        if item is not None:
            items.append(item)
    problems.extend(_quality_problems(path, data.get("quality")))
    if problems:
        raise CaseFileError(problems)
    return Suite(
        name=data["suite"],
        language=data["language"],
        scorer=data["scorer"],
        items=tuple(items),
        thresholds=dict(data.get("thresholds", {})),
        path=path,
        recognizer=recognizer,
        quality=dict(data.get("quality") or {}),
    )


def _quality_problems(path: Path, section: Any) -> list[Problem]:
    """A ``quality`` section naming an unknown measure or holding a non-number, as a problem of this file."""
    if not isinstance(section, dict):
        return []  # absent, or already reported by the schema
    from pytest_ttsbench.quality.bounds import section_bounds
    from pytest_ttsbench.quality.measures import QualityOptionError

    try:
        section_bounds(section, str(path))
    except QualityOptionError as exc:
        message = str(exc).removeprefix(f"{path}: ")
        field_name, _, detail = message.partition(": ")
        return [Problem(path, None, field_name.removeprefix("field "), detail or message, ("quality",))]
    return []


def _text_length_problems(
    path: Path, raw: Mapping[str, Any], label: str, limit: int, where: tuple[str | int, ...]
) -> list[Problem]:
    return [
        Problem(
            path,
            label,
            key,
            f"{len(raw[key]):,} characters, more than the limit of {limit:,} "
            "(limits.max_text_chars in the configuration)",
            (*where, key),
        )
        for key in TEXT_FIELDS
        if isinstance(raw.get(key), str) and len(raw[key]) > limit
    ]


def _parse_item(
    path: Path,
    suite: Mapping[str, Any],
    raw: Mapping[str, Any],
    place: tuple[str, tuple[str | int, ...], int | None],
    recognizer: tuple[str, ...] = (),
) -> tuple[CaseItem | None, list[Problem]]:
    """One item, or the problems that keep it out; ``place`` is its label, location and line."""
    label, where, line = place
    scorer_name = raw.get("scorer", suite.get("scorer"))
    language = raw.get("language", suite.get("language"))
    expect = raw.get("expect")
    if not isinstance(scorer_name, str) or not isinstance(language, str) or not isinstance(expect, dict):
        return None, []  # the schema problems already name these fields
    try:
        scorer = get_scorer(scorer_name)
    except UnknownScorerError as exc:
        return None, [Problem(path, label, "scorer", str(exc), (*where, "scorer"))]
    problems = [
        Problem(path, label, _field_path(["expect", *parts]), message, (*where, "expect", *parts))
        for error in schema_errors(scorer.expect_schema, expect)
        for parts, message in _located(error)
    ]
    if problems:
        return None, problems
    problems = [
        Problem(path, label, field, message, (*where, field if field in raw else "expect"))
        for field, message in scorer.check(expect, language)
    ]
    required = ("id", "category", "text")
    if problems or not all(isinstance(raw.get(k), str) and str(raw[k]).strip() for k in required):
        return None, problems
    category = raw["category"]
    targets = tuple(
        Target(
            span=t.get("span") if scorer.splits_targets else None,
            category=t.get("category", category),
            expect=t,
            auto_evaluable=bool(t.get("auto_evaluable", True)),
            group=t.get("group"),
        )
        for t in scorer.targets(expect)
    )
    variants = {key[len("text_") :]: raw[key] for key in ("text_mono", "text_bilingual") if key in raw}
    item = CaseItem(
        suite=suite.get("suite", ""),
        id=raw["id"],
        language=language,
        scorer=scorer_name,
        category=category,
        text=raw["text"],
        expect=expect,
        targets=targets,
        facets={str(k): str(v) for k, v in raw.get("facets", {}).items()},
        domain=raw.get("domain"),
        variants=variants,
        source=path,
        metadata=dict(raw.get("metadata", {})),
        recognizer=recognizer,
        review=raw.get("review"),
        reviewed=raw.get("reviewed"),
        line=line,
    )
    return item, []


def load_case_file(
    path: Path, parsed_cache: ClipCache | None = None, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
) -> Suite:
    """Read and validate one case file: native YAML, or a supported external JSONL benchmark.

    ``parsed_cache`` keeps parsed YAML documents by the file's content, each entry checked on read
    (see :func:`load_yaml_cached`); the result is validated all the same.
    """
    if path.suffix == ".jsonl":
        return parse_suite(path, jsonl_source_data(path), max_text_chars)
    try:
        text = path.read_text(encoding="utf-8")
        data = load_yaml_cached(text, parsed_cache)
    except YamlSyntaxError as exc:
        raise CaseFileError([Problem(path, None, "(file)", f"not valid YAML: {exc}", line=exc.line)]) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError([Problem(path, None, "(file)", f"cannot read: {exc}")]) from exc
    try:
        return parse_suite(path, data, max_text_chars, item_lines(text))
    except CaseFileError as exc:
        lines = node_lines(text, [problem.location for problem in exc.problems])
        raise CaseFileError([replace(p, line=line) for p, line in zip(exc.problems, lines, strict=True)]) from None


def item_lines(text: str) -> dict[str, int]:
    """The 1-based line of each item's ``id:`` in a case file's text (the first, for an id given twice),
    so reports and CI annotations point at the item; a scan of the text, not a second parse."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ID_LINE.match(line)
        if match:
            lines.setdefault(match.group(1), number)
    return lines


_ID_LINE = re.compile(r"""\s*(?:-\s*)?(?:"id"|id)\s*:\s*["']?([^"',}\s]+)""")


def find_case_files(paths: Iterable[Path]) -> list[Path]:
    """Case files under the given files or directories, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*")) if p.suffix in CASE_SUFFIXES and p.is_file())
        elif path.is_file():
            found.append(path)
    return found


def load_case_paths(paths: Iterable[Path]) -> tuple[list[Suite], list[Problem]]:
    """Load every case file under ``paths``; returns the good suites and every problem found.

    A suite name used by two files is a problem of the second file.
    """
    suites: list[Suite] = []
    problems: list[Problem] = []
    owners: dict[str, Path] = {}
    for path in find_case_files(paths):
        try:
            suite = load_case_file(path)
        except CaseFileError as exc:
            problems.extend(exc.problems)
            continue
        if suite.name in owners:
            problems.append(
                Problem(path, None, "suite", f"suite name {suite.name!r} is already used by {owners[suite.name]}")
            )
            continue
        owners[suite.name] = path
        suites.append(suite)
    return suites, problems
