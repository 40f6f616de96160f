"""Engine types by name: the built-in adapters, and third-party ones from an entry point.

A third-party package registers a factory taking an :class:`~pytest_ttsbench.config.EngineProfile`::

    [project.entry-points."pytest_ttsbench.engines"]
    my-engine = "my_package.tts:MyEngine"
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from types import ModuleType
from typing import TYPE_CHECKING

from pytest_ttsbench.engines.base import Engine

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

ENTRY_POINT_GROUP = "pytest_ttsbench.engines"

EngineFactory = Callable[["EngineProfile"], Engine]

# type → "module:attribute", imported only when a profile uses it (cloud SDKs stay optional).
_BUILTIN: dict[str, str] = {
    "espeak": "pytest_ttsbench.engines.espeak:EspeakEngine",
    "piper": "pytest_ttsbench.engines.piper:PiperEngine",
    "command": "pytest_ttsbench.engines.command:CommandEngine",
    "openai": "pytest_ttsbench.engines.openai:OpenAIEngine",
    "azure": "pytest_ttsbench.engines.azure:AzureEngine",
    "google": "pytest_ttsbench.engines.google:GoogleEngine",
    "elevenlabs": "pytest_ttsbench.engines.elevenlabs:ElevenLabsEngine",
    "fish": "pytest_ttsbench.engines.fish:FishEngine",
    "polly": "pytest_ttsbench.engines.polly:PollyEngine",
    "transcripts": "pytest_ttsbench.engines.replay:TranscriptsEngine",
    "audio-dir": "pytest_ttsbench.engines.replay:AudioDirEngine",
}


def register_builtin(type_name: str, target: str) -> None:
    """Add a built-in adapter (``module:attribute``); used by adapter modules shipped with the plugin."""
    _BUILTIN[type_name] = target
    _factories.cache_clear()


@cache
def _factories() -> dict[str, Callable[[], EngineFactory]]:
    def lazy(target: str) -> Callable[[], EngineFactory]:
        module, _, attr = target.partition(":")
        return lambda: getattr(import_module(module), attr)

    found: dict[str, Callable[[], EngineFactory]] = {name: lazy(t) for name, t in _BUILTIN.items()}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.load)
    return found


def available_engine_types() -> list[str]:
    """Every engine ``type`` a profile may name."""
    return sorted(_factories())


def adapter_module(type_name: str) -> ModuleType | None:
    """The module that implements an engine type (built in or from an entry point), None when unknown.

    Adapters declare facts about themselves there, such as ``CONTROLS`` and ``EXPORT_FORMATS``.
    """
    if type_name in _BUILTIN:
        return import_module(_BUILTIN[type_name].partition(":")[0])
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == type_name:
            return import_module(ep.module)
    return None


def create_engine(profile: EngineProfile) -> Engine:
    """Build the engine a profile describes; raises LookupError for an unknown type."""
    factories = _factories()
    if profile.type not in factories:
        raise LookupError(
            f"engine profile {profile.name!r} has unknown type {profile.type!r}; "
            f"known types: {', '.join(sorted(factories))}"
        )
    return factories[profile.type]()(profile)
