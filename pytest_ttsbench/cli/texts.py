"""``ttsbench texts PACK|CASEFILE``: each item's id and the text an engine is sent, for a renderer of your own.

The first step of a split run: render the texts with your own tooling into ``DIR/{id}.wav``
(``{id}`` is ``<suite>/<item id>``, so a clip lands in ``DIR/<suite>/<item id>.wav``), then score
the folder with an ``audio-dir`` engine profile whose ``path`` is ``DIR``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file
from pytest_ttsbench.cases.model import CaseItem
from pytest_ttsbench.cases.packs import PackError, find_pack_or_file
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_USAGE
from pytest_ttsbench.support.json_documents import dump_json

CONTRACTS = ("raw", "mono", "bilingual")
FORMATS = ("tsv", "jsonl")


class TextsError(ValueError):
    """A text a TSV line cannot hold; the message names the item."""


def items_of(files: Iterable[Path]) -> Iterator[CaseItem]:
    for path in files:
        yield from load_case_file(path).items


def text_lines(items: Iterable[CaseItem], contract: str, form: str) -> Iterator[str]:
    """One line per item: ``{id}\\t{text}`` (TSV) or a JSON object with the id, text, language and contract."""
    for item in items:
        text = item.text_for(contract)
        if form == "jsonl":
            record = {"id": item.full_id, "text": text, "language": item.language, "contract": contract}
            yield dump_json(record, ensure_ascii=False)
            continue
        if "\t" in text or "\n" in text or "\r" in text:
            raise TextsError(f"{item.source}: item {item.id}: field text holds a tab or line break; use --format jsonl")
        yield f"{item.full_id}\t{text}"


def _cmd_texts(args: argparse.Namespace) -> int:
    try:
        _, files = find_pack_or_file(args.source, Path.cwd())
        lines = list(text_lines(items_of(files), args.contract, args.format))
    except (PackError, CaseFileError, TextsError) as exc:
        print(f"ttsbench texts: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not lines:
        print(f"ttsbench texts: {args.source}: no case file or item found", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write("".join(line + "\n" for line in lines))
    return EXIT_OK


def add_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "texts",
        help="each item's id and text, for rendering the audio with your own tooling",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="PACK|CASEFILE", help="a shipped pack's name, or a case file or folder")
    parser.add_argument("--contract", choices=CONTRACTS, default="raw", help="which text variant (default: raw)")
    parser.add_argument(
        "--format", choices=FORMATS, default="tsv", help="tsv: {id}<TAB>{text}; jsonl: one object a line"
    )
    parser.set_defaults(func=_cmd_texts)
