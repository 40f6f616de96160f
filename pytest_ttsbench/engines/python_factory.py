"""A Python object as a TTS engine: a local model loaded once per process, with no adapter package.

Profile fields::

    artst:
      type: python
      factory: "my_models.artst:load"      # module:callable, imported with the config folder on sys.path
      options: {checkpoint: MBZUAI/ArTST, device: cuda}   # passed as keyword arguments
      concurrency: 1                       # synthesize() calls in flight at once (threads); default 1

The callable is called once per process (once per pytest-xdist worker), at the first synthesis,
and its object is shared by every profile naming the same factory and options, so a
1.5-billion-parameter model loads once per worker, not once per clip. The object has:

* ``synthesize(request)`` with a :class:`~pytest_ttsbench.engines.base.SynthesisRequest`
  (``text``, ``language``, ``voice``, ``item_id``, ``seed``), returning one of: encoded audio
  ``bytes`` (WAV, MP3, FLAC…); a ``(samples, sample_rate)`` tuple of a float array in [-1, 1]
  or an int16 array; a mapping ``{audio, sample_rate, media_type, metadata}`` with either of
  those as ``audio``; or a :class:`~pytest_ttsbench.engines.base.Synthesis`.
* optionally ``close()``, called once when the last profile using it closes (session end);
* optionally ``cache_identity()``, a mapping naming what decides its audio (a checkpoint's
  revision, a library version). Without it the engine's audio is never cached: no key could
  tell the model's old audio from its new.

Anything ``synthesize`` raises becomes the item's ``error`` row, quoting the exception's
message with every known secret redacted; so does a factory that fails (each item says so,
and the factory is not called again).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_ttsbench.audio.decoding import sample_rate_problem
from pytest_ttsbench.audio.wav import pcm16_wav
from pytest_ttsbench.config import ConfigError
from pytest_ttsbench.engines.base import EngineError, EngineUnavailable, Synthesis, SynthesisRequest
from pytest_ttsbench.run_model.provenance import profile_secrets
from pytest_ttsbench.support.checked_numbers import AT_LEAST_ONE
from pytest_ttsbench.support.json_documents import dump_json
from pytest_ttsbench.support.redaction import Redactor, redact_known
from pytest_ttsbench.support.text import shorten

if TYPE_CHECKING:
    from pytest_ttsbench.config import EngineProfile

# What a user can set for the voice, and the audio formats it can deliver (workflow tables).
CONTROLS: tuple[str, ...] = ("voice", "factory options")
EXPORT_FORMATS: tuple[str, ...] = ("whatever the object returns: encoded bytes, or samples with their rate",)

_MESSAGE_CHARS = 2000


@dataclass
class _Loaded:
    """One factory's object in this process, and how many open engines use it."""

    factory: Callable[..., Any]
    options: dict[str, Any]
    lock: threading.Lock = field(default_factory=threading.Lock)
    synthesizer: Any = None
    failure: str | None = None  # why the factory failed; it is not called again
    users: int = 0


_LOADED: dict[str, _Loaded] = {}
_LOADED_LOCK = threading.Lock()


