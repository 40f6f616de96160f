"""Command-line options as records, declared once in the module of the feature that owns them.

An :class:`OptionSpec` is one ``--tts-*`` option as both argument parsers take it: pytest's
option group ``addoption`` is argparse's ``add_argument`` with the same keywords. A feature
module declares its options as a tuple of specs (``CACHE_OPTIONS`` in cache.py, ``GATE_OPTIONS``
in session/gate_options.py, ...); the plugin's ``pytest_addoption`` adds every tuple to its option
groups with :func:`add_options`, and a ``ttsbench`` subcommand that shares options (``ttsbench
gate`` the gate's) adds the same tuple to its argument parser, so name, default, type, choices
and help cannot differ between the two front ends. This module imports nothing of the package
but the text helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

#: options another plugin adds, which one of our extras installs: option → the extra's name
OPTIONS_OF_EXTRAS: Mapping[str, str] = {"--html": "html", "--self-contained-html": "html", "--css": "html"}


class _Derived:
    """The default an option's action implies: [] for ``append``, False for ``store_true``, else None."""

    def __repr__(self) -> str:
        return "DERIVED"


DERIVED: Any = _Derived()


class OptionSpec(NamedTuple):
    """One option: its flag, how it parses, its default and its help.

    A named tuple, not a dataclass: every pytest run imports this class (plugin.py), and building a
    frozen dataclass costs several times what building a named tuple does (benchmarks/idle_cost.py)."""

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


def unknown_option_hints(
    unknown: Iterable[str], own: Iterable[str], extras: Mapping[str, str] = OPTIONS_OF_EXTRAS
) -> list[str]:
    """The next step for each unrecognized command-line option that is ours to explain.

    An option one of our extras would add names the extra to install; a mistyped ``--tts-*``
    option (``--tts-engnie``, ``--tts_engine``, ``--ttsengine``) names the closest of ours,
    matched on what follows ``tts``. Anything else is left to pytest's own "unrecognized
    arguments", which lists it.
    """
    from pytest_ttsbench.support.text import closest_names  # only a run with a hint to give loads it

    ours = {_after_tts(flag): flag for flag in own}
    hints: list[str] = []
    for argument in unknown:
        flag = argument.split("=", 1)[0]
        if not ours_to_explain(argument, extras):
            continue
        if flag in extras:
            hints.append(
                f'{flag} comes with an extra that is not installed: pip install "pytest-ttsbench[{extras[flag]}]"'
            )
        else:
            close = closest_names(_after_tts(flag), ours)
            hint = (
                f"did you mean {ours[close[0]]!r}?" if close else "not an option of pytest-ttsbench (see pytest --help)"
            )
            hints.append(f"{flag}: {hint}")
    return hints


def ours_to_explain(argument: str, extras: Mapping[str, str] = OPTIONS_OF_EXTRAS) -> bool:
    """Whether a command-line argument, if pytest does not recognize it, is one
    :func:`unknown_option_hints` explains: an option of one of our extras, or a ``--tts*`` option.
    Cheap, so a run whose arguments hold none skips the second parse the hints need (plugin.py)."""
    flag = argument.split("=", 1)[0]
    return flag in extras or (flag.startswith("--") and flag.lstrip("-").lower().startswith("tts"))


def _after_tts(flag: str) -> str:
    """``--tts-engine`` → ``engine``; ``--tts_Engnie`` → ``engnie``: the part a mistyped option is matched on."""
    name = flag.lstrip("-").lower().replace("_", "-")
    return name.removeprefix("tts").lstrip("-")
