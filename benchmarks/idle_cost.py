"""What the installed plugin costs a project that does not use it: ``pytest --co`` with it against without it.

Run: ``python benchmarks/idle_cost.py [--rounds 21] [--source DIR]``.

An unrelated project (a few test modules, a conftest and a pyproject.toml with pytest's settings, no
configuration of ours) is listed with ``pytest --co -q`` in a fresh interpreter, with the plugin
and with ``-p no:ttsbench``, the two taken in turn in each round and in alternating order, so a
change in the machine's load hits both sides of a round. It prints the median wall and CPU time of
each side, the median of the rounds' differences in milliseconds and the ratio of the medians
(target: at most 20 ms more than pytest alone, #38). ``--source`` measures another checkout of the
package (put first on ``PYTHONPATH``), e.g. the code before a change; before timing, a probe run
checks that the plugin pytest loads through the installed entry point is that checkout's.

Timings on a shared machine move by tens of milliseconds with its load, more than the cost
measured. ``--instructions`` (needs valgrind) also counts the instructions each side executes, once
each under ``valgrind --tool=cachegrind`` with a fixed hash seed: the count repeats to a few
instructions whatever the load, and is turned into milliseconds at the rate the plugin-off side ran
at its fastest round (its instructions over its least CPU time).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 20.0

_TEST_MODULE = """\
import pytest


@pytest.mark.parametrize("n", range(20))
def test_number(n):
    assert n >= 0


class TestThings:
    def test_one(self):
        assert True

    def test_two(self, tmp_path):
        assert tmp_path.exists()
"""


@dataclass(frozen=True)
class Timing:
    """One ``pytest --co`` in a child: its wall and CPU seconds."""

    wall: float
    cpu: float


def unrelated_project(folder: Path) -> Path:
    """A project that has never heard of pytest-ttsbench."""
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "unrelated"\nversion = "1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        encoding="utf-8",
    )
    tests = folder / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text("import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n")
    for index in range(5):
        (tests / f"test_module_{index}.py").write_text(_TEST_MODULE, encoding="utf-8")
    return folder


def listing(argv: list[str], cwd: Path, env: dict[str, str]) -> Timing:
    """Wall and CPU time of one child; a listing that fails stops the measurement, saying why."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return Timing(wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime))


def listing_env(source: Path) -> dict[str, str]:
    """The children's environment: ``source`` first on the path, bytecode cached as an installed package's."""
    env = dict(os.environ)
    # Measured as an installed package runs: with its bytecode cached (some sandboxes turn that off).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    return env


_WHICH_PLUGIN = """
import sys, pytest
pytest.main(["--co", "-q", "-p", "no:cacheprovider"])
plugin = sys.modules.get("pytest_ttsbench.plugin")
print("PLUGIN=" + (plugin.__file__ if plugin is not None else ""))
"""


def check_plugin_source(project: Path, env: dict[str, str], source: Path) -> None:
    """The plugin a plain ``pytest`` in ``project`` loads (through the installed ``pytest11`` entry
    point) is ``source``'s: else the figures would measure another checkout, or no plugin at all."""
    done = subprocess.run([sys.executable, "-c", _WHICH_PLUGIN], cwd=project, env=env, capture_output=True, text=True)
    loaded = next((line.removeprefix("PLUGIN=") for line in done.stdout.splitlines() if line.startswith("PLUGIN=")), "")
    if not loaded:
        raise RuntimeError(f"{sys.executable}: pytest did not load pytest-ttsbench (is the package installed?)")
    if not Path(loaded).resolve().is_relative_to(source):
        raise RuntimeError(f"pytest loaded the plugin from {loaded}, not from --source {source}")


def paired_rounds(rounds: int, source: Path, project: Path) -> tuple[list[Timing], list[Timing]]:
    """``rounds`` pairs of listings of an unrelated project: (with the plugin, with ``-p no:ttsbench``)."""
    env = listing_env(source)
    listing(BASE_ARGV, project, env)  # bytecode written, files in the page cache: not measured
    listing([*BASE_ARGV, "-p", "no:ttsbench"], project, env)
    with_plugin, without = [], []
    for index in range(rounds):
        first_with = index % 2 == 0
        for plugin_on in (first_with, not first_with):
            timing = listing(BASE_ARGV if plugin_on else [*BASE_ARGV, "-p", "no:ttsbench"], project, env)
            (with_plugin if plugin_on else without).append(timing)
    return with_plugin, without


