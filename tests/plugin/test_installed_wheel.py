"""The plugin as a product team gets it: a wheel built from this tree, installed (not editable) into a
fresh virtual environment, used in an empty git repository with no configuration and no case file.

The wheel is built without build isolation (offline). The new environment is made by the running
interpreter and sees the running interpreter's site-packages (a ``.pth`` file naming them, added
after the wheel is installed), so faster-whisper and the other dependencies need no install: the
packages of whatever environment runs these tests (a fresh venv from the README's command, or the
machine's own Python), never the base interpreter's a ``--system-site-packages`` venv would see.
pytest-ttsbench itself is the wheel's copy (checked): only path lines are added, so the running
environment's own editable install (a ``.pth`` import hook there) is not processed. The main job
runs once, in one test: real eSpeak NG and Whisper over the 51 English numeral items.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from processes import run, shown, written_by

REPO = Path(__file__).resolve().parents[2]
PACKS = REPO / "pytest_ttsbench" / "packs"
EN_NODE_PREFIX = "pytest_ttsbench/packs/en-numerals/en-numerals.yaml::en-numerals["


@dataclass(frozen=True)
class Installed:
    """A virtual environment holding the wheel's copy of the plugin."""

    venv: Path
    wheel: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(self.venv)
        return env

    def run(self, argv: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        """``argv`` in the environment, its exit status left to the test (which shows the output with ``shown``)."""
        return run(argv, cwd=cwd, env=self.env(), timeout=timeout, expect=None)

    def pytest(self, cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.python), "-m", "pytest", *args], cwd, timeout)

    def ttsbench(self, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.venv / "bin" / "ttsbench"), *args], cwd)


def _source_copy(target: Path) -> Path:
    """What the wheel is built from: the package and its metadata, without build leftovers."""
    target.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, target / name)
    shutil.copytree(REPO / "pytest_ttsbench", target / "pytest_ttsbench", ignore=shutil.ignore_patterns("__pycache__"))
    return target


def running_site_packages() -> list[str]:
    """The site-packages folders of the interpreter running the tests, where its dependencies are."""
    folders = site.getsitepackages()
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [folder for folder in folders if Path(folder).is_dir()]


def see_running_packages(venv: Path) -> Path:
    """Let ``venv`` import what the running interpreter has installed: a ``.pth`` file of path lines
    in the venv's own site-packages, read after it (so the venv's own packages come first)."""
    (own,) = (venv / "lib").glob("python*/site-packages")
    pth = own / "zz_running_interpreter.pth"
    pth.write_text("".join(f"{folder}\n" for folder in running_site_packages()), encoding="utf-8")
    return pth


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    source = _source_copy(work / "source")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(work / "dist"), str(source)], timeout=600)
    (wheel,) = (work / "dist").glob("pytest_ttsbench-*.whl")
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    installed = Installed(venv, wheel)
    # The wheel goes in before the venv sees the running packages, so pip finds no other copy to replace.
    install = [
        str(installed.python),
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-index",
        "--force-reinstall",
        str(wheel),
    ]
    run(install, cwd=work, env=installed.env(), timeout=600)
    see_running_packages(venv)
    return installed


@pytest.fixture
def empty_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "product"
    repo.mkdir()
    run(["git", "init", "-q", str(repo)])
    return repo


def _manifests() -> dict[str, dict]:
    return {path.parent.name: yaml.safe_load(path.read_text(encoding="utf-8")) for path in PACKS.glob("*/pack.yaml")}


def _item_counts() -> dict[str, tuple[int, int]]:
    """Items and targets of each pack, counted from its case files in this tree."""
    counts = {}
    for name, manifest in _manifests().items():
        items = [
            item for file in manifest["files"] for item in yaml.safe_load((PACKS / name / file).read_text())["items"]
        ]
        targets = sum(len(item["expect"].get("targets", [None])) for item in items)
        counts[name] = (len(items), targets)
    return counts


def _english_ids() -> list[str]:
    data = yaml.safe_load((PACKS / "en-numerals" / "en-numerals.yaml").read_text(encoding="utf-8"))
    return [f"en-numerals/{item['id']}" for item in data["items"]]


def test_the_plugin_runs_from_the_wheel_which_holds_every_pack(installed: Installed, empty_repo: Path) -> None:
    where = installed.run(
        [str(installed.python), "-c", "import pytest_ttsbench; print(pytest_ttsbench.__file__)"], empty_repo
    )
    assert Path(where.stdout.strip()).is_relative_to(installed.venv), shown(where)
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for name, manifest in _manifests().items():
        assert f"pytest_ttsbench/packs/{name}/pack.yaml" in names
        assert all(f"pytest_ttsbench/packs/{name}/{file}" in names for file in manifest["files"])


DEPENDENCIES = ("av", "faster_whisper", "syrupy", "yaml")


def test_the_venv_imports_the_dependencies_of_the_running_interpreter(installed: Installed, empty_repo: Path) -> None:
    """Not the base interpreter's (a ``--system-site-packages`` venv's): those may lack them or differ."""
    probe = f"import {', '.join(DEPENDENCIES)}\nfor m in ({', '.join(DEPENDENCIES)}): print(m.__file__)"
    done = installed.run([str(installed.python), "-c", probe], empty_repo)
    assert done.returncode == 0, shown(done)
    running = [Path(importlib.import_module(name).__file__ or "").resolve() for name in DEPENDENCIES]
    assert [Path(line).resolve() for line in done.stdout.splitlines()] == running, shown(done)


