"""``ttsbench listening report``: per-dimension figures from the listeners' sheets, never one score.

How a figure is made: each listener's ratings of a system on a prompt (its generations) are
averaged into that listener's score; the figure is the mean, sample standard deviation and
median of those scores over the listeners who rated it, with their number. A listener, not a
clip, is the unit, so the spread says how much listeners disagree. Per system × dimension the
same is done over all of the system's clips. Consistency (one rating per listener per group of
generations) is reported on its own. The dimensions are never combined and systems are listed
in name order, never ranked.
"""

from __future__ import annotations

import json
import shutil
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.listening.kit import KEY_FILE, PRIVATE_DIR
from pytest_ttsbench.listening.scale import CLIP_DIMENSIONS, CONSISTENCY
from pytest_ttsbench.listening.sheets import Rating, Sheet, SheetError, read_sheets
from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.json_documents import dump_json, load_json
from pytest_ttsbench.support.outside_text import csv_text

MIN_LISTENERS = 5
REPORT_DIR = "report"


@dataclass(frozen=True)
class Figure:
    """Summary of per-listener scores for one system, one prompt (None: all prompts) and one dimension."""

    system: str
    prompt: str | None
    dimension: str
    mean: float
    sd: float | None  # None with a single listener
    median: float
    n_listeners: int


