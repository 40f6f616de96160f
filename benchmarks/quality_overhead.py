"""What the quality measures add to the wall time of the README's main job on eSpeak NG.

Run: ``python benchmarks/quality_overhead.py [--rounds 1] [--cores 2] [--workers N] [--reference]``.

Each round runs the main job (``pytest --tts-engine=espeak -k numerals``: the 51 en-numerals
items, real eSpeak NG and Whisper) in a fresh project with a fresh cache, in fresh processes
pinned to the first ``--cores`` CPUs: with no quality measures (the baseline), with the default
``signal`` set, with ``dnsmos,signal``, and (``--reference``) with ``dnsmos,signal`` under
Microsoft's reference windowing. Rounds interleave the variants so drifting load on a shared
machine hits each alike. It prints each run's wall time and CPU time (user + system of the
pytest process and its children: what other jobs on the machine cannot inflate), each variant's
medians as ratios to ``signal`` measured in the same run (the issue's target: ``dnsmos,signal``
under 1.3 × ``signal``, cold), and last a warm rerun of the ``dnsmos,signal`` job over its own
cache: how many figures it measured again (target 0) and whether it loaded onnxruntime at all.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
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
#: ``--workers-compared``: dnsmos,signal on the other kinds of quality worker (quality/worker.py; the
#: ``dnsmos,signal`` variant runs the default: one thread at the tests' own priority)
WORKER_VARIANTS = {
    "dnsmos thread nice": {"TTSBENCH_QUALITY_WORKER": "thread", "TTSBENCH_QUALITY_NICE": "10"},
    "dnsmos process": {"TTSBENCH_QUALITY_WORKER": "process", "TTSBENCH_QUALITY_NICE": "0"},
}
MAIN_JOB = ["--tts-engine=espeak", "-k", "numerals", "--tts-snapshot=off", "-q", "-p", "no:cacheprovider"]

# pytest in-process, then a line saying whether the run imported onnxruntime (a warm rerun whose
# figures all come from the cache should not) and how long its tests waited for figures still
# being computed (quality/worker.py: the measures' share of the critical path).
_REPORTING_PYTEST = """
import json, os, sys
import pytest
code = pytest.main(sys.argv[1:])
worker = sys.modules.get("pytest_ttsbench.quality.worker")
waited = worker.WAITING.seconds if worker is not None else 0.0
with open(os.environ["BENCH_OUT"], "w") as out:
    json.dump({"code": int(code), "onnxruntime": "onnxruntime" in sys.modules, "waited": waited}, out)
sys.exit(int(code))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(
    options: list[str],
    project: Path,
    cache: Path,
    name: str,
    cores: list[int],
    extra: list[str],
    variables: dict[str, str] | None = None,
) -> dict:
    """Wall and CPU seconds of one main-job run, its rows, and whether it imported onnxruntime."""
    report = project / f"{name}.report.json"
    results = project / name / "results.jsonl"
    command = [
        sys.executable,
        "-c",
        _REPORTING_PYTEST,
        *MAIN_JOB,
        *options,
        f"--tts-results={results}",
        f"--tts-cache-dir={cache}",
        *extra,
    ]
    started, cpu = time.perf_counter(), _children_cpu()
    finished = subprocess.run(
        command,
        cwd=project,
        env={**os.environ, **(variables or {}), "BENCH_OUT": str(report)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.sched_setaffinity(0, cores),
        check=False,
    )
    wall, used = time.perf_counter() - started, _children_cpu() - cpu
    if finished.returncode not in (0, 1):  # 1: the gate's floors, which espeak breaches; anything else broke
        raise SystemExit(f"the {name} run stopped with status {finished.returncode}: {command}")
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
    reported = json.loads(report.read_text(encoding="utf-8"))
    return {
        "wall": wall,
        "cpu": used,
        "rows": rows,
        "onnxruntime": reported["onnxruntime"],
        "waited": reported["waited"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers (default: none)")
    parser.add_argument("--reference", action="store_true", help="also time DNSMOS's reference windowing")
    parser.add_argument("--no-baseline", action="store_true", help="leave out the run without measures")
    parser.add_argument(
        "--workers-compared", action="store_true", help="also time dnsmos,signal on each kind of quality worker"
    )
    args = parser.parse_args()
    variants = [
        name
        for name in VARIANTS
        if (args.reference or name != "dnsmos reference") and not (args.no_baseline and name == "baseline (none)")
    ]
    if args.workers_compared:
        variants += list(WORKER_VARIANTS)
    cores = sorted(os.sched_getaffinity(0))[: args.cores]
    extra = ["-n", str(args.workers)] if args.workers else []
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    waited: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory(prefix="ttsbench-quality-bench-") as tmp:
        project = Path(tmp)
        shutil.copy(ROOT / "ttsbench.yaml", project / "ttsbench.yaml")
        # Listed once, untimed: bytecode compiled, so the first run pays for nothing the others do not.
        subprocess.run([sys.executable, "-m", "pytest", *MAIN_JOB, "--co"], cwd=project, capture_output=True)
        for round_index in range(args.rounds):
            for name in variants:
                slug = f"r{round_index}-{name.replace(' ', '_').replace(',', '+')}"
                options = VARIANTS.get(name, VARIANTS["dnsmos,signal"])
                cache = project / f"{slug}-cache"
                run = one_run(options, project, cache, slug, cores, extra, WORKER_VARIANTS.get(name))
                times[name].append(run["wall"])
                cpu[name].append(run["cpu"])
                waited[name].append(run["waited"])
                print(
                    f"round {round_index + 1}: {name:<19} {run['wall']:7.1f} s wall  {run['cpu']:7.1f} s CPU  "
                    f"{run['waited']:5.1f} s waiting for figures",
                    flush=True,
                )
        # The warm rerun: the last round's dnsmos,signal job again, over the cache it filled.
        slug = f"r{args.rounds - 1}-dnsmos+signal"
        warm = one_run(VARIANTS["dnsmos,signal"], project, project / f"{slug}-cache", "warm", cores, extra)
    signal, signal_cpu = statistics.median(times["signal"]), statistics.median(cpu["signal"])
    print(f"main job (-k numerals) on espeak, {len(cores)} core(s), cold, median of {args.rounds} round(s):")
    for name in variants:
        wall, used = statistics.median(times[name]), statistics.median(cpu[name])
        print(
            f"  {name:<19} wall {wall:7.1f} s  ratio {wall / signal:5.2f} × signal   "
            f"CPU {used:7.1f} s  ratio {used / signal_cpu:5.2f}   "
            f"tests waited {statistics.median(waited[name]):5.1f} s for figures"
        )
    measured = sum(row.get("cache", {}).get("quality") != "hit" for row in warm["rows"])
    print(
        f"  warm dnsmos,signal wall {warm['wall']:7.1f} s  figures measured again: {measured} of "
        f"{len(warm['rows'])} rows; onnxruntime imported: {'yes' if warm['onnxruntime'] else 'no'}"
    )


if __name__ == "__main__":
    main()
