"""What the quality measures add to the wall time of a real en-numerals run on eSpeak NG.

Run: ``python benchmarks/quality_overhead.py [--rounds 1] [--cores 2] [-k EXPR] [--workers N] [--reference]``.
Each round runs ``pytest cases/en-numerals.yaml --tts-engine=espeak --tts-cache=off`` in fresh
processes, pinned to the first ``--cores`` CPUs: with no quality measures (the baseline), with
the default ``signal`` set, with ``dnsmos,signal``, and (``--reference``) with ``dnsmos,signal``
under Microsoft's reference windowing. Rounds interleave the variants so drifting
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
#: name -> the options that choose the measures
VARIANTS = {
    "baseline (none)": ["--tts-quality=none"],
    "signal": ["--tts-quality=signal"],
    "dnsmos,signal": ["--tts-quality=dnsmos,signal"],
    "dnsmos reference": ["--tts-quality=dnsmos,signal", "--tts-dnsmos-windowing=reference"],
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(name: str, folder: Path, cores: list[int], extra: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one pytest run."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "cases/en-numerals.yaml",
        "--tts-engine=espeak",
        *VARIANTS[name],
        f"--tts-results={folder / name.replace(' ', '_').replace(',', '+')}.jsonl",
        "--tts-snapshot=off",
        "--tts-cache=off",  # every variant synthesizes and transcribes afresh, as a first run does
        "-q",
        "-p",
        "no:cacheprovider",
        *extra,
    ]
    started, cpu = time.perf_counter(), _children_cpu()
    finished = subprocess.run(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.sched_setaffinity(0, cores),
        check=False,
    )
    if finished.returncode not in (0, 1):  # 1: the gate's floors, which espeak breaches; anything else broke
        raise SystemExit(f"the {name} run stopped with status {finished.returncode}: {command}")
    return time.perf_counter() - started, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("-k", dest="select", help="pytest -k expression (default: every en-numerals item)")
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers (default: none)")
    parser.add_argument("--reference", action="store_true", help="also time DNSMOS's reference windowing")
    args = parser.parse_args()
    variants = [name for name in VARIANTS if args.reference or name != "dnsmos reference"]
    cores = sorted(os.sched_getaffinity(0))[: args.cores]
    extra = ["-k", args.select] if args.select else []
    extra += ["-n", str(args.workers)] if args.workers else []
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory(prefix="ttsbench-quality-bench-") as tmp:
        for round_index in range(args.rounds):
            for name in variants:
                folder = Path(tmp) / f"r{round_index}"
                seconds, used = one_run(name, folder, cores, extra)
                times[name].append(seconds)
                cpu[name].append(used)
                print(f"round {round_index + 1}: {name:<17} {seconds:7.1f} s wall  {used:7.1f} s CPU", flush=True)
    base = statistics.median(times["baseline (none)"])
    base_cpu = statistics.median(cpu["baseline (none)"])
    print(f"en-numerals on espeak, {len(cores)} core(s), median of {args.rounds} round(s):")
    for name in variants:
        wall, used = statistics.median(times[name]), statistics.median(cpu[name])
        print(
            f"  {name:<17} wall {wall:7.1f} s  ratio {wall / base:5.2f}   "
            f"CPU {used:7.1f} s  ratio {used / base_cpu:5.2f}"
        )


if __name__ == "__main__":
    main()