@dataclass
class ListeningReport:
    dimensions: list[Figure] = field(default_factory=list)
    consistency: list[Figure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    listeners: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def row(figure: Figure, with_dimension: bool) -> dict[str, Any]:
            data = asdict(figure)
            if not with_dimension:
                data.pop("dimension")
            return data

        return {
            "dimensions": [row(f, True) for f in self.dimensions],
            "consistency": [row(f, False) for f in self.consistency],
            "warnings": list(self.warnings),
        }


def load_key(kit: Path) -> dict[str, Any]:
    """The kit's private key (``private/key.json``); SheetError when the folder is not a kit."""
    path = kit / PRIVATE_DIR / KEY_FILE
    try:
        key = load_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SheetError(f"{kit}: not a listening kit (no {PRIVATE_DIR}/{KEY_FILE})") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise SheetError(f"{path}: cannot read the kit's key: {exc}") from exc
    for section in ("clips", "groups", "prompts", "listeners"):
        if not isinstance(key.get(section), dict):
            raise SheetError(f"{path}: field {section!r}: missing or not a mapping")
    return key


def _figure(system: str, prompt: str | None, dimension: str, scores: list[float]) -> Figure:
    return Figure(
        system=system,
        prompt=prompt,
        dimension=dimension,
        mean=round(statistics.mean(scores), 4),
        sd=round(statistics.stdev(scores), 4) if len(scores) > 1 else None,
        median=round(statistics.median(scores), 4),
        n_listeners=len(scores),
    )


def _figures(ratings: Sequence[Rating], subject: dict[str, tuple[str, str]], by_prompt: bool) -> list[Figure]:
    """Per-listener means, then their summary, per (system, prompt or all, dimension)."""
    per_listener: dict[tuple[str, str | None, str], dict[str, list[int]]] = {}
    for rating in ratings:
        system, prompt = subject[rating.unit]
        slot = (system, prompt if by_prompt else None, rating.dimension)
        per_listener.setdefault(slot, {}).setdefault(rating.listener, []).append(rating.value)
    return [
        _figure(system, prompt, dimension, [statistics.mean(v) for v in listeners.values()])
        for (system, prompt, dimension), listeners in sorted(
            per_listener.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", _dimension_order(kv[0][2]))
        )
    ]


def _dimension_order(name: str) -> int:
    names = [d.name for d in CLIP_DIMENSIONS] + [CONSISTENCY.name]
    return names.index(name) if name in names else len(names)


def _warnings(key: dict[str, Any], sheets: Sequence[Sheet], report: ListeningReport) -> list[str]:
    warnings: list[str] = []
    clip_listeners = sorted({r.listener for s in sheets if s.kind == "clips" for r in s.ratings})
    if len(clip_listeners) < MIN_LISTENERS:
        warnings.append(
            f"only {len(clip_listeners)} listener(s) rated clips; the protocol asks for at least {MIN_LISTENERS} "
            "fluent in the variety"
        )
    thin = [f for f in report.dimensions if f.prompt is not None and f.n_listeners < MIN_LISTENERS]
    if thin and len(clip_listeners) >= MIN_LISTENERS:
        warnings.append(
            f"{len(thin)} system × prompt × dimension figure(s) rest on fewer than {MIN_LISTENERS} listeners"
        )
    for prompt, facts in sorted(key["prompts"].items()):
        if facts.get("review") and not facts.get("reviewed"):
            warnings.append(
                f"prompt {prompt} ({facts.get('variety') or 'no variety'}) needs {facts['review']} review before any "
                "comparison built on it is published: not reviewed yet"
            )
    for sheet in sheets:
        if sheet.blanks:
            warnings.append(f"{sheet.path}: incomplete sheet: {len(sheet.blanks)} rating(s) left blank")
        section = "clips" if sheet.kind == "clips" else "groups"
        for listener in sorted(sheet.listeners):
            assigned = key["listeners"].get(listener, {}).get(section)
            if assigned is None:
                continue
            absent = [u for u in assigned if (listener, u) not in sheet.units]
            if absent:
                warnings.append(
                    f"{sheet.path}: incomplete sheet: listener {listener} has no row for {len(absent)} of "
                    f"{len(assigned)} {section}"
                )
    returned = {(s.kind, listener) for s in sheets for listener in s.listeners}
    for listener in sorted(key["listeners"]):
        for kind, section in (("clips", "listening"), ("consistency", "consistency")):
            if (kind, listener) not in returned and (kind == "clips" or key["listeners"][listener].get("groups")):
                warnings.append(f"listener {listener}: no {section} sheet given")
    if key.get("missing"):
        warnings.append(
            f"{len(key['missing'])} generation(s) were missing or failed and are not in the kit "
            f"(see {PRIVATE_DIR}/missing.json)"
        )
    return warnings


def build_report(kit: Path, sheet_paths: Sequence[Path]) -> ListeningReport:
    """Read the sheets against the kit's key and summarize them; SheetError on a bad sheet or kit."""
    key = load_key(kit)
    sheets = read_sheets(sheet_paths, key)
    clip_subject = {cid: (c["system"], c["prompt"]) for cid, c in key["clips"].items()}
    group_subject = {gid: (g["system"], g["prompt"]) for gid, g in key["groups"].items()}
    clip_ratings = [r for s in sheets if s.kind == "clips" for r in s.ratings]
    group_ratings = [r for s in sheets if s.kind == "consistency" for r in s.ratings]
    report = ListeningReport()
    report.dimensions = _figures(clip_ratings, clip_subject, True) + _figures(clip_ratings, clip_subject, False)
    report.consistency = _figures(group_ratings, group_subject, True) + _figures(group_ratings, group_subject, False)
    report.listeners = sorted({r.listener for r in clip_ratings + group_ratings})
    report.warnings = _warnings(key, sheets, report)
    return report


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def report_lines(report: ListeningReport) -> list[str]:
    """The report as text: one table per dimension, consistency apart, then the warnings."""
    lines: list[str] = []
    titles = {d.name: d.title for d in (*CLIP_DIMENSIONS, CONSISTENCY)}
    sections = [(titles[d.name], [f for f in report.dimensions if f.dimension == d.name]) for d in CLIP_DIMENSIONS]
    sections.append((f"{CONSISTENCY.title} (across generations)", report.consistency))
    for title, figures in sections:
        lines += [f"{title} (1 very poor … 5 excellent; per-listener means)", ""]
        header = f"{'system':<18} {'prompt':<40} {'mean':>5} {'sd':>5} {'median':>6} {'listeners':>9}"
        lines += [header, "-" * len(header)]
        for f in figures:
            prompt = f.prompt if f.prompt is not None else "(all prompts)"
            lines.append(
                f"{f.system:<18} {prompt:<40} {_number(f.mean):>5} {_number(f.sd):>5} {_number(f.median):>6} "
                f"{f.n_listeners:>9}"
            )
        if not figures:
            lines.append("(no ratings)")
        lines.append("")
    lines.append("Dimensions are reported apart and never combined into one score or ranking.")
    if report.warnings:
        lines += ["", "Warnings:"] + [f"  - {w}" for w in report.warnings]
    return lines


def _unblinded_rows(key: dict[str, Any], sheets: Sequence[Sheet]) -> list[dict[str, Any]]:
    rows = []
    for sheet in sheets:
        for r in sheet.ratings:
            subject = key["clips"][r.unit] if sheet.kind == "clips" else key["groups"][r.unit]
            rows.append(
                {
                    "listener": r.listener,
                    "id": r.unit,
                    "system": subject["system"],
                    "prompt": subject["prompt"],
                    "generation": subject.get("generation", ""),
                    "dimension": r.dimension,
                    "value": r.value,
                    "sheet": sheet.path.name,
                }
            )
    return rows


def write_report(kit: Path, sheet_paths: Sequence[Path], report: ListeningReport, out: Path) -> None:
    """The summary (JSON and text), the raw sheets copied unchanged, and the ratings with the key applied."""
    key = load_key(kit)
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for path in sheet_paths:
        target = raw / path.name
        n = 2
        while target.exists() and target.read_bytes() != path.read_bytes():
            target = raw / f"{path.stem}-{n}{path.suffix}"
            n += 1
        shutil.copyfile(path, target)
    (out / "summary.json").write_text(
        dump_json(report.to_dict(), null_non_finite=True, ensure_ascii=False, indent=2) + "\n", "utf-8"
    )
    (out / "summary.txt").write_text("\n".join(report_lines(report)) + "\n", "utf-8")
    rows = _unblinded_rows(key, read_sheets(sheet_paths, key))
    columns = ["listener", "id", "system", "prompt", "generation", "dimension", "value", "sheet"]
    table = [columns, *([row.get(name, "") for name in columns] for row in rows)]
    write_atomically(out / "ratings-unblinded.csv", csv_text(table, lineterminator="\r\n"))
