"""Building ASR routes from configuration.

The default is one faster-whisper route. A configuration (``asr:`` at the top level, or inside an
engine profile) may instead list several routes, each transcribing every clip::

    asr:
      routes:
        - {type: whisper, model: base}
        - {type: whisper, model: tiny.en, name: tiny}
        - {type: openai, base_url: http://gpu-box:8000/v1, model: whisper-large-v3}   # asr/openai_route.py
        - {type: command, name: mine, command: [my-asr, "{audio}", "{lang}"]}        # asr/command_route.py
        - {type: chat, base_url: http://gpu-box:8000/v1, model: mimo-asr}            # asr/chat_route.py

A third-party package adds a route type with a factory taking the spec mapping::

    [project.entry-points."pytest_ttsbench.asr_routes"]
    my-asr = "my_package.asr:my_route"
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_ttsbench.asr.base import AsrRoute
from pytest_ttsbench.registry import Registry, UnknownName

ENTRY_POINT_GROUP = "pytest_ttsbench.asr_routes"

RouteFactory = Callable[[Mapping[str, Any]], AsrRoute]

#: route type → its factory, which takes the route's spec mapping.
ROUTES: Registry[RouteFactory] = Registry(
    "ASR route type",
    ENTRY_POINT_GROUP,
    {
        "whisper": "pytest_ttsbench.asr.registry:whisper_route",
        "openai": "pytest_ttsbench.asr.openai_route:openai_route",
        "command": "pytest_ttsbench.asr.command_route:command_route",
        "chat": "pytest_ttsbench.asr.chat_route:chat_route",
    },
)

_WHISPER_KEYS = ("model", "device", "compute_type", "beam_size", "cpu_threads", "batch_size", "batch_items")


def whisper_route(spec: Mapping[str, Any]) -> AsrRoute:
    """A faster-whisper route from ``{model, device, compute_type, beam_size, cpu_threads, batch_size,
    batch_items, name}``."""
    from pytest_ttsbench.asr.whisper import WhisperRoute

    unknown = set(spec) - {*_WHISPER_KEYS, "type", "name"}
    if unknown:
        raise ValueError(f"whisper route: unknown field(s) {', '.join(sorted(unknown))}")
    route = WhisperRoute(**{key: spec[key] for key in _WHISPER_KEYS if spec.get(key) is not None})
    if spec.get("name"):
        route.name = str(spec["name"])
    return route


def register_route_type(type_name: str, factory: RouteFactory | str) -> None:
    """Add a route type: a callable taking the spec mapping, or its ``module:callable``."""
    ROUTES.register(type_name, factory)


def route_specs(asr: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The route specs an ``asr`` mapping describes: its ``routes`` list, or one whisper route."""
    if asr.get("routes"):
        return [dict(spec) for spec in asr["routes"]]
    single = {k: v for k, v in asr.items() if k not in ("routes", "quorum")}
    single.setdefault("type", "whisper")
    return [single]


def create_route(spec: Mapping[str, Any]) -> AsrRoute:
    """One route from its spec; the ``type`` (default ``whisper``) picks the factory."""
    try:
        factory = ROUTES.get(str(spec.get("type", "whisper")))
    except UnknownName as exc:
        raise LookupError(str(exc)) from None
    return factory(dict(spec))


def create_routes(asr: Mapping[str, Any]) -> list[AsrRoute]:
    """Every route an ``asr`` mapping describes, in order (the first is the primary transcript).

    Route names key the transcripts in results, so two routes may not share one.
    """
    routes = [create_route(spec) for spec in route_specs(asr)]
    names = [route.name for route in routes]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"ASR routes must have distinct names; repeated: {', '.join(duplicates)} (set 'name')")
    return routes
