"""A local "model" for the ``python`` engine, shaped like the recipes in docs/recipes/local-models.md.

``load(load_dir=..., voice=...)`` stands for loading a checkpoint: it writes one line to
``<load_dir>/<pid>.loads`` each time it is called, so a test can count loads per process (per
xdist worker). ``synthesize`` speaks with real eSpeak NG and returns float samples with their
rate, as a transformers model's waveform would come; it logs each item to ``<pid>.items``.
Text containing ``fail_on`` raises, quoting the environment variable ``secret_env``'s value, so
the test sees the message redacted. ``close`` writes ``<pid>.closed``.
"""

from __future__ import annotations

import io
import os
import wave
from pathlib import Path
from typing import Any

import numpy as np

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine


class EspeakModel:
    def __init__(self, load_dir: str, voice: str | None, fail_on: str | None, secret_env: str | None) -> None:
        self.log = Path(load_dir)
        self.fail_on = fail_on
        self.secret_env = secret_env
        self.espeak = EspeakEngine(EngineProfile(name="inner", type="espeak", voice=voice))

    def _append(self, suffix: str, line: str) -> None:
        with open(self.log / f"{os.getpid()}.{suffix}", "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def synthesize(self, request: SynthesisRequest) -> tuple[np.ndarray, int]:
        self._append("items", f"{request.item_id}\t{request.seed}")
        if self.fail_on and self.fail_on in request.text:
            secret = os.environ.get(self.secret_env or "", "")
            raise RuntimeError(f"model refused {request.item_id}: token {secret} rejected")
        with wave.open(io.BytesIO(self.espeak.synthesize(request).audio)) as clip:
            rate = clip.getframerate()
            pcm = np.frombuffer(clip.readframes(clip.getnframes()), dtype="<i2")
        return pcm.astype(np.float32) / 32768.0, rate

    def close(self) -> None:
        self._append("closed", "closed")


def load(load_dir: str, voice: str | None = None, fail_on: str | None = None, secret_env: str | None = None) -> Any:
    with open(Path(load_dir) / f"{os.getpid()}.loads", "a", encoding="utf-8") as f:
        f.write("loaded\n")
    return EspeakModel(load_dir, voice, fail_on, secret_env)


class CachedEspeakModel(EspeakModel):
    """The same model, declaring what decides its audio: its audio may be cached."""

    def cache_identity(self) -> dict[str, str]:
        return {"model": "espeak-ng", **self.espeak.cache_identity()}


def load_cached(load_dir: str, voice: str | None = None) -> Any:
    with open(Path(load_dir) / f"{os.getpid()}.loads", "a", encoding="utf-8") as f:
        f.write("loaded\n")
    return CachedEspeakModel(load_dir, voice, None, None)
