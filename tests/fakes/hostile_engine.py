"""A ``python`` engine factory that returns whatever a plan file says, item by item (``hostile_engine:load``).

The boundary tests and the fuzz harness (tests/boundaries) write the plan: for each item id, what
``synthesize`` returns or raises, so every shape an engine can send (a WAV with any header and any
samples, headerless PCM at any rate, sample arrays, values of the wrong type, exceptions carrying
hostile text) is sent by a real engine through a real run.

A plan entry is JSON (so it names non-finite samples as words):

- ``{"kind": "wav", "format": 1|3, "channels": N, "rate": R, "bits": B, "fill": "tone"|"nan"|"inf"|"zeros",
  "seconds": S}``: a WAV with exactly that header (format 1 integer PCM, 3 float);
- ``{"kind": "pcm", "rate": R}``: one second of 16-bit tone as ``{"audio": bytes, "sample_rate": R}``;
- ``{"kind": "samples", "rate": R, "fill": ...}``: a ``(float array, R)`` tuple;
- ``{"kind": "value", "value": V}``: ``V`` itself; ``{"kind": "bytes", "hex": H}``: those bytes;
- ``{"kind": "raise", "message": M}``: ``RuntimeError(M)``;
- ``{"kind": "heard", "text": T}``: no audio, the fixed transcript ``T`` (as the replay engine gives),
  so a run's verdicts are chosen without synthesis or ASR.

An item's entry may also be a list of entries, one per generation (``--tts-repeats``): generation
``r`` gets entry ``r`` (modulo the list's length) under a profile ``seed: 0``, whose requests carry
the seed ``0 + r``.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from pytest_ttsbench.engines.base import Synthesis


def wav_bytes(fmt: int, channels: int, rate: int, bits: int, data: bytes) -> bytes:
    """A RIFF/WAVE file with exactly this ``fmt`` chunk (fields wrapped to their widths) and ``data``."""
    block = (channels * bits // 8) & 0xFFFF
    fields = (fmt & 0xFFFF, channels & 0xFFFF, rate & 0xFFFFFFFF, (rate * block) & 0xFFFFFFFF, block, bits & 0xFFFF)
    chunk = struct.pack("<HHIIHH", *fields)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(chunk)) + chunk + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def samples(fill: str, count: int) -> np.ndarray:
    """``count`` float samples: a 220 Hz tone at half scale, zeros, or all NaN / infinite."""
    if fill == "nan":
        return np.full(count, np.nan)
    if fill == "inf":
        return np.full(count, np.inf)
    if fill == "zeros":
        return np.zeros(count)
    return 0.5 * np.sin(np.arange(count) * 2 * np.pi * 220 / 16_000)


def planned_wav(spec: dict[str, Any]) -> bytes:
    rate, channels, bits = int(spec["rate"]), int(spec["channels"]), int(spec["bits"])
    count = max(0, int(float(spec.get("seconds", 1.0)) * 16_000)) * max(channels, 1)
    values = samples(str(spec.get("fill", "tone")), count)
    if spec["format"] == 3:
        data = values.astype("<f4" if bits != 64 else "<f8").tobytes()
    else:
        data = (np.clip(np.nan_to_num(values), -1.0, 1.0) * 32767).astype("<i2").tobytes()
    return wav_bytes(int(spec["format"]), channels, rate, bits, data)


def answer(spec: dict[str, Any]) -> Any:
    """What ``synthesize`` returns for one plan entry (or raises)."""
    kind = spec["kind"]
    if kind == "wav":
        return planned_wav(spec)
    if kind == "pcm":
        return {"audio": (samples("tone", 16_000) * 32767).astype("<i2").tobytes(), "sample_rate": spec["rate"]}
    if kind == "samples":
        return (samples(str(spec.get("fill", "tone")), 16_000), spec["rate"])
    if kind == "value":
        return spec["value"]
    if kind == "bytes":
        return bytes.fromhex(spec["hex"])
    if kind == "heard":
        return Synthesis(transcripts={"transcript": str(spec["text"])}, metadata={"routes": ["transcript"]})
    raise RuntimeError(str(spec.get("message", "refused")))


class Hostile:
    def __init__(self, plan: str, token_env: str = "") -> None:
        self.plan: dict[str, Any] = json.loads(Path(plan).read_text(encoding="utf-8"))

    def synthesize(self, request: Any) -> Any:
        spec = self.plan.get(request.item_id) or self.plan["*"]
        if isinstance(spec, list):  # one entry per generation, picked by the request's seed
            spec = spec[(request.seed or 0) % len(spec)]
        return answer(spec)


def load(plan: str, token_env: str = "") -> Hostile:
    return Hostile(plan, token_env)
