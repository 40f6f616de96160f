"""The ``ttsbench`` command: work on cases, transcripts and results files without pytest.

One module per subcommand, each with an ``add_command(subparsers)`` that registers it; a new
subcommand is a new module here and one line in :data:`SUBCOMMANDS`. A third-party package adds
one by entry point, named as the subcommand, pointing at its ``add_command``::

    [project.entry-points."pytest_ttsbench.subcommands"]
    my-command = "my_package.cli:add_command"

Such subcommands follow the built-in ones in ``ttsbench --help``. One that fails to load is left
out with a warning naming it, so a broken plugin never takes the built-in subcommands with it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pytest_ttsbench.registry import Registry
from pytest_ttsbench.support.outside_text import guarded_std_streams
from pytest_ttsbench.support.redaction import install_log_redaction

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
    "report",
)

ENTRY_POINT_GROUP = "pytest_ttsbench.subcommands"

#: subcommand name → its ``add_command(subparsers)``: the modules here, then third-party entry points.
COMMANDS: Registry[Callable[[Any], None]] = Registry(
    "subcommand", ENTRY_POINT_GROUP, {name: f"pytest_ttsbench.cli.{name}:add_command" for name in SUBCOMMANDS}
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
        COMMANDS.get(name)(commands)
    for name in COMMANDS.names():
        if name not in SUBCOMMANDS:
            _add_plugin_command(commands, name)
    return parser


def _add_plugin_command(commands: Any, name: str) -> None:
    """A third-party subcommand, or a warning on stderr saying why it is left out."""
    try:
        COMMANDS.get(name)(commands)
    except Exception as exc:  # a plugin's own bug: the other subcommands must still work
        print(f"ttsbench: subcommand {name!r} (entry point group {ENTRY_POINT_GROUP}) left out: {exc}", file=sys.stderr)
        return
    if name not in commands.choices:
        print(
            f"ttsbench: entry point {name!r} (group {ENTRY_POINT_GROUP}) added no subcommand called {name!r}; "
            "name the entry point as the subcommand",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    install_log_redaction()
    with guarded_std_streams():  # outside text on stdout/stderr escaped, as in a pytest run (outside_text.py)
        return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