def test_packs_list_names_every_pack_with_its_version_and_counts(installed: Installed, empty_repo: Path) -> None:
    done = installed.ttsbench(empty_repo, "packs", "list")
    assert done.returncode == 0, shown(done)
    manifests, counts = _manifests(), _item_counts()
    assert len(manifests) == 6
    for name, manifest in manifests.items():
        items, targets = counts[name]
        row = rf"^{re.escape(name)}\s+{re.escape(manifest['version'])}\s+{items}\s+{targets}\s"
        assert re.search(row, done.stdout, re.MULTILINE), name + shown(done)


def test_main_job_runs_the_51_english_numerals_and_exits_with_the_gates_verdict(
    installed: Installed, empty_repo: Path
) -> None:
    done = installed.pytest(empty_repo, "--tts-engine=espeak", "-k", "numerals", timeout=1800)
    runs = empty_repo / ".ttsbench" / "runs"
    assert runs.is_dir() and len(list(runs.iterdir())) == 1, shown(done)
    (folder,) = runs.iterdir()
    gate = json.loads(written_by(done, folder / "results.gate.json").read_text(encoding="utf-8"))
    assert done.returncode == gate["exitstatus"] == (0 if gate["passed"] else 1), shown(done)
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(row["id"] for row in rows) == sorted(_english_ids())
    version = _manifests()["en-numerals"]["version"]
    assert {(row["pack"], row["pack_version"]) for row in rows} == {("en-numerals", version)}
    assert all(row["node_id"].startswith(EN_NODE_PREFIX) for row in rows)
    header = json.loads((folder / "results.run.json").read_text(encoding="utf-8"))
    entry = header["case_files"]["en-numerals"]
    assert (entry["pack"], entry["pack_version"]) == ("en-numerals", version)
    assert "51 passed" in done.stdout or re.search(r"\b\d+ failed, \d+ passed\b", done.stdout), shown(done)


def test_collect_only_lists_the_english_numerals_and_exits_0(installed: Installed, empty_repo: Path) -> None:
    done = installed.pytest(empty_repo, "--co", "-q", "--tts-engine=espeak", "-k", "numerals")
    listed = [line for line in done.stdout.splitlines() if line.startswith(EN_NODE_PREFIX)]
    ids = [f"en-numerals/{line.rsplit('/', 1)[1].rstrip(']')}" for line in listed]
    assert sorted(ids) == sorted(_english_ids()), shown(done)
    others = [line for line in done.stdout.splitlines() if "::" in line and line not in listed]
    assert not [line for line in others if not line.startswith(("FAILED ", "ERROR "))], others  # no other item
    # Collect-only runs nothing, so nothing is gated: exit status 0 (pytest's own for a listing).
    assert done.returncode == 0, shown(done)


def test_plain_pytest_collects_no_pack_item_and_reads_no_file_of_the_repository(
    installed: Installed, empty_repo: Path
) -> None:
    # A repository's own YAML under cases/ is none of the plugin's business without a configuration.
    (empty_repo / "cases").mkdir()
    (empty_repo / "cases" / "fixture.yaml").write_text("name: a fixture\nrows: [1, 2]\n", encoding="utf-8")
    (empty_repo / "test_own.py").write_text("def test_own():\n    assert True\n", encoding="utf-8")
    done = installed.pytest(empty_repo, "-q", "-rA")
    assert done.returncode == 0, shown(done)
    assert "1 passed" in done.stdout, shown(done)
    assert "numerals" not in done.stdout and "skipped" not in done.stdout and "error" not in done.stdout.lower(), shown(
        done
    )


def test_init_writes_a_workflow_the_schema_accepts_and_refuses_a_second_run(
    installed: Installed, empty_repo: Path
) -> None:
    first = installed.ttsbench(empty_repo, "init")
    assert first.returncode == 0, shown(first)
    workflow = empty_repo / ".github" / "workflows" / "ttsbench.yml"
    run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", workflow], timeout=120
    )
    written = {p: p.read_bytes() for p in (empty_repo / "ttsbench.yaml", workflow, empty_repo / ".gitignore")}
    second = installed.ttsbench(empty_repo, "init")
    assert second.returncode == 1 and "--force" in second.stderr, shown(second)
    assert {p: p.read_bytes() for p in written} == written  # nothing touched
    again = installed.ttsbench(empty_repo, "init", "--force")
    assert again.returncode == 0, shown(again)


def test_texts_prints_one_line_per_english_numeral(installed: Installed, empty_repo: Path) -> None:
    done = installed.ttsbench(empty_repo, "texts", "en-numerals")
    assert done.returncode == 0, shown(done)
    lines = done.stdout.splitlines()
    assert [line.split("\t", 1)[0] for line in lines] == _english_ids()
    texts = {
        f"en-numerals/{i['id']}": i["text"]
        for i in yaml.safe_load((PACKS / "en-numerals" / "en-numerals.yaml").read_text())["items"]
    }
    assert all(texts[line.split("\t", 1)[0]] == line.split("\t", 1)[1] for line in lines)
