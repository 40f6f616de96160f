"""A path read from a data file resolves inside its folder, or is refused naming it (issue 22, build 8).

The property test resolves generated paths (absolute ones, ``..`` chains, symbolic links out of
the folder and back into it) in a real folder on disk and compares the verdict of
:func:`inside_folder` with an independent model of the same tree, resolved component by component.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.support.data_paths import OutsideFolderError, inside_folder

#: the tree on disk, under a root: the data folder ``run`` and a sibling ``outside``
#: name -> symlink target (relative to the link's own folder); folders and files are plain
LINKS = {
    ("run", "out"): ("..", "outside"),  # a link out of the folder
    ("run", "in"): ("a",),  # a link to a folder inside it
    ("run", "a", "up"): ("..", "..", "outside", "secret.wav"),  # a file link out, two levels up
    ("run", "a", "clip-link.wav"): ("..", "clip.wav"),  # a file link that stays inside
    ("outside", "back"): ("..", "run", "a"),  # a link from outside back in
}
DIRS = [("run",), ("run", "a"), ("run", "b"), ("outside",)]
FILES = [("run", "clip.wav"), ("run", "a", "x.wav"), ("outside", "secret.wav")]
SEGMENTS = ["..", ".", "a", "b", "out", "in", "up", "clip.wav", "x.wav", "clip-link.wav", "run", "outside", "back"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree").resolve()
    for parts in DIRS:
        root.joinpath(*parts).mkdir(parents=True, exist_ok=True)
    for parts in FILES:
        root.joinpath(*parts).write_bytes(b"RIFF")
    for parts, target in LINKS.items():
        root.joinpath(*parts).symlink_to(Path(*target))
    return root


def model_resolve(start: tuple[str, ...], segments: list[str]) -> tuple[str, ...]:
    """Where ``segments`` lead from ``start`` in the model of the tree (components below the root)."""
    current = list(start)
    pending = list(segments)
    hops = 0
    while pending:
        segment = pending.pop(0)
        if segment in ("", "."):
            continue
        if segment == "..":
            if not current:
                return ("(above the tree)",)  # no segment names the tree's own folder: never back in
            current.pop()
            continue
        child = (*current, segment)
        if child in LINKS:
            hops += 1
            assert hops < 50
            pending = list(LINKS[child]) + pending  # the link's target, relative to its own folder
            continue
        current.append(segment)
    return tuple(current)


@settings(max_examples=500, deadline=None)
@given(
    segments=st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=7),
    absolute=st.sampled_from(["relative", "from-root", "from-folder"]),
)
def test_a_path_is_accepted_exactly_when_it_resolves_inside_the_folder(
    tree: Path, segments: list[str], absolute: str
) -> None:
    folder = tree / "run"
    relative = "/".join(segments)
    prefix = {"relative": "", "from-root": f"{tree}/", "from-folder": f"{folder}/"}[absolute]
    recorded = prefix + relative
    start = {"relative": ("run",), "from-root": (), "from-folder": ("run",)}[absolute]
    expected = model_resolve(start, segments)
    if expected[:1] == ("run",):
        assert inside_folder(folder, recorded) == tree.joinpath(*expected)
    else:
        with pytest.raises(OutsideFolderError) as caught:
            inside_folder(folder, recorded)
        assert repr(recorded) in str(caught.value) and str(folder) in str(caught.value)


@pytest.mark.parametrize(
    ("recorded", "why"),
    [
        ("/etc/passwd", "absolute path outside"),
        ("../outside/secret.wav", "through '..'"),
        ("a/../../outside/secret.wav", "through '..'"),
        ("out/secret.wav", "through a symbolic link"),
        ("a/up", "through a symbolic link"),
        ("", "empty"),
        ("clip\0.wav", "NUL"),
    ],
)
def test_each_way_out_is_named(tree: Path, recorded: str, why: str) -> None:
    with pytest.raises(OutsideFolderError, match=why):
        inside_folder(tree / "run", recorded)


def test_links_and_dots_that_stay_inside_are_followed(tree: Path) -> None:
    folder = tree / "run"
    assert inside_folder(folder, "in/x.wav") == folder / "a" / "x.wav"
    assert inside_folder(folder, "a/clip-link.wav") == folder / "clip.wav"
    assert inside_folder(folder, "a/../clip.wav") == folder / "clip.wav"
    assert inside_folder(folder, str(folder / "clip.wav")) == folder / "clip.wav"
    assert inside_folder(Path(os.path.relpath(folder)), "clip.wav") == folder / "clip.wav"  # a relative folder too
