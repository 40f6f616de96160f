"""What the quality measures add to the wall time of a real en-numerals run on eSpeak NG.

Run: ``python benchmarks/quality_overhead.py [--rounds 1] [--cores 2] [-k EXPR] [--workers N]``.
Each round runs ``pytest cases/en-numerals.yaml --tts-engine=espeak`` three times in fresh
processes, pinned to the first ``--cores`` CPUs: with no quality measures (the baseline), with
the default ``signal`` set, and with ``dnsmos,signal``. Rounds interleave the three so drifting
load on a shared machine hits each alike; the script prints each run's wall time and CPU time
(user + system of the pytest process and its children: what other jobs on the machine cannot
inflate) and each variant's medians as ratios to the baseline measured in the same run.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {"baseline (none)": "none", "signal": "signal", "dnsmos,signal": "dnsmos,signal"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(quality: str, folder: Path, cores: list[int], extra: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one pytest run."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "cases/en-numerals.yaml",
        "--tts-engine=espeak",
        f"--tts-quality={quality}",
        f"--tts-results={folder / quality.replace(',', '+')}.jsonl",
        "--tts-snapshot=off",
        "-q",
        "-p",
        "no:cacheprovider",
        *extra,
    ]
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.sched_setaffinity(0, cores),
        check=False,
    )
    return time.perf_counter() - started, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("-k", dest="select", help="pytest -k expression (default: every en-numerals item)")
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers (default: none)")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))[: args.cores]
    extra = ["-k", args.select] if args.select else []
    extra += ["-n", str(args.workers)] if args.workers else []
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="ttsbench-quality-bench-") as tmp:
        for round_index in range(args.rounds):
            for name, quality in VARIANTS.items():
                folder = Path(tmp) / f"r{round_index}"
                seconds, used = one_run(quality, folder, cores, extra)
                times[name].append(seconds)
                cpu[name].append(used)
                print(f"round {round_index + 1}: {name:<16} {seconds:7.1f} s wall  {used:7.1f} s CPU", flush=True)
    base = statistics.median(times["baseline (none)"])
    base_cpu = statistics.median(cpu["baseline (none)"])
    print(f"en-numerals on espeak, {len(cores)} core(s), median of {args.rounds} round(s):")
    for name in VARIANTS:
        wall, used = statistics.median(times[name]), statistics.median(cpu[name])
        print(
            f"  {name:<16} wall {wall:7.1f} s  ratio {wall / base:5.2f}   "
            f"CPU {used:7.1f} s  ratio {used / base_cpu:5.2f}"
        )


if __name__ == "__main__":
    main()
