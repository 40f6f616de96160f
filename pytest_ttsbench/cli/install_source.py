"""How this package reached this machine, as a pip requirement a CI job can repeat (PEP 610).

pip records where an installed distribution came from in its ``direct_url.json`` (PEP 610): a
version control URL and commit, an archive (a wheel or sdist URL, with its hash), or a local
folder (editable or not); a distribution installed from an index has none. ``ttsbench init``
writes its workflow to install the package the same way, pinned: the commit, the archive's hash,
the index's exact version. A local folder outside the repository is not reachable from CI: the
requirement then falls back to the index's version, and :attr:`InstallSource.note` says so, to be
written beside it.
"""

from __future__ import annotations

import importlib.metadata
import os
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder
from pytest_ttsbench.support.json_documents import load_json

DISTRIBUTION = "pytest-ttsbench"


@dataclass(frozen=True)
class InstallSource:
    """A requirement template (``{extras}`` where the extras go) and where it came from."""

    template: str
    how: str  # one line: where this machine got the package
    note: str | None = None  # why CI installs it otherwise (a local folder CI cannot reach)

    def requirement(self, extras: Sequence[str] = ()) -> str:
        return self.template.format(extras=f"[{','.join(extras)}]" if extras else "")


def install_source(root: Path, distribution: str = DISTRIBUTION) -> InstallSource:
    """Where the installed ``distribution`` came from, as seen from the repository at ``root``."""
    dist = importlib.metadata.distribution(distribution)
    text = dist.read_text("direct_url.json")
    return source_from(load_json(text) if text else None, dist.version, root)


def source_from(direct_url: Mapping[str, Any] | None, version: str, root: Path) -> InstallSource:
    """The pinned requirement for one ``direct_url.json`` (None: installed from an index)."""
    name = DISTRIBUTION + "{extras}"
    index = InstallSource(f"{name}=={version}", f"the package index, version {version}")
    if direct_url is None:
        return index
    url = str(direct_url.get("url", ""))
    subdirectory = direct_url.get("subdirectory")
    fragment = f"#subdirectory={subdirectory}" if subdirectory else ""
    vcs = direct_url.get("vcs_info")
    if isinstance(vcs, Mapping) and not url.startswith("file:"):
        commit = vcs.get("commit_id", "")
        return InstallSource(f"{name} @ {vcs.get('vcs', 'git')}+{url}@{commit}{fragment}", f"{url} at {commit}")
    archive = direct_url.get("archive_info")
    if isinstance(archive, Mapping) and not url.startswith("file:"):
        hashes = archive.get("hashes") or {}
        digest = f"sha256={hashes['sha256']}" if "sha256" in hashes else str(archive.get("hash") or "")
        pin = f"#{digest}" if digest else ""
        return InstallSource(f"{name} @ {url}{pin}", f"the archive {url}")
    folder = _local_path(url)
    editable = isinstance(direct_url.get("dir_info"), Mapping) and direct_url["dir_info"].get("editable")
    kind = "an editable install of" if editable else "the local"
    if folder is not None and _inside(root, folder):
        relative = Path(os.path.relpath(folder, root)).as_posix()
        return InstallSource(f"./{relative}{{extras}}", f"{kind} folder {relative} in this repository")
    return InstallSource(
        index.template,
        f"{kind} {'folder' if isinstance(direct_url.get('dir_info'), Mapping) else 'file'} {folder or url}",
        note=(
            f"this machine installed {DISTRIBUTION} from {folder or url}, which CI cannot reach; the "
            f"workflow installs version {version} from the package index instead. If that version is not "
            f'published, replace it with a reachable pin: "{DISTRIBUTION} @ git+https://…@<commit>", '
            "or a wheel committed to the repository"
        ),
    )


def _local_path(url: str) -> Path | None:
    parsed = urllib.parse.urlsplit(url)
    return Path(urllib.parse.unquote(parsed.path)) if parsed.scheme == "file" else None


def _inside(root: Path, folder: Path) -> bool:
    try:
        inside_folder(root, folder)
    except OutsideFolderError:
        return False
    return True
