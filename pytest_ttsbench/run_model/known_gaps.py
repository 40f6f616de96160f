"""Known gaps: failures an engine profile is known to have, kept in ``known_gaps/<engine>.yaml``.

::

    engine: espeak
    gaps:
      - id: en-numerals/year-2026        # <suite>/<item id>, or <suite>/<item id>/<target span>
        reason: "reads the year digit by digit"
        link: https://example.org/tracker/123   # optional

The plugin turns each gap into an ``xfail`` marker, so a known failure reads XFAIL and a fixed
one XPASS. An item-level id also covers every target of a ``readings`` item. This module is
plain functions: load and validate a file, match ids, and rebuild a file from a run
(``--tts-update-known-gaps``). The file is read before the run, like a case file, and rewritten
from its results; the gate (gating/) judges the ratchet with it. It sits with the run model, not
with the case files, because the gate and the reports read it and must not load the case loader.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.record_dicts import WRITTEN_WHEN_SET, record_dict
from pytest_ttsbench.support.schema_check import schema_errors
from pytest_ttsbench.support.text import shorten
from pytest_ttsbench.support.yaml_documents import YamlSyntaxError, load_yaml

if TYPE_CHECKING:
    from pytest_ttsbench.run_model.results import ItemResult

FAILING = frozenset({"wrong", "unknown", "error"})

KNOWN_GAPS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["engine", "gaps"],
    "additionalProperties": False,
    "properties": {
        "engine": {"type": "string", "minLength": 1},
        "gaps": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "reason"],
                "additionalProperties": False,
                "properties": {
                    # <suite>/<item id>[/<span>]: the suite and item parts follow the case-file patterns.
                    "id": {"type": "string", "pattern": r"^[a-z0-9-]+/[A-Za-z0-9_.-]+(/.+)?\Z"},
                    "reason": {"type": "string"},
                    "link": {"type": "string", "minLength": 1},
                },
            },
        },
    },
}


class KnownGapsError(ValueError):
    """A known-gaps file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Gap:
    """One known failure."""

    id: str
    reason: str = ""
    link: str | None = field(default=None, metadata=WRITTEN_WHEN_SET)

    def describe(self) -> str:
        text = f"known gap: {self.reason or '(no reason given)'}"
        return f"{text} ({self.link})" if self.link else text

    def to_dict(self) -> dict[str, str]:
        return record_dict(self)


@dataclass
class KnownGaps:
    """The gaps of one engine profile, in file order."""

    engine: str
    path: Path
    gaps: list[Gap] = field(default_factory=list)
    exists: bool = True

    def ids(self) -> list[str]:
        return [gap.id for gap in self.gaps]

    def match(self, item_id: str, key: str) -> Gap | None:
        """The gap covering a target: its own key (with span) first, then its item id."""
        by_id = {gap.id: gap for gap in self.gaps}
        return by_id.get(key) or by_id.get(item_id)


def gaps_path(base_dir: Path, folder: str, engine: str) -> Path:
    return (base_dir / folder / f"{engine}.yaml").resolve()


def load_known_gaps(path: Path, engine: str) -> KnownGaps:
    """Read and validate one file; a missing file is an empty list (nothing is known to fail)."""
    if not path.is_file():
        return KnownGaps(engine=engine, path=path, exists=False)
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except YamlSyntaxError as exc:
        raise KnownGapsError(f"{path}: not valid YAML: {exc}") from exc
    if data is None:
        data = {}
    errors = sorted(schema_errors(KNOWN_GAPS_SCHEMA, data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        problems = []
        for error in errors:
            where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
            problems.append(f"{path}: field {where}: {shorten(error.message)}")
        raise KnownGapsError("\n".join(problems))
    if data["engine"] != engine:
        raise KnownGapsError(
            f"{path}: field engine: {data['engine']!r} does not match the profile name {engine!r} of the file"
        )
    gaps: list[Gap] = []
    seen: set[str] = set()
    for index, entry in enumerate(data["gaps"]):
        if entry["id"] in seen:
            raise KnownGapsError(f"{path}: field gaps.{index}.id: {entry['id']!r} is listed twice")
        seen.add(entry["id"])
        gaps.append(Gap(id=entry["id"], reason=entry["reason"], link=entry.get("link")))
    return KnownGaps(engine=engine, path=path, gaps=gaps)


def rows_on_known_gaps(rows: Iterable[ItemResult], known: Mapping[str, KnownGaps]) -> list[ItemResult]:
    """The rows of targets a known gap covers: its engine's file names the target or its item. The
    gate and ``ttsbench compare`` both ask this, so they leave the same regressions uncounted."""
    found = []
    for row in rows:
        gaps = known.get(row.engine)
        if row.auto_evaluable and gaps is not None and gaps.match(row.id, row.key) is not None:
            found.append(row)
    return found


def unmatched_ids(gaps: KnownGaps, collected: Iterable[str]) -> list[str]:
    """Ids in the file that match no collected target key or item id (typos, removed items)."""
    seen = set(collected)
    return [gap_id for gap_id in gaps.ids() if gap_id not in seen]


def updated_gaps(gaps: KnownGaps, verdicts: Mapping[tuple[str, str], str]) -> list[Gap]:
    """The gap list after a run: new failures added, fixed ones dropped, the rest kept as written.

    ``verdicts`` maps ``(item id, target key)`` to the run's verdict for each auto-evaluable
    target. A gap is fixed when every target it covers ran and was correct; a gap none of whose
    targets ran (deselected, or a typo) is kept, since the run says nothing about it. A new
    failure is added under its target key, with an empty reason for a person to fill in.
    """
    covered_by: dict[str, list[str]] = {}
    for item_id, key in verdicts:
        for gap_id in {item_id, key}:
            covered_by.setdefault(gap_id, []).append(key)
    by_key = {key: verdict for (_, key), verdict in verdicts.items()}
    kept: list[Gap] = []
    for gap in gaps.gaps:
        keys = covered_by.get(gap.id, [])
        if keys and all(by_key[key] == "correct" for key in keys):
            continue  # fixed
        kept.append(gap)
    known = {gap.id for gap in kept}
    added = sorted(
        key
        for (item_id, key), verdict in verdicts.items()
        if verdict in FAILING and key not in known and item_id not in known
    )
    return kept + [Gap(id=key) for key in added]


def write_known_gaps(path: Path, engine: str, gaps: Iterable[Gap]) -> None:
    """Write a file in the documented shape (atomically, so a crash never leaves half a file)."""
    body = {"engine": engine, "gaps": [gap.to_dict() for gap in gaps]}
    import yaml

    write_atomically(path, yaml.safe_dump(body, sort_keys=False, allow_unicode=True))
