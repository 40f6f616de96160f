"""``ttsbench cache stats|check|prune``: what the cache holds, which entries are damaged, and an LRU trim of it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.support.cache import CacheError, ClipCache, parse_size, resolve_cache_dir
from pytest_ttsbench.support.json_documents import dump_json


def _cache(args: argparse.Namespace) -> ClipCache:
    """The folder the pytest plugin would use from here: ``--dir``, else the configuration, else the defaults."""
    settings = load_settings(Path.cwd())
    return ClipCache(resolve_cache_dir(args.dir, settings.cache_dir, settings.base_dir))


def _size(count: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


def _cmd_stats(args: argparse.Namespace) -> int:
    try:
        stats = _cache(args).stats()
    except ConfigError as exc:
        print(f"ttsbench cache: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(
            dump_json(
                {
                    "dir": str(stats.root),
                    "audio_entries": stats.audio_entries,
                    "audio_bytes": stats.audio_bytes,
                    "transcript_entries": stats.transcript_entries,
                    "transcript_bytes": stats.transcript_bytes,
                    "parsed_entries": stats.parsed_entries,
                    "parsed_bytes": stats.parsed_bytes,
                    "quality_entries": stats.quality_entries,
                    "quality_bytes": stats.quality_bytes,
                    "total_bytes": stats.total_bytes,
                }
            )
        )
        return EXIT_OK
    print(f"cache: {stats.root}")
    print(f"  clips:       {stats.audio_entries:>7}  {_size(stats.audio_bytes)}")
    print(f"  transcripts: {stats.transcript_entries:>7}  {_size(stats.transcript_bytes)}")
    print(f"  quality:     {stats.quality_entries:>7}  {_size(stats.quality_bytes)}")
    print(f"  case files:  {stats.parsed_entries:>7}  {_size(stats.parsed_bytes)}")
    entries = stats.audio_entries + stats.transcript_entries + stats.quality_entries + stats.parsed_entries
    print(f"  total:       {entries:>7}  {_size(stats.total_bytes)}")
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    """Every entry against its seal; damaged ones are listed (a run treats each as a miss), exit 1 if any."""
    try:
        checked, damaged = _cache(args).check()
    except ConfigError as exc:
        print(f"ttsbench cache: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(dump_json({"checked": checked, "damaged": [{"kind": d.kind, "path": str(d.path)} for d in damaged]}))
    else:
        for entry in damaged:
            print(f"damaged {entry.kind} entry: {entry.path}")
        print(f"{checked} entr{'y' if checked == 1 else 'ies'} checked, {len(damaged)} damaged")
    return EXIT_REFUSED if damaged else EXIT_OK


def _cmd_prune(args: argparse.Namespace) -> int:
    try:
        settings_cap = load_settings(Path.cwd()).cache_max_size
        cap = args.max_size if args.max_size is not None else settings_cap
        if cap is None:
            raise CacheError("give --max-size (or cache_max_size in the configuration)")
        max_bytes = parse_size(cap)
        removed, freed = _cache(args).prune(max_bytes)
    except (ConfigError, CacheError) as exc:
        print(f"ttsbench cache prune: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"removed {removed} least recently used entr{'y' if removed == 1 else 'ies'}, freed {_size(freed)}")
    return EXIT_OK


def add_command(commands: Any) -> None:
    p = commands.add_parser("cache", help="the clip and transcript cache: stats, check, prune")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    stats = actions.add_parser("stats", help="entries and bytes per kind")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    check = actions.add_parser("check", help="check every entry against its checksum; exit 1 if one is damaged")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    prune = actions.add_parser("prune", help="remove least recently used entries down to a size")
    prune.add_argument("--max-size", metavar="SIZE", help="e.g. 2GB, 500MB or a byte count (default: cache_max_size)")
    for action in (stats, check, prune):
        action.add_argument("--dir", metavar="DIR", help="the cache folder (default: as the pytest plugin finds it)")
    stats.set_defaults(func=_cmd_stats)
    check.set_defaults(func=_cmd_check)
    prune.set_defaults(func=_cmd_prune)
