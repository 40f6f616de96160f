"""TTS engines: one module per adapter behind :class:`~pytest_ttsbench.engines.base.Engine`."""

from pytest_ttsbench.engines.base import Engine, EngineError, Synthesis, SynthesisRequest
from pytest_ttsbench.engines.registry import available_engine_types, create_engine

__all__ = [
    "Engine",
    "EngineError",
    "Synthesis",
    "SynthesisRequest",
    "available_engine_types",
    "create_engine",
]
