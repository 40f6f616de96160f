"""What the installed plugin costs a project that does not use it: ``pytest --co`` with it against without it.

Run: ``python benchmarks/idle_cost.py [--rounds 21] [--source DIR]``.

An unrelated project (a few test modules, a conftest and a pyproject.toml with pytest's settings, no
configuration of ours) is listed with ``pytest --co -q`` in a fresh interpreter, with the plugin
and with ``-p no:ttsbench``, the two taken in turn in each round and in alternating order, so a
change in the machine's load hits both sides of a round. It prints the median wall and CPU time of
each side, the median of the rounds' differences in milliseconds and the ratio of the medians
(target: at most 20 ms more than pytest alone, #38). ``--source`` measures another checkout of the
package (put first on ``PYTHONPATH``), e.g. the code before a change.
"""

from __future__ import annotations

import argparse
import os
import resource
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


def paired_rounds(rounds: int, source: Path) -> tuple[list[Timing], list[Timing]]:
    """``rounds`` pairs of listings of an unrelated project: (with the plugin, with ``-p no:ttsbench``)."""
    env = dict(os.environ)
    # Measured as an installed package runs: with its bytecode cached (some sandboxes turn that off).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    base = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"]
    with tempfile.TemporaryDirectory(prefix="ttsbench-idle-") as scratch:
        project = unrelated_project(Path(scratch))
        listing(base, project, env)  # bytecode written, files in the page cache: not measured
        listing([*base, "-p", "no:ttsbench"], project, env)
        with_plugin, without = [], []
        for index in range(rounds):
            first_with = index % 2 == 0
            for plugin_on in (first_with, not first_with):
                timing = listing(base if plugin_on else [*base, "-p", "no:ttsbench"], project, env)
                (with_plugin if plugin_on else without).append(timing)
    return with_plugin, without


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
    args = parser.parse_args()
    with_plugin, without = paired_rounds(args.rounds, args.source.resolve())
    print(f"pytest --co -q of an unrelated project, median of {args.rounds} paired rounds ({args.source}):")
    for line in report(with_plugin, without):
        print(line)
    own = plugin_code_cpu(args.rounds, args.source.resolve())
    print(f"the plugin's own import and option declarations: {statistics.median(own) * 1000:.1f} ms CPU (median)")
    wall_difference = statistics.median(a.wall - b.wall for a, b in zip(with_plugin, without, strict=True)) * 1000
    verdict = "within" if wall_difference <= TARGET_MS else "OVER"
    print(f"idle cost {wall_difference:+.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
