"""Test profiles for the HTTP adapter tests: the secret every message is searched for, and a rig
that builds engines against a running fake provider (``tests/fakes/tts_providers.py``).

Every profile uses tiny timeouts and waits so fault-injection tests stay fast, and reads its key
from an environment variable holding :data:`SECRET`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seed_providers import ALL_FAKES
from tts_providers import FakeProvider

from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import Engine
from pytest_ttsbench.engines.registry import create_engine

SECRET = "sk-ttsbench-Q7zX-secret-value-4242"
KEY_ENV = "TTSBENCH_TEST_TTS_KEY"
AWS_KEY_ID = "AKIDTTSBENCHEXAMPLE"
AWS_KEY_ID_ENV = "TTSBENCH_TEST_AWS_KEY_ID"
AWS_REGION = "eu-west-1"

# Options every test profile gets: fail fast, retry fast.
FAST = {"timeout_s": 1.0, "connect_timeout_s": 1.0, "max_retries": 2, "retry_min_wait_s": 0.01, "retry_max_wait_s": 3.0}

# Per provider: the voice its fake knows, and how the base_url is formed from the fake's address.
VOICES: dict[str, Any] = {
    "openai": "alloy",
    "azure": {"en": "en-US-JennyNeural", "zh": "zh-CN-XiaoxiaoNeural", "th": "th-TH-PremwadeeNeural"},
    "google": {"en": "en-US-Neural2-F"},
    "elevenlabs": "21m00Tcm4TlvDq8ikWAM",
    "fish": None,
    "polly": {"en": "Joanna", "zh": "Zhiyu"},
    "minimax": "male-qn-qingse",
    "volcengine": {"en": "en_male_adam_mars_bigtts", "zh": "zh_female_cancan_mars_bigtts"},
    "dashscope": "longxiaochun_v2",
    "chat-audio": "mimo_default",
    "gemini": "Kore",
}
# The providers whose base_url ends in /v1 (the engine appends only the method's path).
V1_BASE = ("openai", "chat-audio")
PROVIDERS = tuple(ALL_FAKES)
# How each provider words a throttling reply and a refused key, for the shared fault tests:
# MiniMax answers both with HTTP 200 and a base_resp code; the others with an HTTP status.
THROTTLED_MARK = {"polly": "Throttling", "minimax": "status_code 1002", "dashscope": "Throttling.RateQuota"}
REFUSED_KEY_MARK = {"minimax": "status_code 1004"}
# Providers that never send Retry-After (Polly throttles with a 400, MiniMax with a 200).
NO_RETRY_AFTER = ("polly", "minimax")


@dataclass
class Rig:
    """A running fake and a way to build engines against it."""

    provider: str
    fake: FakeProvider
    base_dir: Path

    def profile(self, **options: Any) -> EngineProfile:
        voice = options.pop("voice", VOICES[self.provider])
        api_key_env = options.pop("api_key_env", KEY_ENV)
        base = self.fake.url + ("/v1" if self.provider in V1_BASE else "")
        merged: dict[str, Any] = {"base_url": base, **FAST}
        if self.provider == "polly":
            merged.update(region=AWS_REGION, access_key_id_env=AWS_KEY_ID_ENV)
        merged.update(options)
        return EngineProfile(
            name=f"{self.provider}-test",
            type=self.provider,
            voice=voice,
            api_key_env=api_key_env,
            options=merged,
            base_dir=self.base_dir,
        )

    def engine(self, **options: Any) -> Engine:
        return create_engine(self.profile(**options))


def leaked_fragment(text: str, secret: str = SECRET, width: int = 8) -> str | None:
    """Any ``width`` characters of the secret's distinctive part found in ``text``: a cut key leaks too.

    The first 12 characters of :data:`SECRET` ("sk-ttsbench-") also occur in ordinary output
    (the plugin's name), so only the rest is searched.
    """
    tail = secret[12:] if secret == SECRET else secret
    return next((tail[i : i + width] for i in range(len(tail) - width + 1) if tail[i : i + width] in text), None)
