"""Command-line options as records, declared once in the module of the feature that owns them.

An :class:`OptionSpec` is one ``--tts-*`` option as both argument parsers take it: pytest's
option group ``addoption`` is argparse's ``add_argument`` with the same keywords. A feature
module declares its options as a tuple of specs (``CACHE_OPTIONS`` in cache.py, ``GATE_OPTIONS``
in gating/options.py, ...); the plugin's ``pytest_addoption`` adds every tuple to its option
groups with :func:`add_options`, and a ``ttsbench`` subcommand that shares options (``ttsbench
gate`` the gate's) adds the same tuple to its argument parser, so name, default, type, choices
and help cannot differ between the two front ends. This module imports nothing of the package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


class _Derived:
    """The default an option's action implies: [] for ``append``, False for ``store_true``, else None."""

    def __repr__(self) -> str:
        return "DERIVED"


DERIVED: Any = _Derived()


@dataclass(frozen=True)
class OptionSpec:
    """One option: its flag, how it parses, its default and its help."""

    flag: str
    help: str
    action: str | None = None
    type: Callable[[str], Any] | None = None
    default: Any = DERIVED
    metavar: str | None = None
    choices: Sequence[str] | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def resolved_default(self) -> Any:
        """The value read back when the option is not given."""
        if self.default is not DERIVED:
            return self.default
        return {"append": [], "store_true": False}.get(self.action or "")

    def kwargs(self) -> dict[str, Any]:
        """The keywords of ``addoption`` / ``add_argument`` for this option."""
        found: dict[str, Any] = {"help": self.help, "dest": self.dest, "default": self.resolved_default}
        for name in ("action", "type", "metavar", "choices"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name)
        return found


def add_options(add: Callable[..., Any], specs: Iterable[OptionSpec]) -> None:
    """Declare ``specs`` with ``add``: a pytest option group's ``addoption``, or argparse's ``add_argument``."""
    for spec in specs:
        add(spec.flag, **spec.kwargs())
