"""Session-wide real clips for the quality tests."""

from __future__ import annotations

import numpy as np
import pytest
from quality_clips import synthesize


@pytest.fixture(scope="session")
def espeak_clips() -> list[np.ndarray]:
    return synthesize("espeak")


@pytest.fixture(scope="session")
def piper_clips() -> list[np.ndarray]:
    return synthesize("piper")