def instructions(argv: list[str], project: Path, env: dict[str, str]) -> int:
    """The instructions one child executes, counted by valgrind (no cache simulation: counting only)."""
    counted = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv]
    done = subprocess.run(counted, cwd=project, env={**env, "PYTHONHASHSEED": "0"}, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"valgrind {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def instruction_lines(source: Path, project: Path, without: list[Timing]) -> tuple[float, list[str]]:
    """The load-independent figure: the instructions the plugin adds, and their milliseconds at the
    plugin-off side's fastest rate (its instructions over its least CPU time in the timed rounds)."""
    env = listing_env(source)
    on = instructions(BASE_ARGV, project, env)
    off = instructions([*BASE_ARGV, "-p", "no:ttsbench"], project, env)
    fastest = min(t.cpu for t in without)
    cost_ms = (on - off) / off * fastest * 1000
    return cost_ms, [
        f"instructions  with the plugin {on / 1e6:8.1f} M   -p no:ttsbench {off / 1e6:8.1f} M   "
        f"difference {(on - off) / 1e6:+6.1f} M ({(on - off) / off:+.2%})",
        f"at the plugin-off run's fastest rate ({off / fastest / 1e9:.2f} G instructions per CPU second): "
        f"{cost_ms:+.1f} ms",
    ]


_PLUGIN_CODE = """
import sys, time
import pytest
from _pytest.config.argparsing import Parser
parser = Parser(_ispytest=True)
started = time.process_time()
import pytest_ttsbench.plugin as plugin
plugin.pytest_addoption(parser)
print(time.process_time() - started)
"""


def plugin_code_cpu(rounds: int, source: Path) -> list[float]:
    """CPU seconds of the plugin's own start-up in fresh interpreters: its import and its options
    declared (what a run that is not ours executes of it, less a few hook calls), pytest already loaded.
    Less exposed to a busy machine than the difference of two whole runs."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    found = []
    for _ in range(rounds + 1):
        done = subprocess.run(  # not from this checkout's folder: ``-c`` puts the working folder first on the path
            [sys.executable, "-c", _PLUGIN_CODE], cwd=source.parent, env=env, capture_output=True, text=True, check=True
        )
        found.append(float(done.stdout.strip().splitlines()[-1]))
    return found[1:]  # the first wrote the bytecode


BASE_ARGV = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"]


def report(with_plugin: list[Timing], without: list[Timing]) -> list[str]:
    """The figures, one line each: medians per side, the median difference and the ratio."""
    lines = []
    for name in ("wall", "cpu"):
        on = [getattr(t, name) for t in with_plugin]
        off = [getattr(t, name) for t in without]
        difference = statistics.median(a - b for a, b in zip(on, off, strict=True)) * 1000
        ratio = statistics.median(on) / statistics.median(off)
        lines.append(
            f"{name:<4}  with the plugin {statistics.median(on) * 1000:6.0f} ms   -p no:ttsbench "
            f"{statistics.median(off) * 1000:6.0f} ms   difference {difference:+6.1f} ms   ratio {ratio:.3f}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=21, help="paired listings (default 21)")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout of the package to measure")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each side's instructions under valgrind (load-independent)",
    )
    args = parser.parse_args()
    source = args.source.resolve()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on the PATH")
    with tempfile.TemporaryDirectory(prefix="ttsbench-idle-") as scratch:
        project = unrelated_project(Path(scratch))
        check_plugin_source(project, listing_env(source), source)
        with_plugin, without = paired_rounds(args.rounds, source, project)
        counted = instruction_lines(source, project, without) if args.instructions else None
    print(f"pytest --co -q of an unrelated project, median of {args.rounds} paired rounds ({args.source}):")
    for line in report(with_plugin, without):
        print(line)
    own = plugin_code_cpu(args.rounds, source)
    print(f"the plugin's own import and option declarations: {statistics.median(own) * 1000:.1f} ms CPU (median)")
    wall_difference = statistics.median(a.wall - b.wall for a, b in zip(with_plugin, without, strict=True)) * 1000
    verdict = "within" if wall_difference <= TARGET_MS else "OVER"
    print(f"idle cost {wall_difference:+.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
    if counted is not None:
        cost_ms, lines = counted
        for line in lines:
            print(line)
        verdict = "within" if cost_ms <= TARGET_MS else "OVER"
        print(f"idle cost by instructions {cost_ms:+.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
