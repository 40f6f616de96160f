"""Scale-out on a shared recognizer: N shards of a CI job sending their clips to ONE ASR server.

Run: ``python benchmarks/shared_recognizer.py [--server PATH|builtin] [--clients 1,2,4]
[--concurrency 1,4] [--workers 1] [--model tiny.en] [--device cpu|cuda]``.

It starts an OpenAI-compatible transcription server on 127.0.0.1 serving the packaged Whisper
model offline: by default ``faster-whisper-server`` (the PyPI package, 0.0.3: FastAPI, one
faster-whisper model per worker process; ``--server PATH`` names its executable, for example in a
venv of its own), or with ``--server builtin`` the stand-in in ``tests/fakes/transcription_server.py``
(stdlib HTTP, the same wire format, the plugin's own faster-whisper decoding). Then, for each
number of clients N and each route ``concurrency`` C, it runs the README's main job split N ways
-- ``pytest --tts-engine=espeak --tts-shard=I/N`` over the 51-item ``en-numerals`` pack with real
eSpeak NG, all N processes at once, each with a fresh cache as a CI job has, every one pointing
its ``openai`` route at the one server -- then ``ttsbench merge`` and ``ttsbench gate`` over the
shards. It prints, all measured in this one run:

* clips per second for each (N, C): 51 ÷ the wall time from the first shard's start to the last
  one's end, and the ratio to one client with the same C;
* the effect of the route's ``concurrency``: each N with C against the same N with the first C;
* whether every merged gate equals the one-client gate (it must: the same clips, one recognizer);
* a local faster-whisper run of the same job (``asr: {model: tiny.en}``, no server) for scale,
  and how many verdicts the server's transcripts share with it.

Every figure is wall time on whatever machine runs it: on a loaded machine read the ratios, and
remember that a CPU server shares its cores with the clients (a GPU box does not).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))

PACK = "en-numerals"
ITEMS = 51


@dataclass
class Outcome:
    clients: int
    concurrency: int
    wall: float
    clips: int
    gate: dict
    verdicts: dict[str, str]

    @property
    def rate(self) -> float:
        return self.clips / self.wall


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# faster-whisper-server 0.0.3 picks the model by a form field named ``model_name`` (default
# "whisper-1"), not OpenAI's ``model``; the route sends it with ``extra_form``. Its decoding is set
# to the plugin's local route's: int8 on the CPU, beam 5, temperature 0 only, each clip on its own.
SERVED_NAME = "whisper-1"


def server_config(weights: str, device: str) -> dict:
    """faster-whisper-server's ``--config``: one model, decoded as the plugin's own Whisper route decodes."""
    model = {
        "name": SERVED_NAME,
        "path": weights,
        "model_options": {"device": device, "compute_type": "float16" if device == "cuda" else "int8"},
        "transcribe_options": {
            "beam_size": 5,
            "temperature": 0.0,
            "condition_on_previous_text": False,
            "vad_filter": False,
        },
    }
    return {"models": [model]}


def start_server(server: str, model: str, port: int, workers: int, device: str, log: Path) -> subprocess.Popen[bytes]:
    """The recognizer, serving ``model`` (a packaged name such as tiny.en, resolved to its folder) offline."""
    from pytest_ttsbench.asr.models import resolve_model

    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if server == "builtin":
        argv = [sys.executable, __file__, "--serve-builtin", str(port), "--model", model]
    else:
        config = log.with_name("server-config.yaml")
        settings = server_config(str(resolve_model(model)), device)
        config.write_text(json.dumps(settings), encoding="utf-8")  # JSON is YAML
        argv = [server, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
        argv += ["--workers", str(workers)]
    process = subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{argv[0]} exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return process
        except OSError:
            time.sleep(0.5)
    process.terminate()
    raise RuntimeError(f"{argv[0]} did not answer /health within 120 s:\n{log.read_text(errors='replace')}")


def warm_up(port: int) -> None:
    """One transcription before any timing: the server loads its model on the first request."""
    import httpx

    from pytest_ttsbench.config import EngineProfile
    from pytest_ttsbench.engines.base import SynthesisRequest
    from pytest_ttsbench.engines.registry import create_engine

    espeak = create_engine(EngineProfile(name="espeak", type="espeak", voice="en-us"))
    clip = espeak.synthesize(SynthesisRequest(text="It opened in 2026.", language="en")).audio
    espeak.close()
    form = {"model": "tiny.en", "language": "en", "response_format": "json", "model_name": SERVED_NAME}
    reply = httpx.post(
        f"http://127.0.0.1:{port}/v1/audio/transcriptions",
        data=form,
        files={"file": ("clip.wav", clip, "audio/wav")},
        timeout=300,
    )
    reply.raise_for_status()


def write_project(folder: Path, asr: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    config = {"packs": [PACK], "asr": asr, "engines": {"espeak": {"type": "espeak", "voice": "en-us"}}}
    (folder / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")


def shared_route(port: int, concurrency: int) -> dict:
    route = {
        "type": "openai",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "model": "tiny.en",
        "name": "shared",
        "concurrency": concurrency,
        "timeout_s": 600,  # four shards queue on one CPU server
        "extra_form": {"model_name": SERVED_NAME},
    }
    return {"routes": [route]}


def pytest_job(results: Path, cache: Path, *extra: str) -> list[str]:
    return [
        *(sys.executable, "-m", "pytest", "--tts-engine=espeak", "-q", "-p", "no:cacheprovider", "--tts-progress=0"),
        *(f"--tts-results={results}", f"--tts-cache-dir={cache}", *extra),
    ]


def read_rows(results: Path) -> list[dict]:
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]


def run_shards(project: Path, clients: int, concurrency: int, env: dict[str, str]) -> Outcome:
    """N shard processes at once, then merge and gate; the wall time is the shards' alone."""
    label = f"n{clients}-c{concurrency}"
    folders = [project / label / f"shard{i}" for i in range(1, clients + 1)]
    (project / label).mkdir(parents=True)
    started = time.perf_counter()
    processes = []
    for index, folder in enumerate(folders, start=1):
        argv = pytest_job(folder / "results.jsonl", folder / "cache", f"--tts-shard={index}/{clients}")
        log = (project / label / f"shard{index}.log").open("wb")
        processes.append(subprocess.Popen(argv, cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT))
    statuses = [process.wait() for process in processes]
    wall = time.perf_counter() - started
    if any(status not in (0, 1) for status in statuses):
        raise RuntimeError(f"{label}: shard exit statuses {statuses}; see {project / label}/shard*.log")
    merged = project / label / "merged"
    merge = [sys.executable, "-m", "pytest_ttsbench.cli", "merge", *map(str, folders), "-o", str(merged)]
    subprocess.run(merge, cwd=project, env=env, check=True, capture_output=True)
    gate = [sys.executable, "-m", "pytest_ttsbench.cli", "gate", str(merged), "--rootdir", str(project)]
    subprocess.run(gate, cwd=project, env=env, check=False, capture_output=True)
    rows = read_rows(merged / "results.jsonl")
    document = json.loads((merged / "results.gate.json").read_text(encoding="utf-8"))
    document.pop("cache", None)  # each shard made its own clips: the cache counts are the shards'
    return Outcome(clients, concurrency, wall, len(rows), document, {r["id"]: r["verdict"] for r in rows})


