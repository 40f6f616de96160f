"""What makes one generation of a clip independent and traceable: its seed and its provenance.

A listening study compares several generations of the same prompt, so each must be a fresh
draw from the engine: a fresh seed where the provider takes one (the profile's ``seed`` option,
when set, makes the draws reproducible: generation *r* gets ``seed + r``), and the provider,
model, voice, settings, date and seed written beside each clip's result.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.run_model.provenance import profile_secrets, synthesis_facts

SEED_LIMIT = 2**32  # seeds fit an unsigned 32-bit integer (ElevenLabs: 0–4294967295)

# Synthesis metadata that describes one request rather than how the voice was set up: timings,
# sizes, retries, request ids, local library paths. None of it is a setting of the generation.
_NOT_SETTINGS = frozenset(
    {
        "provider",
        "engine",
        "model",
        "voice",
        "seed",
        "http_status",
        "attempts",
        "retries",
        "retry_reasons",
        "request_id",
        "total_seconds",
        "wall_seconds",
        "synthesis_seconds",
        "bytes",
        "sentences",
        "library",
        "data_path",
        "routes",
    }
)


def generation_seed(profile: EngineProfile, repeat: int) -> int:
    """The seed for generation ``repeat``: ``seed + repeat`` under a profile seed, else a fresh random one."""
    base = profile.option("seed")
    if isinstance(base, int) and not isinstance(base, bool):
        return (base + repeat) % SEED_LIMIT
    return secrets.randbelow(SEED_LIMIT)


def generation_record(
    profile: EngineProfile, voice: str | None, metadata: Mapping[str, Any], started_at: str
) -> dict[str, Any]:
    """Provider, model, voice, settings, seed and date of one generation, from what the adapter reported.

    ``seed`` is None when the provider takes none (the adapter did not report sending one).
    Settings are recorded secret-free (see :func:`~pytest_ttsbench.run_model.provenance.synthesis_facts`):
    no secret-named key, no value equal to the profile's key, URLs reduced to their host.
    """
    settings = {k: v for k, v in sorted(metadata.items()) if k not in _NOT_SETTINGS}
    return {
        "provider": profile.type,
        "model": metadata.get("model"),
        "voice": metadata.get("voice") or voice,
        "settings": synthesis_facts(settings, profile_secrets(profile)),
        "seed": metadata.get("seed"),
        "date": started_at,
    }
