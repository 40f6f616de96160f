"""Throughput of a benchmark run, as ratios against baselines measured in the same run.

Run: ``python benchmarks/throughput.py [--items 200] [--latency 0.25] [--concurrency 4]
[--batch-size 16] [--parts runs,collect,idle,mainjob,startup]``.

It makes N clips with eSpeak NG once (not timed), serves them from a local OpenAI-style HTTP
server (``tests/fakes/tts_providers.py``) that waits a fixed latency before every reply, and
runs ``pytest --tts-engine=bench`` over N numeral items in a fresh project, transcribed by
Whisper ``tiny.en`` (beam 5). It prints:

* cold run ÷ ideal, the ideal being max(N × latency ÷ concurrency, pure ASR time), where pure
  ASR time is a plain faster-whisper loop over the same clips with the plugin's decoding settings
  (model, beam, temperature, token budget from each clip's duration, early stop) (target ≤ 1.2);
* warm rerun (everything cached) ÷ cold run (target < 5 %);
* a run with the audio cached but not the transcripts ÷ the plain loop: the plugin's overhead
  (target ≤ 1.05);
* batched against sequential transcription of the same clips (``--batch-size``, default 16): the
  plain loop both ways (wall and memory), and the audio-cached plugin run both ways, with how
  many verdicts agree;
* collecting 10,000 items (``pytest --co``), the first time and again (parsed case files reused),
  in seconds and ÷ the CPU time of an empty ``pytest --co`` (target < 3 s);
* the idle cost: ``pytest --co`` of an unrelated project with the plugin minus with ``-p no:ttsbench``
  (benchmarks/idle_cost.py's rounds: a 95 % interval of the median difference; target ≤ 20 ms);
* peak memory: the cold run's and the plain loop's (models plus a constant), and the warm
  rerun's at N and at N/4 (flat in N);
* ``mainjob``: the README's main job (``pytest --tts-engine=espeak -k numerals``, 51 items, real
  eSpeak NG and Whisper) in a project holding the repository's configuration, measured twice: with
  only the pytest plugins the README's set-up command installs (pytest-ttsbench's own
  requirements, ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` and ``-p`` for each), and with every pytest
  plugin this machine has (hypothesis, pytest-benchmark, ... start with every pytest here). Each
  time cold (in the README's environment the median of five, each beside a cold run with
  ``dnsmos,signal``, the two taken in turn and in alternating order), then warm (the median of
  three; target < 5 %), against pytest started with the plugin off in a project holding only the
  configuration (the median of three); then, in the README's environment, each fixed cost of the
  warm rerun by name (from a profile of one more warm rerun: plugin import, configuration,
  collection, building the pipeline, the items with their cache reads, clip decoding and scoring,
  the rows written, the gate and its quality summaries, the terminal summary, the session's close,
  garbage collection), what a warm rerun must never start (Whisper models loaded, eSpeak NG
  initialized: counted), and with ``dnsmos,signal`` cold and warm against ``signal`` (the warm one
  reuses every figure). The DNSMOS figure (target < 1.3) is the median of the five rounds' ratios:
  each round's two runs are neighbours in time, so a change in the machine's load between rounds
  hits both sides of that round's ratio;
* ``startup``: ``pytest --co --tts-engine=espeak`` over a one-item project against the same with
  ``-p no:ttsbench`` (wall and CPU, median of several; target within 0.3 s);
* ``batching``: the main job (51 items) cold in the default mode (clips of several items decoded
  together, asr/batching.py) against a plain sequential faster-whisper loop over the same clips
  (target ≤ 0.9), then the same clips transcribed (audio cached) across items against
  sequentially, and every verdict that differs between the two. On CUDA (when CTranslate2 sees a
  device) every figure is taken there, float16, with the same code.

Every figure is a child process measured from here, so a busy machine slows both sides of a ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))

KEY_ENV = "TTSBENCH_BENCH_KEY"

# A child that runs a command in-process and reports its own peak memory (ru_maxrss is per process).
# ``python -c _MEASURED module|script.py ARGS...``
_MEASURED = """
import json, os, resource, runpy, sys, time
started = time.perf_counter()
target, sys.argv = sys.argv[1], sys.argv[1:]
try:
    if target.endswith(".py"):
        runpy.run_path(target, run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump({"wall": time.perf_counter() - started, "cpu": usage.ru_utime + usage.ru_stime,
                   "peak_mb": usage.ru_maxrss / 1024}, out)
"""

_PLAIN_LOOP = """
import sys
from pathlib import Path
from faster_whisper import BatchedInferencePipeline, WhisperModel, decode_audio
from faster_whisper.tokenizer import Tokenizer
from pytest_ttsbench.asr.models import resolve_model
from pytest_ttsbench.asr.whisper import (clip_token_budget, clip_windows, decoder_max_new_tokens, read_bounded,
                                         window_token_budget)
# The plugin's decoding settings, so the loop is the ideal the plugin is held to, not a different
# decode: tiny.en, beam 5, temperature 0 only, no "no speech" drop, no VAD, the same per-window
# token budget from the clip's duration and the same early stop on loops and spent budgets; and
# the same one BLAS thread (support/blas_threads.py).
batch_size = int(sys.argv[2]) if len(sys.argv) > 2 else 1
model = WhisperModel(str(resolve_model("tiny.en")), device="cpu", compute_type="int8")
batched = BatchedInferencePipeline(model)
from pytest_ttsbench.support.blas_threads import limit_blas_threads
limit_blas_threads()  # as the plugin's process does: the loop is not charged for OpenBLAS's spinning
timestamp_begin = model.hf_tokenizer.token_to_id("<|notimestamps|>") + 1
prompt = len(Tokenizer(model.hf_tokenizer, model.model.is_multilingual, "transcribe", "en").sot_sequence) + 1
for path in sorted(Path(sys.argv[1]).glob("*.wav")):
    samples = decode_audio(str(path), sampling_rate=16000)
    seconds = samples.size / 16000
    budget = window_token_budget(seconds)
    settings = dict(language="en", beam_size=5, temperature=[0.0], no_speech_threshold=None,
                    condition_on_previous_text=False, vad_filter=False)
    if batch_size > 1:
        segments, _ = batched.transcribe(samples, batch_size=batch_size, clip_timestamps=clip_windows(seconds),
                                         max_new_tokens=decoder_max_new_tokens(budget) - prompt, **settings)
    else:
        segments, _ = model.transcribe(samples, max_new_tokens=decoder_max_new_tokens(budget), **settings)
    reading = read_bounded(segments, seconds, budget, clip_token_budget(seconds), timestamp_begin)
    text = "".join(s.text for s in reading.segments)
"""


# A child that runs a module under cProfile in every thread (clips come from the cache on the
# engines' pool threads), all threads' figures in one stats file.
# ``python -c _PROFILED OUT.prof module ARGS...``
_PROFILED = """
import cProfile, pstats, runpy, sys, threading
out, target, sys.argv = sys.argv[1], sys.argv[2], sys.argv[2:]
threads = []
def profile_thread(frame, event, arg):
    sys.setprofile(None)
    threads.append(cProfile.Profile())
    threads[-1].enable()
threading.setprofile(profile_thread)
main = cProfile.Profile()
main.enable()
try:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    main.disable()
    stats = pstats.Stats(main)
    for other in threads:
        stats.add(other)
    stats.dump_stats(out)
"""


def measure(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Run a module or script (``argv[0]``) with its arguments in a child: its wall, CPU and peak memory."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as out:
        report = Path(out.name)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *argv],
        cwd=cwd,
        env={**env, "BENCH_OUT": str(report)},
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    figures = json.loads(report.read_text() or "{}")
    report.unlink()
    if not figures:
        raise RuntimeError(f"{argv} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    figures["wall_outside"] = wall
    return figures


def texts(count: int) -> list[str]:
    return [f"Order {n + 1} came to {(n * 37 + 113) % 9000 + 100} dollars." for n in range(count)]


def case_file(count: int, suite: str = "bench") -> str:
    lines = [f"suite: {suite}", "language: en", "scorer: numbers", "items:"]
    for n, text in enumerate(texts(count)):
        value = text.split(" came to ")[1].split(" ")[0]
        lines.append(f'  - {{id: i{n:05d}, category: totals, text: "{text}", expect: {{values: ["{value}"]}}}}')
    return "\n".join(lines) + "\n"


def make_clips(count: int, folder: Path) -> dict[str, bytes]:
    from pytest_ttsbench.config import EngineProfile
    from pytest_ttsbench.engines.base import SynthesisRequest
    from pytest_ttsbench.engines.registry import create_engine

    espeak = create_engine(EngineProfile(name="espeak", type="espeak", voice="en-us"))
    folder.mkdir(parents=True)
    clips = {}
    for n, text in enumerate(texts(count)):
        audio = espeak.synthesize(SynthesisRequest(text=text, language="en")).audio
        clips[text] = audio
        (folder / f"{n:05d}.wav").write_bytes(audio)
    espeak.close()
    return clips


def write_project(folder: Path, url: str, count: int, concurrency: int) -> None:
    (folder / "cases").mkdir(parents=True)
    (folder / "cases" / "bench.yaml").write_text(case_file(count), encoding="utf-8")
    config = f"""\
        asr: {{model: tiny.en, beam_size: 5}}
        engines:
          bench:
            type: openai
            base_url: {url}/v1
            model: tts-1
            voice: alloy
            api_key_env: {KEY_ENV}
            response_format: wav
            concurrency: {concurrency}
        """
    (folder / "ttsbench.yaml").write_text(textwrap.dedent(config), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.25, help="seconds the server waits per request")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=16, help="windows per batch in the batched ASR figures")
    parser.add_argument("--collect-items", type=int, default=10_000)
    parser.add_argument("--idle-rounds", type=int, default=9)
    parser.add_argument("--startup-rounds", type=int, default=7)
    parser.add_argument(
        "--parts",
        default="runs,collect,idle,mainjob,startup,batching",
        help="which figures: runs, collect, idle, mainjob, startup, batching (comma-separated)",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    env = dict(os.environ)
    env[KEY_ENV] = "bench-key"
    # Measured as an installed package runs: Python caches bytecode (some sandboxes turn that off,
    # which makes every process compile every module again and hides what the plugin costs).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="ttsbench-throughput-") as scratch:
        work = Path(scratch)
        if "runs" in parts:
            rows += runs(args, env, work)
        if "collect" in parts:
            rows += collection(args, env, work)
        if "mainjob" in parts:
            rows += main_job(env, work)
        if "startup" in parts:
            rows += startup(env, work, args.startup_rounds)
        if "batching" in parts:
            rows += batching(env, work)
    if "idle" in parts:  # benchmarks/idle_cost.py's figure, on the same machine in the same run
        from idle_cost import TARGET_MS, measure_idle, median_interval

        idle = measure_idle(args.idle_rounds, ROOT)
        low, high = median_interval(
            [(a.wall - b.wall) * 1000 for a, b in zip(idle.with_plugin, idle.without, strict=True)]
        )
        ratio = statistics.median(t.wall for t in idle.with_plugin) / statistics.median(t.wall for t in idle.without)
        rows.append(
            (
                "idle cost (wall)",
                f"{low:+.0f} to {high:+.0f} ms (95 %)",
                f"{ratio:.3f} × pytest alone (≤ {TARGET_MS:.0f} ms)",
            )
        )
    width = max(len(name) for name, _, _ in rows)
    for name, figure, ratio in rows:
        print(f"{name:<{width}}  {figure:<34}  {ratio}")


def runs(args: argparse.Namespace, env: dict[str, str], work: Path) -> list[tuple[str, str, str]]:
    """Cold, warm and audio-only runs against the plain faster-whisper loop over the same clips."""
    from tts_providers import FakeOpenAI

    clips = make_clips(args.items, work / "clips")
    server = FakeOpenAI(key="bench-key", speak=lambda text: clips[text]).start()
    server.first_byte_delay_s = args.latency
    try:
        project = work / "project"
        write_project(project, server.url, args.items, args.concurrency)
        run = ["pytest", "--tts-engine=bench", "-q", "-p", "no:cacheprovider", "--tts-progress=0"]
        loop_script = work / "plain_loop.py"
        loop_script.write_text(_PLAIN_LOOP, encoding="utf-8")
        # Once untimed (an empty folder: the model is found and loaded, nothing transcribed), so
        # no timed run pays for locating the model or for a cold disk cache.
        subprocess.run([sys.executable, str(loop_script), str(work)], env=env, check=True, capture_output=True)
        plain = measure([str(loop_script), str(work / "clips")], work, env)
        plain_batched = measure([str(loop_script), str(work / "clips"), str(args.batch_size)], work, env)
        cold = measure([*run, "--tts-results=cold/results.jsonl"], project, env)
        requests_cold = len(server.requests)
        warm = measure([*run, "--tts-results=warm/results.jsonl"], project, env)
        requests_warm = len(server.requests) - requests_cold
        # Audio cached, transcripts not: a fresh cache holding only the clips.
        shutil.copytree(project / ".ttsbench" / "cache" / "audio", project / "audio-only" / "audio")
        asr_only = measure([*run, "--tts-cache-dir=audio-only", "--tts-results=asr-only/results.jsonl"], project, env)
        # The same, batched (a fresh copy of the audio-only cache: no transcript may be reused).
        shutil.copytree(project / ".ttsbench" / "cache" / "audio", project / "audio-only-b" / "audio")
        asr_batched = measure(
            [
                *run,
                "--tts-cache-dir=audio-only-b",
                f"--tts-asr-batch-size={args.batch_size}",
                "--tts-results=asr-batched/results.jsonl",
            ],
            project,
            env,
        )
        verdicts = [_verdicts(project / name / "results.jsonl") for name in ("asr-only", "asr-batched")]
        quarter = project / "quarter"
        write_project(quarter, server.url, max(1, args.items // 4), args.concurrency)
        shutil.copytree(project / ".ttsbench" / "cache", quarter / ".ttsbench" / "cache")
        warm_quarter = measure([*run, "--tts-results=warm/results.jsonl"], quarter, env)
    finally:
        server.stop()
    ideal = max(args.items * args.latency / args.concurrency, plain["wall"])
    return [
        ("items", f"{args.items} (latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency})", ""),
        ("plain faster-whisper loop", f"{plain['wall']:.1f} s ({plain['cpu']:.1f} s CPU)", "pure ASR time"),
        ("ideal max(N×latency÷conc, ASR)", f"{ideal:.1f} s", ""),
        (
            "cold run",
            f"{cold['wall']:.1f} s ({requests_cold} requests)",
            f"{cold['wall'] / ideal:.2f} × ideal (≤ 1.2)",
        ),
        (
            "warm rerun",
            f"{warm['wall']:.1f} s ({requests_warm} requests)",
            f"{warm['wall'] / cold['wall']:.1%} of cold (< 5%)",
        ),
        (
            "audio cached, ASR run",
            f"{asr_only['wall']:.1f} s ({asr_only['cpu']:.1f} s CPU)",
            f"{asr_only['wall'] / plain['wall']:.2f} × plain loop wall, "
            f"{asr_only['cpu'] / plain['cpu']:.2f} × CPU (≤ 1.05)",
        ),
        (
            f"plain loop, batched ({args.batch_size})",
            f"{plain_batched['wall']:.1f} s ({plain_batched['cpu']:.1f} s CPU), {plain_batched['peak_mb']:.0f} MB",
            f"{plain_batched['wall'] / plain['wall']:.2f} × sequential wall, "
            f"{plain_batched['peak_mb'] / plain['peak_mb']:.2f} × its memory",
        ),
        (
            f"audio cached, ASR run batched ({args.batch_size})",
            f"{asr_batched['wall']:.1f} s ({asr_batched['cpu']:.1f} s CPU), {asr_batched['peak_mb']:.0f} MB",
            f"{asr_batched['wall'] / asr_only['wall']:.2f} × sequential run wall; "
            f"{sum(a == b for a, b in zip(*verdicts, strict=True))}/{len(verdicts[0])} verdicts the same",
        ),
        (
            "peak memory, cold run",
            f"{cold['peak_mb']:.0f} MB",
            f"plain loop {plain['peak_mb']:.0f} MB: +{cold['peak_mb'] - plain['peak_mb']:.0f} MB",
        ),
        (
            "peak memory, warm N vs N/4",
            f"{warm['peak_mb']:.0f} MB vs {warm_quarter['peak_mb']:.0f} MB",
            f"{warm['peak_mb'] / warm_quarter['peak_mb']:.2f} × (flat in N: about 1)",
        ),
    ]


def _verdicts(results: Path) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    return sorted((row["id"], row["verdict"]) for row in rows)


def collection(args: argparse.Namespace, env: dict[str, str], work: Path) -> list[tuple[str, str, str]]:
    """``pytest --co`` over 10,000 items: the first time (files parsed) and again (parses reused)."""
    collect_dir = work / "collect"
    (collect_dir / "cases").mkdir(parents=True)
    per_file = 1000
    for n in range(max(1, args.collect_items // per_file)):
        (collect_dir / "cases" / f"c{n:02d}.yaml").write_text(case_file(per_file, f"c{n:02d}"), encoding="utf-8")
    write_project_config_only(collect_dir, "http://127.0.0.1:9", args.concurrency)
    collect_run = ["pytest", "--co", "-q", "--tts-engine=bench", "-p", "no:cacheprovider"]
    (work / "empty").mkdir()
    empty_run = ["pytest", "--co", "-q", "-p", "no:cacheprovider"]
    # Bytecode compiled once, untimed, in a copy of the project (its parse cache stays cold here).
    shutil.copytree(collect_dir, work / "collect-warmup")
    for argv, folder in ((collect_run, work / "collect-warmup"), (empty_run, work / "empty")):
        subprocess.run([sys.executable, "-m", *argv], cwd=folder, env=env, capture_output=True, check=False)
    first = measure(collect_run, collect_dir, env)
    again = measure(collect_run, collect_dir, env)
    empty = measure(empty_run, work / "empty", env)
    return [
        (
            f"collect {args.collect_items} items, first",
            f"{first['wall']:.2f} s wall, {first['cpu']:.2f} s CPU",
            f"{first['cpu'] / empty['cpu']:.1f} × the CPU of an empty pytest --co ({empty['cpu']:.2f} s); < 3 s wall",
        ),
        (
            f"collect {args.collect_items} items, again",
            f"{again['wall']:.2f} s wall, {again['cpu']:.2f} s CPU",
            f"{again['cpu'] / empty['cpu']:.1f} × (< 3 s; parsed case files reused)",
        ),
    ]


#: the warm rerun's fixed costs, by name: (label, file suffix, functions) whose cumulative time is the figure
WARM_PHASES = (
    ("plugin imported", "pytest_ttsbench/plugin.py", ("<module>",)),
    ("benchmark hooks imported", "pytest_ttsbench/session/hooks.py", ("<module>",)),
    ("plugin options and configuration", "pytest_ttsbench/session/hooks.py", ("pytest_configure",)),
    ("collection (case files, items)", "_pytest/main.py", ("pytest_collection",)),
    ("pipeline built (imports, engines)", "pytest_ttsbench/session/benchmark.py", ("evaluator",)),
    ("items (clips, transcripts, figures from the cache)", "pytest_ttsbench/session/collect.py", ("runtest",)),
    ("  cache reads", "pytest_ttsbench/support/cache.py", ("read_audio", "read_transcript", "read_quality")),
    ("  clips decoded for their checks (PyAV)", "pytest_ttsbench/audio/decoding.py", ("decode_audio",)),
    ("  scoring", "pytest_ttsbench/scorers/registry.py", ("get_scorer",)),
    ("rows written", "pytest_ttsbench/run_model/results.py", ("write",)),
    ("gate evaluated", "pytest_ttsbench/gating/gate.py", ("evaluate_gate",)),
    ("  quality summaries", "pytest_ttsbench/quality/summary.py", ("summarize_quality",)),
    ("terminal summary", "pytest_ttsbench/session/hooks.py", ("pytest_terminal_summary",)),
    ("session finish (gate, reports, files)", "pytest_ttsbench/session/hooks.py", ("pytest_sessionfinish",)),
    ("session closed (manifest, engines)", "pytest_ttsbench/session/benchmark.py", ("close",)),
    ("garbage collection (pytest's at exit included)", "~", ("<built-in method gc.collect>",)),
)
#: what a fully warm rerun must never start: (label, file part, function), counted in the profile
WARM_NEVER = (
    ("Whisper models loaded", "pytest_ttsbench/asr/whisper.py", "load_model"),
    ("faster-whisper calls", "faster_whisper/", None),
    ("eSpeak NG library initializations", "pytest_ttsbench/engines/espeak.py", "_open"),
)


def warm_fixed_costs(profile: Path, startup: dict[str, float]) -> list[tuple[str, str, str]]:
    """Each fixed cost of a warm rerun, by name, from a profile of one; and what it never started."""
    import pstats

    stats = pstats.Stats(str(profile))
    total = max(entry[3] for entry in stats.stats.values())  # the main thread's run, start to end
    rows = [
        (
            "  warm: interpreter and pytest start-up (plugin off)",
            f"{startup['wall']:.2f} s wall, {startup['cpu']:.2f} s CPU",
            "pytest --co -p no:ttsbench, not profiled",
        )
    ]
    for label, suffix, functions in WARM_PHASES:
        seconds = sum(
            entry[3]
            for (filename, _, name), entry in stats.stats.items()
            if name in functions and filename.endswith(suffix)
        )
        rows.append((f"  warm: {label}", f"{seconds:.2f} s of {total:.2f} s profiled", f"{seconds / total:.0%}"))
    for label, part, function in WARM_NEVER:
        calls = sum(
            entry[1]
            for (filename, _, name), entry in stats.stats.items()
            if part in filename and (function is None or name == function)
        )
        rows.append((f"  warm: {label}", str(calls), "0 on a fully warm rerun"))
    return rows


def readme_plugins() -> list[str]:
    """The pytest plugins the README's set-up command (``pip install -e .``) brings: the ``pytest11``
    entry points of pytest-ttsbench and of every distribution its requirements pull in, no extras.

    This machine also holds the test extra's and other projects' plugins (hypothesis, pytest-benchmark,
    anyio's with trio...), which every pytest start here pays for, the plugin off included.
    """
    from importlib.metadata import PackageNotFoundError, distribution, entry_points

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo = ["pytest-ttsbench"]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for line in requires:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return sorted(
        point.name
        for point in entry_points(group="pytest11")
        if point.dist is not None and canonicalize_name(point.dist.name) in seen
    )


def _environments(env: dict[str, str]) -> list[tuple[str, dict[str, str], list[str]]]:
    """(label, environment, pytest arguments) of the two places the main job is measured in."""
    plugins = readme_plugins()
    readme_env = {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    loaded = [arg for name in plugins for arg in ("-p", name)]
    return [
        (f"README install ({len(plugins)} pytest plugins: {', '.join(plugins)})", readme_env, loaded),
        ("this machine's environment (every installed pytest plugin)", env, []),
    ]


def _median_run(measured: list[dict[str, float]]) -> dict[str, float]:
    """The run of median wall time among runs measured (the lower middle one of an even number)."""
    ordered = sorted(measured, key=lambda m: m["wall"])
    return ordered[(len(ordered) - 1) // 2]


def _walls(measured: list[dict[str, float]]) -> str:
    return ", ".join(f"{m['wall']:.1f}" for m in measured) + " s"


def _median_of(runs: int, argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """The run of median wall time among ``runs`` runs of the same command (warm reruns are short and noisy)."""
    return _median_run([measure(argv, cwd, env) for _ in range(runs)])


def main_job(env: dict[str, str], work: Path, rounds: int = 3, dnsmos_rounds: int = 5) -> list[tuple[str, str, str]]:
    """The README's main job cold and warm, the warm rerun's fixed costs by name, and DNSMOS against signal.

    Measured twice: with the pytest plugins the README's install brings (the figure a team sees),
    and with every plugin this machine has installed. Warm reruns and the plugin-off start-up are
    the median of ``rounds`` runs each; in the README's environment the cold runs are the median
    of ``dnsmos_rounds``, each round a cold run without DNSMOS and one with it, in alternating order.
    """
    project = work / "mainjob"
    project.mkdir()
    shutil.copy(ROOT / "ttsbench.yaml", project / "ttsbench.yaml")  # its packs ship in the package
    bare = work / "mainjob-bare"
    bare.mkdir()
    shutil.copy(ROOT / "ttsbench.yaml", bare / "ttsbench.yaml")
    base = ["pytest", "--tts-engine=espeak", "-k", "numerals", "-q", "-p", "no:cacheprovider", "--tts-progress=0"]
    rows: list[tuple[str, str, str]] = []
    for index, (label, run_env, plugins) in enumerate(_environments(env)):

        def job(name: str, cache: str, *extra: str, tag: str = f"e{index}", loaded: list[str] = plugins) -> list[str]:
            outputs = [f"--tts-cache-dir={tag}-{cache}", f"--tts-results={tag}-{name}/results.jsonl"]
            return [*base, *loaded, *outputs, *extra]

        # Listed once, untimed: bytecode compiled, so the cold run pays for nothing an installed package would not.
        subprocess.run([sys.executable, "-m", *base, *plugins, "--co"], cwd=project, env=run_env, capture_output=True)
        # Cold runs vary by a fifth from one to the next here; in the README's environment the main
        # job is run cold ``dnsmos_rounds`` times, each beside a cold run with DNSMOS, and each
        # round's pair compared. Which of the two goes first alternates, so neither side always
        # runs on a machine the other has just warmed (page cache, CPU frequency).
        colds, dnsmos_colds = [], []
        for round_ in range(dnsmos_rounds if index == 0 else 1):
            signal_job = job(f"cold{round_}", f"cache{round_}")
            if index:
                colds.append(measure(signal_job, project, run_env))
                continue
            dnsmos_job = job(f"dnsmos-cold{round_}", f"dnsmos-cache{round_}", "--tts-quality=dnsmos,signal")
            if round_ % 2:
                dnsmos_colds.append(measure(dnsmos_job, project, run_env))
                colds.append(measure(signal_job, project, run_env))
            else:
                colds.append(measure(signal_job, project, run_env))
                dnsmos_colds.append(measure(dnsmos_job, project, run_env))
        cold = _median_run(colds)
        warm = _median_of(rounds, job("warm", "cache0"), project, run_env)
        # In a project holding only the configuration: pytest alone would walk the run's cache and
        # clip folders here, which the plugin tells it to leave out (session/own_folders.py).
        others = [a for pair in zip(plugins[::2], plugins[1::2], strict=True) if pair[1] != "ttsbench" for a in pair]
        off = _median_of(rounds, ["pytest", *others, "--co", "-q", "-p", "no:ttsbench"], bare, run_env)
        rows += [
            (f"main job in the {label}", "", ""),
            (
                f"main job (51 items), cold (median of {len(colds)})",
                f"{cold['wall']:.1f} s wall, {cold['cpu']:.1f} s CPU",
                " ".join(base[:4]) + (f"; each: {_walls(colds)}" if len(colds) > 1 else ""),
            ),
            (
                f"main job, warm rerun (median of {rounds})",
                f"{warm['wall']:.2f} s wall, {warm['cpu']:.2f} s CPU",
                f"{warm['wall'] / cold['wall']:.1%} of cold wall, {warm['cpu'] / cold['cpu']:.1%} of its CPU (< 5%)",
            ),
            (
                f"  warm: interpreter and pytest start-up, plugin off (median of {rounds})",
                f"{off['wall']:.2f} s wall, {off['cpu']:.2f} s CPU",
                f"{off['wall'] / cold['wall']:.1%} of cold wall (pytest's own start and exit, no case file read)",
            ),
        ]
        if index:
            continue  # the fixed costs by name and DNSMOS: once, in the README's environment
        profile = work / "warm.prof"
        subprocess.run(
            [sys.executable, "-c", _PROFILED, str(profile), *job("warm-profiled", "cache0")],
            cwd=project,
            env=run_env,
            capture_output=True,
        )
        rows += warm_fixed_costs(profile, off)[1:]
        dnsmos_cold = _median_run(dnsmos_colds)
        dnsmos_warm = measure(job("dnsmos-warm", "dnsmos-cache0", "--tts-quality=dnsmos,signal"), project, run_env)
        reused = _quality_reused(project / f"e{index}-dnsmos-warm" / "results.jsonl")
        ratios = [d["wall"] / c["wall"] for c, d in zip(colds, dnsmos_colds, strict=True)]
        rows += [
            (
                f"main job, dnsmos,signal cold (median of {len(dnsmos_colds)})",
                f"{dnsmos_cold['wall']:.1f} s wall, {dnsmos_cold['cpu']:.1f} s CPU",
                f"{statistics.median(ratios):.2f} × signal's wall, the median of the rounds' ratios (< 1.3); "
                f"round by round {', '.join(f'{r:.2f}' for r in ratios)}; medians' ratio "
                f"{dnsmos_cold['wall'] / cold['wall']:.2f}, CPU {dnsmos_cold['cpu'] / cold['cpu']:.2f}; "
                f"each: {_walls(dnsmos_colds)}",
            ),
            (
                "main job, dnsmos,signal warm",
                f"{dnsmos_warm['wall']:.2f} s wall ({reused} figures reused)",
                f"{dnsmos_warm['wall'] / warm['wall']:.2f} × signal's warm wall",
            ),
        ]
    return rows


def _quality_reused(results: Path) -> str:
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    hits = sum(row.get("cache", {}).get("quality") == "hit" for row in rows)
    return f"{hits}/{len(rows)}"


def startup(env: dict[str, str], work: Path, rounds: int) -> list[tuple[str, str, str]]:
    """``pytest --co --tts-engine=espeak`` over one item, against the same listing with the plugin off."""
    project = work / "one-item"
    (project / "cases").mkdir(parents=True)
    (project / "cases" / "one.yaml").write_text(case_file(1, "one"), encoding="utf-8")
    (project / "ttsbench.yaml").write_text(
        "cases: [cases]\nengines:\n  espeak: {type: espeak, voice: en-us}\n", encoding="utf-8"
    )
    listing = ["pytest", "--co", "-q", "-p", "no:cacheprovider"]
    plugin_on = [*listing, "--tts-engine=espeak"]
    plugin_off = [*listing, "-p", "no:ttsbench"]
    for argv in (plugin_on, plugin_off):  # bytecode compiled, untimed
        subprocess.run([sys.executable, "-m", *argv], cwd=project, env=env, capture_output=True)
    on, off = [], []
    for _ in range(rounds):  # interleaved, so load changes hit both sides alike
        on.append(measure(plugin_on, project, env))
        off.append(measure(plugin_off, project, env))
    wall_on, wall_off = (statistics.median(m["wall_outside"] for m in side) for side in (on, off))
    cpu_on, cpu_off = (statistics.median(m["cpu"] for m in side) for side in (on, off))
    return [
        (
            "start-up: --co --tts-engine, 1 item",
            f"{wall_on:.2f} s wall, {cpu_on:.2f} s CPU",
            f"plugin off {wall_off:.2f} s wall, {cpu_off:.2f} s CPU: "
            f"+{wall_on - wall_off:.2f} s wall ({wall_on / wall_off:.2f} ×), "
            f"+{cpu_on - cpu_off:.2f} s CPU ({cpu_on / cpu_off:.2f} ×) (≤ 0.3 s)",
        ),
    ]


# A plain sequential faster-whisper loop over a run's kept clips, with the plugin's decoding
# settings (tiny.en, beam 5, temperature 0, no "no speech" drop, no VAD, the per-window token
# budget and the early stop): ``python sequential_loop.py FOLDER DEVICE COMPUTE_TYPE``.
_SEQUENTIAL_LOOP = """
import sys
from pathlib import Path
from faster_whisper import WhisperModel, decode_audio
from pytest_ttsbench.asr.models import resolve_model
from pytest_ttsbench.asr.whisper import clip_token_budget, decoder_max_new_tokens, read_bounded, window_token_budget
model = WhisperModel(str(resolve_model("tiny.en")), device=sys.argv[2], compute_type=sys.argv[3])
timestamp_begin = model.hf_tokenizer.token_to_id("<|notimestamps|>") + 1
for path in sorted(Path(sys.argv[1]).rglob("*.wav")):
    samples = decode_audio(str(path), sampling_rate=16000)
    seconds = samples.size / 16000
    budget = window_token_budget(seconds)
    segments, _ = model.transcribe(samples, language="en", beam_size=5, temperature=[0.0], no_speech_threshold=None,
                                   condition_on_previous_text=False, vad_filter=False,
                                   max_new_tokens=decoder_max_new_tokens(budget))
    reading = read_bounded(segments, seconds, budget, clip_token_budget(seconds), timestamp_begin)
"""


def batching(env: dict[str, str], work: Path) -> list[tuple[str, str, str]]:
    """The main job cold against a plain sequential loop, and across-items against sequential ASR."""
    import ctranslate2

    device, compute = ("cuda", "float16") if ctranslate2.get_cuda_device_count() > 0 else ("cpu", "int8")
    project = work / "batching"
    project.mkdir()
    shutil.copy(ROOT / "ttsbench.yaml", project / "ttsbench.yaml")
    base = ["pytest", "--tts-engine=espeak", "-k", "numerals", "-q", "-p", "no:cacheprovider", "--tts-progress=0"]
    base += [f"--tts-asr-device={device}", f"--tts-asr-compute-type={compute}"]
    subprocess.run([sys.executable, "-m", *base, "--co"], cwd=project, env=env, capture_output=True)  # bytecode
    loop = work / "sequential_loop.py"
    loop.write_text(_SEQUENTIAL_LOOP, encoding="utf-8")
    # Once untimed over a folder without clips: the model is found and loaded, nothing transcribed.
    subprocess.run([sys.executable, str(loop), str(project), device, compute], env=env, capture_output=True, check=True)
    cold = measure([*base, "--tts-cache-dir=cache", "--tts-results=cold/results.jsonl"], project, env)
    plain = measure([str(loop), str(project / "cold"), device, compute], project, env)
    runs = {}
    for name, extra in (("sequential", ["--tts-asr-batch-items=1"]), ("across", [])):
        # Audio cached, transcripts not: a fresh cache holding only the cold run's clips.
        shutil.copytree(project / "cache" / "audio", project / f"audio-{name}" / "audio")
        argv = [*base, f"--tts-cache-dir=audio-{name}", f"--tts-results={name}/results.jsonl", *extra]
        runs[name] = measure(argv, project, env)
    heard = {name: _heard(project / name / "results.jsonl") for name in runs}
    mode = {row_mode for _, _, row_mode in heard["across"].values()}
    differences = [
        (
            f"  differs: {item}",
            f"sequential {seq[0]}: {seq[1]!r}",
            f"across {heard['across'][item][0]}: {heard['across'][item][1]!r}",
        )
        for item, seq in heard["sequential"].items()
        if heard["across"].get(item, (None, None, None))[:2] != seq[:2]
    ]
    same = len(heard["sequential"]) - len(differences)
    seq, across = runs["sequential"], runs["across"]
    return [
        ("batching: device", f"{device} ({compute})", f"mode {', '.join(sorted(mode))}"),
        (
            "main job (51 items), cold, across items",
            f"{cold['wall']:.1f} s wall, {cold['cpu']:.1f} s CPU",
            f"{cold['wall'] / plain['wall']:.2f} × the plain loop's wall, "
            f"{cold['cpu'] / plain['cpu']:.2f} × its CPU (≤ 0.9)",
        ),
        ("plain sequential loop, same clips", f"{plain['wall']:.1f} s wall, {plain['cpu']:.1f} s CPU", "pure ASR time"),
        (
            "audio cached, ASR across items",
            f"{across['wall']:.1f} s wall, {across['cpu']:.1f} s CPU",
            f"{across['wall'] / seq['wall']:.2f} × sequential wall, {across['cpu'] / seq['cpu']:.2f} × its CPU",
        ),
        ("audio cached, ASR sequential", f"{seq['wall']:.1f} s wall, {seq['cpu']:.1f} s CPU", ""),
        ("verdicts and transcripts the same", f"{same}/{len(heard['sequential'])}", "across items vs sequential"),
        *differences,
    ]


def _heard(results: Path) -> dict[str, tuple[str, str | None, str]]:
    """Each row's (verdict, transcript, decoding mode) by row id and target."""
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    return {
        f"{row['id']}[{row.get('target')}]": (
            row["verdict"],
            row.get("transcript"),
            ",".join(sorted(set((row.get("asr_decoding") or {}).values()))),
        )
        for row in rows
    }


def write_project_config_only(folder: Path, url: str, concurrency: int) -> None:
    config = f"""\
        engines:
          bench: {{type: openai, base_url: {url}/v1, model: tts-1, voice: alloy, api_key_env: {KEY_ENV}}}
        """
    (folder / "ttsbench.yaml").write_text(textwrap.dedent(config), encoding="utf-8")


if __name__ == "__main__":
    main()
