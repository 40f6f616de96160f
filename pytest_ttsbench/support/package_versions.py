"""The installed version of a distribution, read from its metadata once per process.

Recognizers, decoders and measures name the versions of the libraries they ran on in their
identities (the transcript and quality caches' keys, a run's provenance), and those are asked
for once per clip: reading a distribution's metadata each time cost a warm rerun (#28).
"""

from __future__ import annotations

import functools
import importlib.metadata


@functools.cache
def installed_version(distribution: str) -> str | None:
    """``distribution``'s version as installed, or None when it is not installed."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
