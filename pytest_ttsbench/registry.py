"""The one registry: named things (engine types, scorers, ASR route types, number parsers).

Each :class:`Registry` knows three sources, looked up in this order:

1. things registered at run time with :meth:`Registry.register` (an object, or ``"module:attr"``);
2. the built-ins shipped with the plugin, as ``"module:attr"`` strings, imported on first use so
   that an optional dependency is only needed by whoever uses that entry;
3. third-party entry points in the registry's group, loaded on first use of that name.

Registering a name never hides the others: the built-ins and entry points stay available. An
entry whose import fails for a missing package raises :class:`MissingDependency` with the
registry's install hint for it (``pip install 'pytest-ttsbench[polly]'``); an unknown name
raises :class:`UnknownName` listing the known ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points
from threading import Lock
from types import ModuleType
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownName(LookupError):
    """A name that is neither registered, built in nor an entry point."""


class MissingDependency(ImportError):
    """An entry whose module needs a package that is not installed; the message says what to install."""


def load_target(target: str) -> object:
    """The object a ``"module:attr"`` (or ``"module:attr.inner"``) string names."""
    module, _, attr = target.partition(":")
    found: object = import_module(module)
    for part in filter(None, attr.split(".")):
        found = getattr(found, part)
    return found


class Registry(Generic[T]):
    """Names → things of one kind, from registrations, built-ins and an entry-point group."""

    def __init__(
        self,
        kind: str,
        group: str | None,
        builtins: Mapping[str, str],
        install_hints: Mapping[str, str] | None = None,
    ) -> None:
        self.kind = kind  # "scorer", "engine type": how messages name an entry
        self.group = group
        self._builtins = dict(builtins)
        self._hints = dict(install_hints or {})
        self._registered: dict[str, T | str] = {}
        self._loaded: dict[str, T] = {}
        self._entry_points: dict[str, EntryPoint] | None = None
        self._lock = Lock()

    def register(self, name: str, thing: T | str, install_hint: str | None = None) -> None:
        """Add (or replace) one entry: the thing itself, or ``"module:attr"`` imported on first use.

        ``install_hint`` says what to install when importing it fails for a missing package.
        """
        with self._lock:
            self._registered[name] = thing
            if install_hint is not None:
                self._hints[name] = install_hint
            self._loaded.pop(name, None)

    def _plugins(self) -> dict[str, EntryPoint]:
        if self._entry_points is None:
            found = entry_points(group=self.group) if self.group else ()
            self._entry_points = {ep.name: ep for ep in found}
        return self._entry_points

    def names(self) -> list[str]:
        """Every name that can be looked up, sorted."""
        return sorted({*self._registered, *self._builtins, *self._plugins()})

    def builtin_names(self) -> list[str]:
        """The names this package ships, whatever a plugin or a test registered beside them."""
        return sorted(self._builtins)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def get(self, name: str) -> T:
        """The entry called ``name``, imported on first use."""
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
        thing = self._load(name)
        with self._lock:
            self._loaded[name] = thing
        return thing

    def _load(self, name: str) -> T:
        try:
            if name in self._registered:
                entry = self._registered[name]
                return load_target(entry) if isinstance(entry, str) else entry  # type: ignore[return-value]
            if name in self._builtins:
                return load_target(self._builtins[name])  # type: ignore[return-value]
            plugin = self._plugins().get(name)
            if plugin is not None:
                loaded: T = plugin.load()
                return loaded
        except ModuleNotFoundError as exc:
            hint = self._hints.get(name)
            if hint is None:
                raise
            raise MissingDependency(
                f"{self.kind} {name!r} needs the package {exc.name!r}, which is not installed: {hint}", name=exc.name
            ) from exc
        raise UnknownName(f"unknown {self.kind} {name!r}; known {self.kind}s: {', '.join(self.names())}")

    def module_of(self, name: str) -> ModuleType | None:
        """The module that defines an entry, imported (None for an unknown name or a registered object)."""
        entry = self._registered.get(name) or self._builtins.get(name)
        if isinstance(entry, str):
            return import_module(entry.partition(":")[0])
        plugin = self._plugins().get(name)
        return import_module(plugin.module) if plugin is not None else None
