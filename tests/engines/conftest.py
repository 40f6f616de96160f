"""Fixtures for the HTTP adapter tests: fake provider servers and profiles pointing at them.

The fakes live in ``tests/fakes/tts_providers.py`` (and ``seed_providers.py``) and the test profiles in
``tests/support/engine_rig.py`` (both folders are on sys.path through the root conftest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_rig import AWS_KEY_ID, AWS_KEY_ID_ENV, AWS_REGION, KEY_ENV, SECRET, Rig
from seed_providers import ALL_FAKES
from tts_providers import FakeProvider


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> str:
    """The test key in its environment variables (and AWS's key id in its own)."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv(AWS_KEY_ID_ENV, AWS_KEY_ID)
    return SECRET


@pytest.fixture
def rig_factory(secret_env: str, tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    """Start a provider's fake (accepting :data:`SECRET` unless told otherwise); all stopped afterwards."""
    started: list[FakeProvider] = []

    def start(provider: str, **fake_args: Any) -> Rig:
        cls = ALL_FAKES[provider]
        if provider == "polly":
            fake_args.setdefault("key", SECRET)
            fake_args.setdefault("key_id", AWS_KEY_ID)
            fake_args.setdefault("region", AWS_REGION)
        else:
            fake_args.setdefault("key", SECRET)
        fake = cls(**fake_args).start()
        started.append(fake)
        return Rig(provider, fake, tmp_path)

    yield start
    for fake in started:
        fake.stop()
