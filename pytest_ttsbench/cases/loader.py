"""Loading and validating case files.

Every problem found is reported with the file, the item id and the field, and loading goes on
past the first problem so one bad item never hides the others. Nothing here synthesizes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.cases.model import CaseFileError, CaseItem, Problem, Suite, Target
from pytest_ttsbench.cases.schema import CASE_FILE_SCHEMA
from pytest_ttsbench.cases.sources import jsonl_source_data
from pytest_ttsbench.scorers.registry import UnknownScorerError, get_scorer
from pytest_ttsbench.support.limits import DEFAULT_MAX_TEXT_CHARS
from pytest_ttsbench.support.schema_check import schema_errors
from pytest_ttsbench.support.yaml_documents import YAML_SUFFIXES, YamlSyntaxError, load_yaml_cached

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
    problems = []
    for error in sorted(schema_errors(schema, data), key=lambda e: [str(p) for p in e.absolute_path]):
        parts = list(error.absolute_path)
        if len(parts) >= 2 and parts[0] == "items" and isinstance(parts[1], int):
            item = _item_label(data.get("items"), parts[1])
            problems.append(Problem(path, item, _field_path(parts[2:]), error.message))
        else:
            problems.append(Problem(path, None, _field_path(parts), error.message))
    return problems


def recognizer_labels(pinned: Any) -> tuple[str, ...]:
    """A case file's ``recognizer`` (one mapping or a list) as route labels: ``route:model`` or ``route``."""
    pins = pinned if isinstance(pinned, list) else [pinned] if pinned else []
    return tuple(f"{p['route']}:{p['model']}" if p.get("model") else p["route"] for p in pins)


def parse_suite(path: Path, data: Any, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> Suite:
    """Validate a parsed case file and build its :class:`Suite`; raises :class:`CaseFileError`.

    A text longer than ``max_text_chars`` is a problem of its item: no engine is ever asked to
    speak it.
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
        problems.extend(_text_length_problems(path, raw, label, max_text_chars))
        item_id = raw.get("id")
        if isinstance(item_id, str):
            if item_id in seen:
                problems.append(Problem(path, label, "id", f"duplicate id {item_id!r} in suite"))
            seen.add(item_id)
        item, item_problems = _parse_item(path, data, raw, label, recognizer)
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
    from pytest_ttsbench.quality.gates import section_bounds
    from pytest_ttsbench.quality.measures import QualityOptionError

    try:
        section_bounds(section, str(path))
    except QualityOptionError as exc:
        message = str(exc).removeprefix(f"{path}: ")
        field_name, _, detail = message.partition(": ")
        return [Problem(path, None, field_name.removeprefix("field "), detail or message)]
    return []


def _text_length_problems(path: Path, raw: Mapping[str, Any], label: str, limit: int) -> list[Problem]:
    return [
        Problem(
            path,
            label,
            key,
            f"{len(raw[key]):,} characters, more than the limit of {limit:,} "
            "(limits.max_text_chars in the configuration)",
        )
        for key in TEXT_FIELDS
        if isinstance(raw.get(key), str) and len(raw[key]) > limit
    ]


def _parse_item(
    path: Path, suite: Mapping[str, Any], raw: Mapping[str, Any], label: str, recognizer: tuple[str, ...] = ()
) -> tuple[CaseItem | None, list[Problem]]:
    scorer_name = raw.get("scorer", suite.get("scorer"))
    language = raw.get("language", suite.get("language"))
    expect = raw.get("expect")
    if not isinstance(scorer_name, str) or not isinstance(language, str) or not isinstance(expect, dict):
        return None, []  # the schema problems already name these fields
    try:
        scorer = get_scorer(scorer_name)
    except UnknownScorerError as exc:
        return None, [Problem(path, label, "scorer", str(exc))]
    problems = [
        Problem(path, label, _field_path(["expect", *error.absolute_path]), error.message)
        for error in schema_errors(scorer.expect_schema, expect)
    ]
    if problems:
        return None, problems
    problems = [Problem(path, label, field, message) for field, message in scorer.check(expect, language)]
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
        data = load_yaml_cached(path.read_text(encoding="utf-8"), parsed_cache)
    except YamlSyntaxError as exc:
        where = f"line {exc.line}" if exc.line is not None else "(file)"
        raise CaseFileError([Problem(path, None, where, f"not valid YAML: {exc}")]) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError([Problem(path, None, "(file)", f"cannot read: {exc}")]) from exc
    return parse_suite(path, data, max_text_chars)


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
