"""What the installed plugin costs a project that does not use it: ``pytest --co`` with it against without it.

Run: ``python benchmarks/idle_cost.py [--rounds 31] [--no-instructions] [--source DIR]``.

An unrelated project (a few test modules, a conftest and a pyproject.toml with pytest's settings, no
configuration of ours) is listed with ``pytest --co -q`` in fresh interpreters, five ways each
round, each round in an order of its own (a seeded shuffle: a fixed or rotated order would put two
sides next to each other in every round, and the drift between consecutive listings would read as
a difference between them):

- in the project's own environment (every installed plugin autoloaded, as its ``pytest`` runs):
  with the plugin, with ``-p no:ttsbench``, and with ``-p no:ttsbench`` again. The third side is
  the control: the same command as the second, so its difference is what the machine's noise
  alone gives in this run;
- the plugin alone, on a bare pytest (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``): with
  ``-p pytest_ttsbench.plugin`` against ``-p`` of an empty plugin module (a plugin named with ``-p``
  there makes pytest search every distribution's entry points first: both sides pay that). The
  same plugin code runs; the listing is shorter, so the noise is smaller.

For each pair it prints the sides' medians, the median of the rounds' differences in milliseconds
with a 95 % interval (order statistics: no assumption about the noise's shape) and the ratio of the
medians (target: at most 20 ms more than pytest alone, #38). A timed interval is "within" only when
all of it is under the target, "OVER" only when all of it is above, and otherwise "undecided".
``--source`` measures another checkout of the package (put first on ``PYTHONPATH``), e.g. the code
before a change; before timing, a probe run checks that the plugin pytest loads through the
installed entry point is that checkout's.

A virtual machine shared with others moves a listing's time by tens of milliseconds from one run to
the next, more than the cost measured, so the timed intervals can need hundreds of rounds to
settle. Where valgrind is installed (``--no-instructions`` to skip) the script also counts the
instructions each side of the first pair executes, once each under ``valgrind --tool=cachegrind``
with a fixed hash seed: the count repeats to a few instructions whatever the load, and is turned
into milliseconds at the plugin-off side's median rate (its instructions over its median CPU time
in the timed rounds). The one verdict is "OVER" when any measure is over the target for certain,
"within" when the instruction count or a timed interval is within it, else "undecided".
"""

from __future__ import annotations

import argparse
import math
import os
import random
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


@dataclass(frozen=True)
class Rounds:
    """Interleaved listings of one project.

    In the project's own environment (every installed plugin loaded, as its ``pytest`` runs): with
    the plugin, with ``-p no:ttsbench``, and with ``-p no:ttsbench`` again (the control: the same
    command twice, so the difference between the two plugin-off sides is this machine's noise,
    measured in the same run). And the plugin alone, on a bare pytest (plugin autoloading off,
    ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``): with ``-p pytest_ttsbench.plugin`` against ``-p`` of an
    empty plugin module. The same
    plugin code runs in both pairs; the bare listing takes half the time, and a machine's noise
    grows with the time measured, so its interval is narrower."""

    with_plugin: list[Timing]
    without: list[Timing]
    control: list[Timing]
    alone_with: list[Timing]
    alone_without: list[Timing]


def interleaved_rounds(rounds: int, source: Path, project: Path) -> Rounds:
    """``rounds`` rounds of the five listings, each round in a random order (seeded)."""
    env = listing_env(source)
    # An empty plugin module for the bare baseline: a plugin named with -p on a bare pytest makes pytest
    # look it up among every distribution's entry points first, so both bare sides name one.
    empty = project / ".plugins"  # outside testpaths, and a dot folder pytest never walks
    empty.mkdir(exist_ok=True)
    (empty / "empty_plugin.py").write_text('"""A pytest plugin that does nothing."""\n', encoding="utf-8")
    bare = {
        **env,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONPATH": os.pathsep.join([str(empty), env["PYTHONPATH"]]),
    }
    plugin_off = [*BASE_ARGV, "-p", "no:ttsbench"]
    sides = {
        "with_plugin": (BASE_ARGV, env),
        "without": (plugin_off, env),
        "control": (plugin_off, env),
        "alone_with": ([*BASE_ARGV, "-p", "pytest_ttsbench.plugin"], bare),
        "alone_without": ([*BASE_ARGV, "-p", "empty_plugin"], bare),
    }
    for argv, side_env in sides.values():  # bytecode written, files in the page cache: not measured
        listing(argv, project, side_env)
    found: dict[str, list[Timing]] = {name: [] for name in sides}
    names = list(sides)
    order = random.Random(0)  # the same orders every time the script runs
    for _ in range(rounds):
        # Each round in an order of its own: listings run one after another are alike (caches warm,
        # the machine's load drifting), and a fixed or rotated order would put two sides next to each
        # other in every round, so that drift would read as a difference between them.
        order.shuffle(names)
        for name in names:
            argv, side_env = sides[name]
            found[name].append(listing(argv, project, side_env))
    return Rounds(**found)


def measure_idle(rounds: int, source: Path) -> Rounds:
    """The rounds over a fresh unrelated project, after checking that pytest loads ``source``'s plugin."""
    with tempfile.TemporaryDirectory(prefix="ttsbench-idle-") as scratch:
        project = unrelated_project(Path(scratch))
        check_plugin_source(project, listing_env(source), source)
        return interleaved_rounds(rounds, source, project)


