"""Where the package's own data lives: the shipped packs, inside the installed package or this repository's tree.

Below every layer, so that the run model (a manifest names a pack's file relative to the package) and
the case loader find the packs in one place.
"""

from __future__ import annotations

from pathlib import Path


def packs_root() -> Path:
    """The folder the shipped packs live in (inside the installed package, or this repository's tree)."""
    import pytest_ttsbench  # the package itself: this module may live in any of its folders

    return Path(pytest_ttsbench.__file__).resolve().parent / "packs"