def run_local(work: Path, env: dict[str, str]) -> tuple[float, dict[str, str], dict[str, str]]:
    """The same job with a local faster-whisper route, unsplit: its wall, verdicts and transcripts."""
    project = work / "local"
    write_project(project, {"model": "tiny.en", "beam_size": 5})
    started = time.perf_counter()
    subprocess.run(
        pytest_job(project / "run" / "results.jsonl", project / "cache"), cwd=project, env=env, capture_output=True
    )
    wall = time.perf_counter() - started
    rows = read_rows(project / "run" / "results.jsonl")
    return wall, {r["id"]: r["verdict"] for r in rows}, {r["id"]: r.get("transcript") or "" for r in rows}


def serve_builtin(port: int, model: str) -> None:
    from transcription_server import TranscriptionServer, whisper_hearing

    with TranscriptionServer(whisper_hearing(model), port=port):
        while True:
            time.sleep(3600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=shutil.which("faster-whisper-server") or "builtin")
    parser.add_argument("--clients", default="1,2,4", help="numbers of concurrent shard processes")
    parser.add_argument("--concurrency", default="1,4", help="the route's concurrency values to compare")
    parser.add_argument("--workers", type=int, default=1, help="faster-whisper-server worker processes")
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where the server decodes")
    parser.add_argument("--no-local", action="store_true", help="skip the local faster-whisper run")
    parser.add_argument("--keep", type=Path, help="keep the runs under this folder")
    parser.add_argument("--serve-builtin", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_builtin:
        serve_builtin(args.serve_builtin, args.model)
        return
    clients = [int(n) for n in args.clients.split(",")]
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    work = args.keep or Path(tempfile.mkdtemp(prefix="ttsbench-shared-"))
    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server(args.server, args.model, port, args.workers, args.device, work / "server.log")
    try:
        warm_up(port)
        project = work / "shared"
        outcomes: list[Outcome] = []
        for concurrency in concurrencies:
            write_project(project, shared_route(port, concurrency))
            # Listed once, untimed: bytecode compiled, the pack parsed once, as an installed plugin has it.
            listing = [*pytest_job(project / "co.jsonl", project / "co"), "--co"]
            subprocess.run(listing, cwd=project, env=env, capture_output=True)
            for n in clients:
                outcomes.append(run_shards(project, n, concurrency, env))
                print(f"  ran {n} client(s), concurrency {concurrency}: {outcomes[-1].wall:.1f} s", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=30)
    local = None if args.no_local else run_local(work, env)
    report(args, outcomes, local, work)


def report(
    args: argparse.Namespace,
    outcomes: list[Outcome],
    local: tuple[float, dict[str, str], dict[str, str]] | None,
    work: Path,
) -> None:
    server = "builtin stand-in" if args.server == "builtin" else f"{Path(args.server).name} ({args.workers} worker)"
    print(f"server                          {server}, model {args.model}, {PACK} ({ITEMS} items, eSpeak NG)")
    first = outcomes[0]
    by = {(o.clients, o.concurrency): o for o in outcomes}
    base_c = outcomes[0].concurrency
    for o in outcomes:
        one = by.get((1, o.concurrency), first)
        line = f"{o.clients} client(s), concurrency {o.concurrency}"
        figure = f"{o.wall:6.1f} s  {o.rate:.2f} clips/s"
        ratios = [f"{o.rate / one.rate:.2f} × 1 client"]
        if o.concurrency != base_c and (o.clients, base_c) in by:
            ratios.append(f"{o.rate / by[(o.clients, base_c)].rate:.2f} × concurrency {base_c}")
        differs = sorted(key for key in first.gate.keys() | o.gate.keys() if first.gate.get(key) != o.gate.get(key))
        same = "same gate" if not differs else f"gate differs in {', '.join(differs)}"
        print(f"{line:<32}{figure:<26}{', '.join(ratios)}; {same} as {first.clients} client, c {first.concurrency}")
    if local is not None:
        wall, verdicts, _ = local
        agree = sum(verdicts.get(k) == v for k, v in first.verdicts.items())
        print(
            f"{'local faster-whisper, unsplit':<32}{wall:6.1f} s  {ITEMS / wall:.2f} clips/s"
            f"{'':<4}1 client via the server: {first.rate / (ITEMS / wall):.2f} ×; "
            f"verdicts the same {agree}/{len(first.verdicts)}"
        )
    print(f"runs kept in {work}" if args.keep else "")


if __name__ == "__main__":
    main()