def median_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """A distribution-free interval for the median of ``values`` (order statistics: the k-th
    smallest and k-th largest value, k the largest for which a fair coin's chance of fewer than k
    heads in n tosses is at most half of 1 - confidence). No assumption about the noise's shape."""
    ordered = sorted(values)
    n = len(ordered)
    tail = (1 - confidence) / 2
    k, below = 0, 0.0  # below: the chance of fewer than k + 1 heads
    while True:
        below += math.comb(n, k) / 2**n
        if below > tail:
            break
        k += 1
    if k == 0:
        raise ValueError(f"{n} rounds are too few for a {confidence:.0%} interval of the median")
    return ordered[k - 1], ordered[n - k]


def timed_verdict(low_ms: float, high_ms: float) -> str:
    """Within the target only when the whole interval is; over it only when the whole interval is."""
    if high_ms <= TARGET_MS:
        return "within"
    if low_ms > TARGET_MS:
        return "OVER"
    return "undecided"


def idle_verdict(timed: list[str], by_instructions_ms: float | None) -> str:
    """The one verdict: over when any measure is over the target for certain (a timed interval
    wholly above it is a cost the instructions miss, such as waiting on the disk); else within when
    the instruction count (which the load does not move) or any timed interval is within it; else
    undecided."""
    if "OVER" in timed or (by_instructions_ms is not None and by_instructions_ms > TARGET_MS):
        return "OVER"
    if by_instructions_ms is not None or "within" in timed:
        return "within"
    return "undecided"


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
    plugin-off side's median rate (its instructions over its median CPU time in the timed rounds: a
    busier round's slower rate would make the cost look larger, never smaller, than the fastest's)."""
    env = listing_env(source)
    on = instructions(BASE_ARGV, project, env)
    off = instructions([*BASE_ARGV, "-p", "no:ttsbench"], project, env)
    typical = statistics.median(t.cpu for t in without)
    cost_ms = (on - off) / off * typical * 1000
    return cost_ms, [
        f"instructions  with the plugin {on / 1e6:8.1f} M   -p no:ttsbench {off / 1e6:8.1f} M   "
        f"difference {(on - off) / 1e6:+6.1f} M ({(on - off) / off:+.2%})",
        f"at the plugin-off side's median rate ({off / typical / 1e9:.2f} G instructions per CPU second): "
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


def difference_line(label: str, on: list[float], off: list[float]) -> tuple[tuple[float, float], str]:
    """The interval of the median difference, and its line: each side's median, the median of the
    rounds' differences with its 95 % interval, and the ratio of the medians (milliseconds in)."""
    differences = [a - b for a, b in zip(on, off, strict=True)]
    low, high = median_interval(differences)
    return (low, high), (
        f"{label:<37} {statistics.median(on):6.0f} ms against {statistics.median(off):6.0f} ms   "
        f"difference {statistics.median(differences):+6.1f} ms (95 % {low:+.1f} to {high:+.1f})   "
        f"ratio {statistics.median(on) / statistics.median(off):.3f}"
    )


def report(rounds: Rounds) -> tuple[dict[str, tuple[float, float]], list[str]]:
    """The wall intervals of the cost (in the project's environment, and of the plugin alone), and
    the figures, one line each, wall and CPU: with the plugin against without, the control (without,
    twice) and the plugin alone."""
    intervals, lines = {}, []
    for name in ("wall", "cpu"):
        side = {
            field: [getattr(t, name) * 1000 for t in getattr(rounds, field)] for field in Rounds.__dataclass_fields__
        }
        lines.append(f"{name}:")
        intervals[f"{name} environment"], line = difference_line(
            "  with the plugin, -p no:ttsbench", side["with_plugin"], side["without"]
        )
        lines.append(line)
        lines.append(
            difference_line("  control: -p no:ttsbench twice", side["control"], side["without"])[1]
            + "   (the noise alone)"
        )
        intervals[f"{name} alone"], line = difference_line(
            "  the plugin alone (bare pytest)", side["alone_with"], side["alone_without"]
        )
        lines.append(line)
    return {
        "in the project's environment": intervals["wall environment"],
        "the plugin alone": intervals["wall alone"],
    }, lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=31, help="rounds of the three listings (default 31)")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout of the package to measure")
    parser.add_argument(
        "--instructions",
        action=argparse.BooleanOptionalAction,
        default=shutil.which("valgrind") is not None,
        help="also count each side's instructions under valgrind (load-independent; on when valgrind is found)",
    )
    args = parser.parse_args()
    source = args.source.resolve()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on the PATH")
    if args.rounds < 9:
        parser.error("--rounds: at least 9, for a 95 % interval of the median")
    with tempfile.TemporaryDirectory(prefix="ttsbench-idle-") as scratch:
        project = unrelated_project(Path(scratch))
        check_plugin_source(project, listing_env(source), source)
        rounds = interleaved_rounds(args.rounds, source, project)
        counted = instruction_lines(source, project, rounds.without) if args.instructions else None
    print(f"pytest --co -q of an unrelated project, medians of {args.rounds} interleaved rounds ({args.source}):")
    intervals, lines = report(rounds)
    for line in lines:
        print(line)
    own = plugin_code_cpu(args.rounds, source)
    print(f"the plugin's own import and option declarations: {statistics.median(own) * 1000:.1f} ms CPU (median)")
    timed = []
    for label, (low, high) in intervals.items():
        timed.append(timed_verdict(low, high))
        wider = " (the noise is wider than the target: more --rounds narrow it)" if timed[-1] == "undecided" else ""
        print(f"idle cost (wall), {label}: {low:+.1f} to {high:+.1f} ms (95 %): {timed[-1]}{wider}")
    cost_ms = None
    if counted is not None:
        cost_ms, lines = counted
        for line in lines:
            print(line)
    verdict = idle_verdict(timed, cost_ms)
    print(f"idle cost: {verdict} {'against' if verdict == 'undecided' else 'the'} {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
