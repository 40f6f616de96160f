"""Fixtures for the listening tests: a fake ElevenLabs server that streams, and its key in the environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_rig import KEY_ENV, SECRET, Rig
from tts_providers import FakeElevenLabs


@pytest.fixture
def eleven(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Rig]:
    """A running fake ElevenLabs accepting :data:`SECRET`, read from its environment variable."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    fake = FakeElevenLabs(key=SECRET).start()
    yield Rig("elevenlabs", fake, tmp_path)
    fake.stop()
