"""``ttsbench verify RUN... [--project DIR]``: a run checked against its checksum manifest, wherever it now lives."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.run_model.manifest import ManifestError, find_manifests, verify_manifest


def _cmd_verify(args: argparse.Namespace) -> int:
    mismatched = False
    for run in args.runs:
        try:
            manifests = find_manifests(Path(run))
        except ManifestError as exc:
            print(f"ttsbench verify: {exc}", file=sys.stderr)
            return EXIT_USAGE
        for manifest in manifests:
            try:
                check = verify_manifest(manifest, Path(args.project) if args.project else None)
            except ManifestError as exc:
                print(f"ttsbench verify: {exc}", file=sys.stderr)
                return EXIT_USAGE
            if check.ok:
                print(f"{manifest}: OK ({check.checked - len(check.not_here)} file(s) match)")
                for name in check.not_here:
                    print(f"  not checked (project input not present here): {name}")
                continue
            mismatched = True
            print(f"{manifest}: MISMATCH")
            for kind, names in (("modified", check.modified), ("missing", check.missing), ("added", check.added)):
                for name in names:
                    print(f"  {kind}: {name}")
    return EXIT_REFUSED if mismatched else EXIT_OK


def add_command(commands: Any) -> None:
    p = commands.add_parser("verify", help="check a run against its checksum manifest")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders, results files or manifest files")
    p.add_argument(
        "--project",
        metavar="DIR",
        help="the project whose case files and configuration the run read (default: where the run was made, "
        "else the current folder)",
    )
    p.set_defaults(func=_cmd_verify)
