"""The case files of the packs that ship inside the package, read from where the package has them."""

from __future__ import annotations

from pathlib import Path

from pytest_ttsbench.cases.packs import shipped_packs


def pack_file(name: str) -> Path:
    """The case file of a shipped single-file pack (``pack_file("en-numerals")``)."""
    (path,) = shipped_packs()[name].files
    return path


def all_pack_files() -> list[Path]:
    return [path for pack in shipped_packs().values() for path in pack.files]
