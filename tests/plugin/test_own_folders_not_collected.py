"""pytest does not walk the plugin's own folders looking for tests (#28: a warm rerun's collection
was mostly pytest walking the clip cache and earlier runs' clips kept inside the project).

Skipped: the cache folder, the runs folder, this run's clip folder, any cache folder (by its cache
directory tag) and every earlier run's clip folder (recognised by the run header beside it).
Never skipped: the root, any path named on the command line and every folder above one, so
``pytest cache/test_x.py`` still collects it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from plugin_projects import NUMERALS

from pytest_ttsbench.session.own_folders import is_kept_clips_folder, own_folders
from pytest_ttsbench.support.cache import ClipCache, is_tagged_cache

# A command engine that writes two seconds of a tone, and a command route that hears the item's
# text: the run needs no model, only real files in the places a run writes them.
SPEAK = """\
import math, struct, sys, wave
tone = b"".join(struct.pack("<h", int(8000 * math.sin(i / 8))) for i in range(32000))
with wave.open(sys.argv[1], "wb") as out:
    out.setnchannels(1); out.setsampwidth(2); out.setframerate(16000)
    out.writeframes(tone)
"""
PLANTED = "def test_planted():\n    assert False, 'collected from a folder of the plugin'\n"


def _project(pytester: pytest.Pytester) -> Path:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "demo-numerals.yaml").write_text(NUMERALS, encoding="utf-8")
    (pytester.path / "speak.py").write_text(SPEAK, encoding="utf-8")
    (pytester.path / "test_project.py").write_text("def test_project():\n    pass\n", encoding="utf-8")
    echo = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
    engine = {"type": "command", "command": [sys.executable, "speak.py", "{out}"]}
    config = {"asr": {"routes": [echo]}, "engines": {"speaker": engine}, "runs_dir": "runs", "cache_dir": "store"}
    (pytester.path / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return pytester.path


def _listed(pytester: pytest.Pytester, *args: str) -> str:
    result = pytester.runpytest("--co", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *args)
    return result.stdout.str()


@pytest.fixture
def ran_project(pytester: pytest.Pytester) -> Path:
    """A project after two real runs: one into the runs folder, one into ``out/``; then a test
    file planted in every folder the plugin wrote."""
    project = _project(pytester)
    for extra in ([], ["--tts-results=out/results.jsonl"]):
        result = pytester.runpytest("-p", "no:xdist", "-p", "no:cacheprovider", "--tts-engine=speaker", *extra)
        assert (project / "store").is_dir(), result.stdout.str()
    assert (project / "out" / "results-audio").is_dir() and (project / "out" / "results.run.json").is_file()
    (run,) = (project / "runs").iterdir()
    assert (run / "audio").is_dir()
    cache_entry_folder = next(p for kind in (project / "store").iterdir() for p in kind.iterdir() if p.is_dir())
    planted = (project / "store", cache_entry_folder, project / "out" / "results-audio", run / "audio", run)
    for number, folder in enumerate(planted):  # a module name of its own each: pytest imports them all
        (folder / f"test_planted_{number}.py").write_text(PLANTED, encoding="utf-8")
    return project


def test_the_plugins_folders_are_not_walked_for_tests(pytester: pytest.Pytester, ran_project: Path) -> None:
    output = _listed(pytester, "--tts-engine=speaker")
    assert "test_project.py::test_project" in output, output
    assert "demo-numerals" in output
    assert "test_planted" not in output, output


def test_another_runs_cache_folder_is_not_walked_either(pytester: pytest.Pytester, ran_project: Path) -> None:
    """A cache folder this run does not use is known by the cache directory tag in it."""
    result = pytester.runpytest(
        "-p", "no:xdist", "-p", "no:cacheprovider", "--tts-engine=speaker", "--tts-cache-dir=other"
    )
    assert (ran_project / "other" / "CACHEDIR.TAG").is_file(), result.stdout.str()
    planted = next(
        p for kind in (ran_project / "other").iterdir() if kind.is_dir() for p in kind.iterdir() if p.is_dir()
    )
    (planted / "test_planted_9.py").write_text(PLANTED, encoding="utf-8")
    assert "test_planted_9" in _listed(pytester, "-p", "no:ttsbench"), "the contrast: pytest alone walks it"
    output = _listed(pytester, "--tts-engine=speaker")  # this run's cache is store/, not other/
    assert "test_project.py::test_project" in output, output
    assert "test_planted" not in output, output


def test_a_plain_pytest_never_walks_the_default_folders_and_reads_nothing_of_ours(pytester: pytest.Pytester) -> None:
    """Without an engine the plugin loads nothing and reads no file of ours (#38), so it cannot know
    folders the configuration moved: the default places sit under ``.ttsbench/``, which pytest's own
    ``norecursedirs`` never enters (docs/running.md says to add a moved folder there)."""
    project = _project(pytester)
    config = yaml.safe_load((project / "ttsbench.yaml").read_text(encoding="utf-8"))
    del config["runs_dir"], config["cache_dir"]
    (project / "ttsbench.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = pytester.runpytest("-p", "no:xdist", "-p", "no:cacheprovider", "--tts-engine=speaker")
    (run,) = (project / ".ttsbench" / "runs").iterdir()
    for number, folder in enumerate((run, run / "audio")):
        (folder / f"test_planted_{number}.py").write_text(PLANTED, encoding="utf-8")
    (project / "ttsbench.yaml").write_text("engines: [not, a, mapping\n", encoding="utf-8")  # never read
    output = _listed(pytester)
    assert "test_project.py::test_project" in output and "1 test collected" in output, result.stdout.str() + output
    assert "test_planted" not in output, output


def test_with_the_plugin_off_the_same_files_are_collected(pytester: pytest.Pytester, ran_project: Path) -> None:
    """The contrast that shows the checks above can fail: pytest alone walks into every folder."""
    output = _listed(pytester, "-p", "no:ttsbench")
    assert sum(f"test_planted_{number}.py::test_planted" in output for number in range(5)) == 5, output


def test_a_path_named_on_the_command_line_is_collected_even_inside_the_cache(
    pytester: pytest.Pytester, ran_project: Path
) -> None:
    output = _listed(pytester, "--tts-engine=speaker", "store/test_planted_0.py")
    assert "store/test_planted_0.py::test_planted" in output, output


def test_a_cache_set_to_the_project_itself_skips_nothing(pytester: pytest.Pytester) -> None:
    project = _project(pytester)
    output = _listed(pytester, "--tts-engine=speaker", f"--tts-cache-dir={project}")
    assert "test_project.py::test_project" in output, output
    assert "demo-numerals" in output


# --- the rule itself, over any layout -------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "cache", "audio", "out"])
_RELATIVE = st.lists(_NAMES, min_size=0, max_size=4).map(lambda parts: Path(*parts) if parts else Path("."))


@settings(max_examples=300, deadline=None)
@given(
    root=_RELATIVE,
    named=st.lists(_RELATIVE, max_size=3),
    written=st.lists(_RELATIVE, max_size=3),
    probe=_RELATIVE,
)
def test_the_folders_skipped_are_exactly_the_written_ones_off_every_wanted_path(
    root: Path, named: list[Path], written: list[Path], probe: Path
) -> None:
    base = Path("/ttsbench-no-such-folder")  # nothing on disk: no run header makes a clip folder
    root_path, probe_path = base / root, base / probe
    named_paths = [base / n for n in named]
    written_paths = [base / w for w in written]
    rule = own_folders(root_path, named_paths, written_paths)
    on_a_wanted_path = any(probe_path == p or probe_path in p.parents for p in [root_path, *named_paths])
    assert rule.skips(probe_path) == (not on_a_wanted_path and probe_path in {p.resolve() for p in written_paths})


def test_a_clip_folder_is_known_by_the_run_header_beside_it(tmp_path: Path) -> None:
    layouts = [("results-audio", "results.run.json"), ("audio", "results.run.json"), ("x-audio", "x.run.json")]
    for clips, header in layouts:
        folder = tmp_path / clips
        folder.mkdir()
        assert not is_kept_clips_folder(folder), "no header yet: a folder of the project, not a run's"
        (tmp_path / header).write_text("{}", encoding="utf-8")
        assert is_kept_clips_folder(folder)
        (tmp_path / header).unlink()
    (tmp_path / "-audio").mkdir()
    (tmp_path / ".run.json").write_text("{}", encoding="utf-8")
    assert not is_kept_clips_folder(tmp_path / "-audio")


def test_a_cache_folder_is_known_by_the_specifications_signature_only(tmp_path: Path) -> None:
    (tmp_path / "CACHEDIR.TAG").write_text("not a tag\n", encoding="utf-8")
    assert not is_tagged_cache(tmp_path)
    ClipCache(tmp_path / "cache").write_entry("parsed", "ab" * 32, b"{}")
    assert is_tagged_cache(tmp_path / "cache"), "a cache folder is tagged with its first entry"
    assert (tmp_path / "cache" / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d172789f06886806bc55")
    assert own_folders(tmp_path, [], []).skips(tmp_path / "cache")
