"""Every file the package replaces whole is written by ``atomic_files.write_atomically`` (issue 27, item 6).

There were eight hand-written ways (a fixed ``.tmp`` or ``.part`` name then ``Path.replace``, a
pid in the name, ``mkstemp`` then ``os.replace``), each with its own gaps: two writers of one
gate file shared one temporary name, and a failed write left its temporary file behind. The
package's source is parsed (ast), so a move into place written anywhere else is seen; the one
exception is named with its reason.
"""

from __future__ import annotations

import ast
import os
import stat
import threading
from pathlib import Path

import pytest

import pytest_ttsbench
from pytest_ttsbench.support.atomic_files import write_atomically

PACKAGE = Path(pytest_ttsbench.__file__).parent

SEAM = "support/atomic_files.py"
EXEMPT = {
    # a whole folder of model weights assembled beside its place and renamed into it; not one file
    "asr/models.py": "a model folder moved into place whole",
}

_MOVES = {("os", "replace"), ("os", "rename"), ("shutil", "move")}
_TEMPORARIES = {"mkstemp", "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile"}


def file_moves(source: str) -> list[str]:
    """Every call in ``source`` that moves a file into place or makes a temporary file to do so."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in ("os", "shutil", "tempfile"):
            found += [
                f"{node.module}.{a.name}"
                for a in node.names
                if (node.module, a.name) in _MOVES or a.name in _TEMPORARIES
            ]
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name, receiver = node.func.attr, node.func.value
        if isinstance(receiver, ast.Name) and (receiver.id, name) in _MOVES:
            found.append(f"{receiver.id}.{name}")
        elif name in _TEMPORARIES:
            found.append(f"tempfile.{name}")
        # Path.replace / Path.rename take the one target; str.replace takes two, dataclasses'
        # and datetime's replace take keywords.
        elif name in ("replace", "rename") and len(node.args) == 1 and not node.keywords:
            found.append(f"Path.{name}")
    return found


def test_the_finder_sees_every_way_of_moving_a_file_into_place() -> None:
    source = (
        "import os, shutil, tempfile\nfrom os import replace\n"
        "def f(tmp, path):\n    tmp.replace(path); os.replace(tmp, path); tmp.rename(path)\n"
        "    tempfile.mkstemp(dir='.'); tempfile.NamedTemporaryFile('w'); shutil.move(tmp, path)\n"
    )
    assert sorted(file_moves(source)) == sorted(
        [
            "os.replace",
            "Path.replace",
            "os.replace",
            "Path.rename",
            "tempfile.mkstemp",
            "tempfile.NamedTemporaryFile",
            "shutil.move",
        ]
    )
    harmless = (
        "from dataclasses import replace\ns = 'a'.replace('a', 'b'); d = d.replace(tzinfo=None); replace(x, a=1)\n"
    )
    assert file_moves(harmless) == []


def test_no_module_writes_a_file_into_place_around_the_helper() -> None:
    bypasses = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == SEAM or name in EXEMPT:
            continue
        found = file_moves(path.read_text(encoding="utf-8"))
        if found:
            bypasses[name] = found
    assert bypasses == {}, "write the file with atomic_files.write_atomically instead"


def test_every_exemption_still_needs_it() -> None:
    for name in EXEMPT:
        assert file_moves((PACKAGE / name).read_text(encoding="utf-8")), f"{name} no longer needs its exemption"


# --- the helper itself --------------------------------------------------------------------------


def test_text_and_bytes_land_whole_in_a_new_folder(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "r1" / "gate.json"
    write_atomically(target, '{"verdict": "pass", "ℓ": 1}\n')
    assert target.read_bytes() == '{"verdict": "pass", "ℓ": 1}\n'.encode()
    write_atomically(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in target.parent.iterdir()) == ["gate.json"]


def test_a_failed_move_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("old", encoding="utf-8")
    occupied = tmp_path / "clip.wav"
    occupied.mkdir()
    (occupied / "inside").write_text("x", encoding="utf-8")  # a non-empty folder cannot be replaced by a file
    with pytest.raises(OSError):
        write_atomically(occupied, b"RIFF")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.wav", "keep.txt"]
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "old"


def test_a_new_file_takes_the_umask_and_a_private_one_stays_private(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_atomically(tmp_path / "results.jsonl", "{}\n")
        write_atomically(tmp_path / "entry", b"sealed", mode=0o600)
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "results.jsonl").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "entry").stat().st_mode) == 0o600


def test_concurrent_writers_of_one_file_leave_one_whole_version(tmp_path: Path) -> None:
    # Each writer has a temporary file of its own; with one shared name (as the gate file and the run
    # header had) a writer could move another's half-written bytes into place.
    target = tmp_path / "run.header.json"
    versions = [bytes([n]) * 200_000 for n in range(8)]
    errors: list[BaseException] = []

    def write(data: bytes) -> None:
        try:
            write_atomically(target, data)
        except BaseException as exc:  # a thread's error is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(data,)) for data in versions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert target.read_bytes() in versions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.header.json"]
