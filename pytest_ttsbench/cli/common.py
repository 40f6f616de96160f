"""What every ``ttsbench`` subcommand shares: exit statuses and the runs they read."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

from pytest_ttsbench.run_model.manifest import ALLOW_UNVERIFIED

EXIT_OK = 0
EXIT_REFUSED = 1  # a guarded slice moved, a regression, or a run that does not match its manifest
EXIT_USAGE = 2  # bad input: a missing or malformed file, a bad option value


def add_allow_unverified(parser: argparse.ArgumentParser) -> None:
    """``--allow-unverified``: read runs whose own files no longer match their checksum manifest, or that
    have none (run_model/manifest.verify_recorded_run); each is named on stderr."""
    parser.add_argument(
        ALLOW_UNVERIFIED,
        action="store_true",
        help="read runs whose files no longer match their checksum manifest (or that have none), naming each; "
        "by default such a run is refused",
    )


def say_unverified(command: str, notes: Iterable[str]) -> None:
    """Name on stderr each run read with ``--allow-unverified`` that does not verify."""
    for note in notes:
        print(f"ttsbench {command}: {note}", file=sys.stderr)