def _import_factory(target: str, base_dir: Path, profile_name: str) -> Callable[..., Any]:
    """The callable ``module:attribute`` names: a missing module or attribute is a ConfigError,
    a missing dependency of the module makes the engine unavailable."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"engine profile {profile_name!r}: factory must be 'package.module:callable', got {target!r}")
    folder = str(base_dir)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # a factory module next to the configuration file imports as is
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise ConfigError(
                f"engine profile {profile_name!r}: factory module {module_name!r} not found "
                f"(looked on sys.path and in {folder})"
            ) from None
        raise EngineUnavailable(
            f"engine profile {profile_name!r}: factory module {module_name!r} needs {exc.name!r}, "
            "which is not installed"
        ) from None
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise ConfigError(f"engine profile {profile_name!r}: module {module_name!r} has no {attribute!r}")
    if not callable(found):
        raise ConfigError(f"engine profile {profile_name!r}: factory {target!r} is not callable")
    return found


def _options_key(target: str, options: Mapping[str, Any], base_dir: Path) -> str:
    """Which profiles share one object: the same factory, options and configuration folder."""
    return dump_json([target, options, str(base_dir)], sort_keys=True, default=str)


def samples_wav(samples: Any, sample_rate: Any) -> bytes:
    """A 16-bit mono WAV of a float array in [-1, 1] or an int16 array; ValueError names what is wrong."""
    problem = sample_rate_problem(sample_rate)
    if problem is not None:
        raise ValueError(problem)
    array = np.asarray(samples)
    if array.ndim == 2 and 1 in array.shape:
        array = array.reshape(-1)  # (n, 1) or (1, n): mono with a channel axis
    if array.ndim != 1:
        raise ValueError(f"samples must be mono (one dimension), got shape {array.shape}")
    if array.dtype == np.int16:
        pcm = array.astype("<i2")
    elif np.issubdtype(array.dtype, np.floating):
        if not np.all(np.isfinite(array)):
            raise ValueError("samples hold NaN or infinite values")
        pcm = (np.clip(array, -1.0, 1.0) * 32767).astype("<i2")
    else:
        raise ValueError(f"samples must be float or int16, got {array.dtype}")
    return pcm16_wav(pcm.tobytes(), int(sample_rate))


def as_synthesis(result: Any) -> Synthesis:
    """What ``synthesize`` returned, as a :class:`Synthesis`; ValueError says what it was instead."""
    if isinstance(result, Synthesis):
        return result
    if isinstance(result, (bytes, bytearray, memoryview)):
        return Synthesis(audio=bytes(result))
    if isinstance(result, tuple) and len(result) == 2:
        return Synthesis(audio=samples_wav(*result))
    if isinstance(result, Mapping):
        audio, rate = result.get("audio"), result.get("sample_rate")
        metadata = result.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise ValueError(f"'metadata' must be a mapping, got {type(metadata).__name__}")
        if isinstance(audio, (bytes, bytearray, memoryview)):
            media_type = str(result.get("media_type") or ("audio/pcm" if rate else "audio/wav"))
            return Synthesis(audio=bytes(audio), media_type=media_type, pcm_sample_rate=rate, metadata=dict(metadata))
        if audio is None:
            raise ValueError("the mapping has no 'audio'")
        return Synthesis(audio=samples_wav(audio, rate), metadata=dict(metadata))
    raise ValueError(
        f"synthesize() returned {type(result).__name__}; expected bytes, (samples, sample_rate), "
        "a mapping with 'audio', or a Synthesis"
    )


class PythonEngine:
    """The object a profile's ``factory`` returns, shared per process, as an engine."""

    def __init__(self, profile: EngineProfile) -> None:
        self.name = profile.name
        target = profile.option("factory")
        if not isinstance(target, str) or not target.strip():
            raise ConfigError(f"engine profile {profile.name!r}: type python needs factory: 'package.module:callable'")
        self.target = target.strip()
        options = profile.option("options", {})
        if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
            raise ConfigError(f"engine profile {profile.name!r}: options must be a mapping of keyword arguments")
        self.concurrency = int(profile.number("concurrency", 1, AT_LEAST_ONE))
        # The values of the variables the profile names (api_key_env, and any *_env, the
        # factory's options included: a model's token) are scrubbed from every message.
        named = [os.environ.get(str(v), "") for k, v in options.items() if k.endswith("_env") and v]
        self.redact = Redactor([*profile_secrets(profile), *named])
        factory = _import_factory(self.target, Path(profile.base_dir), profile.name)
        key = _options_key(self.target, options, Path(profile.base_dir))
        with _LOADED_LOCK:
            self._loaded = _LOADED.setdefault(key, _Loaded(factory, dict(options)))
            self._loaded.users += 1
        self._key = key
        self._closed = False
        self._asked_identity = False
        self._known_identity: dict[str, Any] | None = None

    def _error(self, message: str) -> EngineError:
        text = redact_known(self.redact(f"python profile {self.name!r}: {message}"))
        return EngineError(shorten(text, _MESSAGE_CHARS))

    def _synthesizer(self) -> Any:
        """The factory's object, made on first use (one thread makes it; the others wait)."""
        loaded = self._loaded
        with loaded.lock:
            if loaded.synthesizer is None and loaded.failure is None:
                try:
                    made = loaded.factory(**loaded.options)
                except Exception as exc:  # a model that cannot load fails its items, with the reason
                    loaded.failure = f"factory {self.target} failed: {type(exc).__name__}: {exc}"
                else:
                    if not callable(getattr(made, "synthesize", None)):
                        loaded.failure = (
                            f"factory {self.target} returned {type(made).__name__}, which has no synthesize()"
                        )
                    else:
                        loaded.synthesizer = made
            if loaded.failure is not None:
                raise self._error(loaded.failure)
            return loaded.synthesizer

    def _identity(self) -> dict[str, Any] | None:
        """The object's ``cache_identity()``, asked once; None when it has none, returns none or fails."""
        if self._asked_identity:
            return self._known_identity
        try:
            declared = getattr(self._synthesizer(), "cache_identity", None)
            identity = declared() if callable(declared) else None
        except Exception:  # a model that cannot say what decides its audio is not cached, never a crash
            identity = None
        usable = isinstance(identity, Mapping) and len(identity) > 0
        self._known_identity = (
            {"factory": self.target, **identity} if isinstance(identity, Mapping) and usable else None
        )
        self._asked_identity = True
        return self._known_identity

    @property
    def cacheable(self) -> bool:
        """Only an object that says what decides its audio (``cache_identity``) is ever cached."""
        return self._identity() is not None

    def cache_identity(self) -> dict[str, Any]:
        return self._identity() or {"factory": self.target}

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        synthesizer = self._synthesizer()
        started = time.perf_counter()
        try:
            result = synthesizer.synthesize(request)
        except Exception as exc:  # the model's own failure is this item's error row, not a crash
            raise self._error(f"synthesize failed for item {request.item_id!r}: {type(exc).__name__}: {exc}") from None
        elapsed = time.perf_counter() - started
        try:
            synthesis = as_synthesis(result)
        except ValueError as exc:
            raise self._error(f"item {request.item_id!r}: {exc}") from None
        if not synthesis.audio and synthesis.transcripts is None:
            raise self._error(f"synthesize returned no audio for item {request.item_id!r}")
        synthesis.metadata = {"factory": self.target, "synthesis_seconds": round(elapsed, 4), **synthesis.metadata}
        return synthesis

    def close(self) -> None:
        """Release this profile's use; the last one out closes the object (``close()`` if it has one)."""
        if self._closed:
            return
        self._closed = True
        with _LOADED_LOCK:
            self._loaded.users -= 1
            if self._loaded.users > 0:
                return
            _LOADED.pop(self._key, None)
        closer = getattr(self._loaded.synthesizer, "close", None)
        self._loaded.synthesizer = None
        if callable(closer):
            closer()
