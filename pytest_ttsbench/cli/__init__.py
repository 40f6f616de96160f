"""The ``ttsbench`` command: work on cases, transcripts and results files without pytest.

One module per subcommand, each with an ``add_command(subparsers)`` that registers it; a new
subcommand is a new module here and one line in :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

from pytest_ttsbench.redaction import install_log_redaction

# Order shown in `ttsbench --help`.
SUBCOMMANDS: tuple[str, ...] = (
    "rescore",
    "compare",
    "baseline",
    "leaderboard",
    "diagnostics",
    "dashboard",
    "verify",
    "listening",
    "merge",
    "gate",
    "cache",
    "packs",
    "texts",
    "init",
)

DESCRIPTION = "Work on cases, transcripts and results files without pytest."
EPILOG = """\
exit statuses: 0 done; 1 refused (a regression, a guarded verdict moved, a manifest mismatch);
2 bad input (a missing or malformed file, a bad option value).
"""


def _version() -> str:
    try:
        return version("pytest-ttsbench")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ttsbench", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    for name in SUBCOMMANDS:
        import_module(f"pytest_ttsbench.cli.{name}").add_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    install_log_redaction()
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
