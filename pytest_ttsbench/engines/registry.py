"""Engine types by name: the built-in adapters, and third-party ones from an entry point.

A third-party package registers a factory taking an :class:`~pytest_ttsbench.config.EngineProfile`::

    [project.entry-points."pytest_ttsbench.engines"]
    my-engine = "my_package.tts:MyEngine"
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from pytest_ttsbench.engines.base import Engine, EngineUnavailable
from pytest_ttsbench.registry import MissingDependency, Registry, UnknownName

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

ENTRY_POINT_GROUP = "pytest_ttsbench.engines"

EngineFactory = Callable[["EngineProfile"], Engine]

#: type → its factory, imported only when a profile uses it (cloud SDKs stay optional).
ENGINES: Registry[EngineFactory] = Registry(
    "engine type",
    ENTRY_POINT_GROUP,
    {
        "espeak": "pytest_ttsbench.engines.espeak:EspeakEngine",
        "piper": "pytest_ttsbench.engines.piper:PiperEngine",
        "command": "pytest_ttsbench.engines.command:CommandEngine",
        "python": "pytest_ttsbench.engines.python_factory:PythonEngine",
        "openai": "pytest_ttsbench.engines.openai:OpenAIEngine",
        "azure": "pytest_ttsbench.engines.azure:AzureEngine",
        "google": "pytest_ttsbench.engines.google:GoogleEngine",
        "elevenlabs": "pytest_ttsbench.engines.elevenlabs:ElevenLabsEngine",
        "fish": "pytest_ttsbench.engines.fish:FishEngine",
        "polly": "pytest_ttsbench.engines.polly:PollyEngine",
        "minimax": "pytest_ttsbench.engines.minimax:MiniMaxEngine",
        "volcengine": "pytest_ttsbench.engines.volcengine:VolcengineEngine",
        "dashscope": "pytest_ttsbench.engines.dashscope:DashScopeEngine",
        "chat-audio": "pytest_ttsbench.engines.chat_audio:ChatAudioEngine",
        "gemini": "pytest_ttsbench.engines.gemini:GeminiEngine",
        "transcripts": "pytest_ttsbench.engines.replay:TranscriptsEngine",
        "audio-dir": "pytest_ttsbench.engines.replay:AudioDirEngine",
    },
    install_hints={
        "piper": "pip install 'pytest-ttsbench[piper]'",
        "polly": "pip install 'pytest-ttsbench[polly]'",
        "fish": "pip install 'pytest-ttsbench[fish]'",
    },
)


def register_builtin(type_name: str, target: str, install_hint: str | None = None) -> None:
    """Add an engine type (``module:attribute`` of its factory), e.g. from a conftest."""
    ENGINES.register(type_name, target, install_hint)


def available_engine_types() -> list[str]:
    """Every engine ``type`` a profile may name."""
    return ENGINES.names()


def shipped_engine_types() -> list[str]:
    """The engine types the package itself ships (``ttsbench init`` writes a profile for each)."""
    return ENGINES.builtin_names()


def adapter_module(type_name: str) -> ModuleType | None:
    """The module that implements an engine type (built in or from an entry point), None when unknown.

    Adapters declare facts about themselves there, such as ``CONTROLS`` and ``EXPORT_FORMATS``.
    """
    return ENGINES.module_of(type_name)


def create_engine(profile: EngineProfile) -> Engine:
    """Build the engine a profile describes.

    Raises LookupError for an unknown type, :class:`EngineUnavailable` (with the install hint)
    when the type's optional dependency is missing.
    """
    try:
        factory = ENGINES.get(profile.type)
    except UnknownName:
        raise LookupError(
            f"engine profile {profile.name!r} has unknown type {profile.type!r}; "
            f"known types: {', '.join(ENGINES.names())}"
        ) from None
    except MissingDependency as exc:
        raise EngineUnavailable(f"engine profile {profile.name!r}: {exc}") from exc
    return factory(profile)
