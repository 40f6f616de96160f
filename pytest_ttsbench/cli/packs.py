"""``ttsbench packs list|show|export``: the benchmark packs that ship with the plugin, and a copy to edit."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file
from pytest_ttsbench.cases.model import Suite
from pytest_ttsbench.cases.packs import Pack, PackError, get_packs, shipped_packs
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE
from pytest_ttsbench.support.json_documents import dump_json


@dataclass(frozen=True)
class PackCounts:
    """What a pack holds, counted from its case files (never taken from the manifest on trust)."""

    suites: tuple[str, ...]
    items: int
    targets: int
    by_language: dict[str, int]
    by_category: dict[str, int]


def count_pack(pack: Pack) -> PackCounts:
    suites: list[Suite] = [load_case_file(path) for path in pack.files]
    items = [item for suite in suites for item in suite.items]
    return PackCounts(
        suites=tuple(suite.name for suite in suites),
        items=len(items),
        targets=sum(len(item.targets) for item in items),
        by_language=dict(sorted(Counter(item.language for item in items).items())),
        by_category=dict(sorted(Counter(t.category for item in items for t in item.targets).items())),
    )


def _describe(pack: Pack, counts: PackCounts) -> dict[str, Any]:
    return {
        "name": pack.name,
        "version": pack.version,
        "licence": pack.licence,
        "source": pack.source,
        "description": pack.description,
        "languages": list(pack.languages),
        "suites": list(counts.suites),
        "items": counts.items,
        "targets": counts.targets,
        "items_by_language": counts.by_language,
        "targets_by_category": counts.by_category,
        "files": [path.name for path in pack.files],
    }


def _cmd_list(args: argparse.Namespace) -> int:
    rows = [(pack, count_pack(pack)) for pack in shipped_packs().values()]
    if args.json:
        print(dump_json([_describe(pack, counts) for pack, counts in rows], ensure_ascii=False, indent=2))
        return EXIT_OK
    width = max(len(pack.name) for pack, _ in rows)
    print(f"{'pack':<{width}}  version  items  targets  languages")
    for pack, counts in rows:
        languages = ", ".join(pack.languages)
        print(f"{pack.name:<{width}}  {pack.version:<7}  {counts.items:>5}  {counts.targets:>7}  {languages}")
    print("run one: pytest --tts-engine=NAME --tts-pack PACK; details: ttsbench packs show PACK")
    return EXIT_OK


def _cmd_show(args: argparse.Namespace) -> int:
    (pack,) = get_packs([args.name])
    facts = _describe(pack, count_pack(pack))
    if args.json:
        print(dump_json(facts, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"{pack.name} {pack.version}: {pack.description}")
    print(f"  licence:   {pack.licence}")
    print(f"  source:    {pack.source}")
    print(f"  languages: {', '.join(pack.languages)}")
    print(f"  items:     {facts['items']} ({facts['targets']} targets)")
    for category, count in facts["targets_by_category"].items():
        print(f"    {category:<24} {count:>4}")
    for path in pack.files:
        print(f"  file:      {path}")
    return EXIT_OK


def export_header(pack: Pack) -> str:
    """The comment an exported copy starts with: where it came from, so an edited copy is never taken for the pack."""
    return (
        f"# Exported from the pytest-ttsbench pack {pack.name} {pack.version} ({pack.licence}); {pack.source}.\n"
        "# This copy is your own case file: its rows name no pack. Give the suite a new name if the\n"
        "# shipped pack runs beside it.\n"
    )


def export_pack(pack: Pack, folder: Path, force: bool = False) -> list[Path]:
    """Copy a pack's case files into ``folder``; an existing file is refused unless ``force``."""
    targets = [folder / path.name for path in pack.files]
    existing = [str(target) for target in targets if target.exists()]
    if existing and not force:
        raise PackError(f"{', '.join(existing)}: already there (--force overwrites)")
    folder.mkdir(parents=True, exist_ok=True)
    for path, target in zip(pack.files, targets, strict=True):
        target.write_text(export_header(pack) + path.read_text(encoding="utf-8"), encoding="utf-8")
    return targets


def _cmd_export(args: argparse.Namespace) -> int:
    (pack,) = get_packs([args.name])
    for target in export_pack(pack, Path(args.dir), args.force):
        print(f"wrote {target}")
    return EXIT_OK


def _guarded(command: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            return int(command(args))
        except (PackError, CaseFileError, OSError) as exc:
            print(f"ttsbench packs: {exc}", file=sys.stderr)
            return EXIT_USAGE

    return run


def add_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "packs", help="the benchmark packs that ship with the plugin", description=__doc__.splitlines()[0]
    )
    commands = parser.add_subparsers(dest="packs_command", required=True, metavar="ACTION")
    listing = commands.add_parser("list", help="every shipped pack with its version and item counts")
    listing.add_argument("--json", action="store_true", help="one JSON document")
    listing.set_defaults(func=_guarded(_cmd_list))
    show = commands.add_parser("show", help="one pack: licence, source, languages, counts per category, files")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="one JSON document")
    show.set_defaults(func=_guarded(_cmd_show))
    export = commands.add_parser("export", help="copy a pack's case files into DIR, to edit as your own")
    export.add_argument("name", metavar="NAME")
    export.add_argument("dir", metavar="DIR")
    export.add_argument("--force", action="store_true", help="overwrite files already there")
    export.set_defaults(func=_guarded(_cmd_export))
