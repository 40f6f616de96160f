"""Every ``--tts-*`` option of the pytest plugin, as plain data: what ``import pytest_ttsbench.plugin`` loads.

pytest imports the plugin in every run of every project it is installed in, and must be told the
options before it parses the command line; so the declarations live here, in a module that imports
nothing but :mod:`~pytest_ttsbench.support.option_specs` and the number check every numeric option
parses with (:mod:`~pytest_ttsbench.support.checked_numbers`), and the modules that read the options
(named above each tuple: the feature that owns them) are imported only by a run that selects an
engine (plugin.py). An option is an :class:`OptionSpec`, as both argument parsers take it:
``ttsbench gate`` adds :data:`GATE_OPTIONS` to its own parser, so name, default, type, choices and
help cannot differ between the two front ends. The constants an option's choices or help quote
are defined here too, and imported by their feature modules. tests/architecture/
test_option_declarations.py keeps every option here and each declared once.
"""

from __future__ import annotations

from typing import Literal

from pytest_ttsbench.support.checked_numbers import ALPHA, AT_LEAST_ONE, COUNT, SHARE, number_option
from pytest_ttsbench.support.option_specs import OptionSpec

# --- constants the declarations quote, imported by the modules of their features ---------------

#: the clip cache's modes (support/cache.py)
CACHE_MODES = ("off", "read", "write", "readwrite")
DEFAULT_CACHE_MODE = "readwrite"
#: finished tests between two progress lines where the output is not a terminal (reporting/progress.py)
DEFAULT_EVERY = 25
#: which text variant of an item is sent (run_model/text_variants.py)
CONTRACTS: tuple[str, ...] = ("raw", "mono", "bilingual")
#: which scoring protocol gives the verdicts (protocols.py)
Protocol = Literal["strict", "published"]
PROTOCOLS: tuple[Protocol, ...] = ("strict", "published")
DEFAULT_PROTOCOL: Protocol = "strict"
PROTOCOL_HELP = "strict (our judge, the default) or published (the benchmark's own matcher, where its code is public)"
#: whose clips are read from the cache (run_model/clip_reuse.py)
REUSE_CHOICES = ("local", "all")
#: an item's verdict over its generations (run_model/repeats.py)
POLICIES = ("all", "majority", "any")
#: how DNSMOS cuts a clip (quality/measures.py)
DNSMOS_WINDOWINGS: tuple[str, ...] = ("clip", "reference")
#: the gate's (gating/baseline.py, gating/bounds.py, gating/thresholds.py, gating/snapshots.py)
DEFAULT_ALPHA = 0.05
DEFAULT_MAX_RATE = 0.10
ALLOW_UNMEASURED_OPTION = "--tts-allow-unmeasured-bounds"
#: reading a baseline (or, in ``ttsbench gate``, the run) that does not match its manifest
ALLOW_UNVERIFIED_OPTION = "--tts-allow-unverified"
#: shared with ``ttsbench compare``, whose regression rule judges missing targets as the gate does
ALLOW_UNMEASURED_SPEC = OptionSpec(
    ALLOW_UNMEASURED_OPTION,
    "let bounds go 'not measured' (a floor on a category -k left out, a baseline target this run did not run, a "
    "latency figure never taken, a shard a partial merge lacks) instead of failing the gate; a bound that "
    "matches nothing is still refused",
    action="store_true",
)
#: the opt-in that leaves the exit status to the judged bounds alone (configuration: ``gate_decides_exit``)
GATE_DECIDES_EXIT_OPTION = "--tts-gate-decides-exit"
FLOOR_ON = ("point", "lower")
SNAPSHOT_MODES = ("off", "report", "strict")

# --- the options, by the feature that owns them -------------------------------------------------

# owned by pytest_ttsbench.support.cache
CACHE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-cache",
        "reuse clips and transcripts from earlier runs: off, read, write or readwrite (default)",
        choices=CACHE_MODES,
        default=DEFAULT_CACHE_MODE,
    ),
    OptionSpec(
        "--tts-cache-dir",
        "the clip and transcript cache (default: cache_dir in the configuration, else "
        "$TTSBENCH_CACHE_DIR/clips, else .ttsbench/cache)",
        metavar="DIR",
    ),
)


# owned by pytest_ttsbench.reporting.progress
#: the progress line's option (the plugin's; see plugin.py)
PROGRESS_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-progress",
        f"write a progress line with an ETA every N finished tests (0: never; default: every "
        f"{DEFAULT_EVERY} when the output is not a terminal, never on a terminal)",
        type=number_option("--tts-progress", COUNT),
        default=None,
        metavar="N",
    ),
)


# owned by pytest_ttsbench.session.benchmark
#: what a run synthesizes and where it writes (read by build_config)
RUN_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-engine",
        "engine profile(s) to synthesize with; without it no case is synthesized",
        action="append",
        default=None,
        metavar="NAME[,NAME...]",
    ),
    OptionSpec(
        "--tts-results",
        "JSON-lines results file, one line per item as it finishes "
        "(default: a new folder under the configured runs_dir)",
        metavar="PATH",
    ),
    OptionSpec("--tts-audio-dir", "where clips are kept (default: beside the results)", metavar="DIR"),
    OptionSpec(
        "--tts-synth-only",
        "synthesize and check clips only, no ASR and no verdicts; score them later with an "
        "audio-dir profile whose path is this run's folder",
        action="store_true",
    ),
)


# owned by pytest_ttsbench.run_model.reruns
#: what an existing ``--tts-results`` file means to a run (see check_existing)
RERUN_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-append",
        "add this run to a --tts-results file that already holds rows (as a new run id)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-resume",
        "finish the run a --tts-results file holds: targets it measured (not as error) with the same engine "
        "configuration are not run again",
        action="store_true",
    ),
)


# owned by pytest_ttsbench.cases.packs
PACK_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-pack",
        "run this shipped benchmark pack (repeatable; `ttsbench packs list` names them), beside the "
        "configured case folders; overrides the configuration's `packs`",
        action="append",
        default=None,
        metavar="NAME",
    ),
)


# owned by pytest_ttsbench.asr.registry
#: ASR choices on the command line; they override the configuration's default route (session.AsrOverrides)
ASR_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-asr-model",
        "Whisper model: a name (auto, tiny.en, base, …) or a local CTranslate2 folder",
        metavar="NAME|PATH",
    ),
    OptionSpec("--tts-asr-device", "faster-whisper device (cpu, cuda, auto)", metavar="DEVICE"),
    OptionSpec("--tts-asr-compute-type", "faster-whisper compute type (int8, float16…)", metavar="TYPE"),
    OptionSpec(
        "--tts-asr-beam-size",
        "beam size for decoding",
        type=number_option("--tts-asr-beam-size", AT_LEAST_ONE),
        metavar="N",
    ),
    OptionSpec(
        "--tts-asr-batch-size",
        "Whisper windows of one clip decoded together: 1 = sequential, N > 1 = faster-whisper's batched "
        "pipeline, auto (default) = not set (see --tts-asr-batch-items); a set value turns batch items off",
        metavar="N|auto",
    ),
    OptionSpec(
        "--tts-asr-batch-items",
        "clips of up to N items decoded together (same language and route): 1 = one clip per call, "
        "auto (default) = 8 on CPU, 16 on CUDA",
        metavar="N|auto",
    ),
)


# owned by pytest_ttsbench.run_model.text_variants
CONTRACT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-contract",
        "which text variant of an item is sent (default: raw)",
        choices=CONTRACTS,
        default="raw",
    ),
)


# owned by pytest_ttsbench.protocols
PROTOCOL_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-protocol",
        f"which scoring protocol gives the verdicts: {PROTOCOL_HELP}; the other is recorded beside it",
        choices=PROTOCOLS,
        default=DEFAULT_PROTOCOL,
    ),
)


# owned by pytest_ttsbench.figures.voting
VOTING_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-quorum",
        "routes that must agree for a verdict with several ASR routes (default: majority)",
        type=number_option("--tts-quorum", AT_LEAST_ONE),
        metavar="N",
    ),
)


# owned by pytest_ttsbench.run_model.clip_reuse
CLIP_REUSE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-cache-reuse",
        "whose clips are read from the cache: local (default: reproducible local engines such as "
        "espeak and piper) or all (remote engines' too; never in a run with --tts-baseline)",
        choices=REUSE_CHOICES,
        default=None,
    ),
)


# owned by pytest_ttsbench.reporting.terminal
#: more tables in the summary
SUMMARY_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-breakdown",
        "also summarize by this facet (e.g. form); repeatable",
        action="append",
        metavar="FACET",
    ),
)


# owned by pytest_ttsbench.session.selection
SELECTION_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-all-languages",
        "also run items in languages an engine profile is not fit for (its 'languages'); "
        "by default they are left out with one line per engine",
        action="store_true",
    ),
)


# owned by pytest_ttsbench.run_model.sharding
SHARD_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-shard",
        "run only shard I of N (items picked by a hash of their id, stable as items come and go); "
        "join the shards' results with `ttsbench merge` and gate them with `ttsbench gate`",
        metavar="I/N",
    ),
)


# owned by pytest_ttsbench.session.gate_options
def _quality_option(kind: str, example: str) -> OptionSpec:
    return OptionSpec(
        f"--tts-quality-{kind}",
        f"a {kind} on a quality measure's mean per engine/suite/category, e.g. {example}; SCOPE names an engine, "
        "suite or category; repeatable",
        action="append",
        metavar="[SCOPE/]MEASURE=VALUE",
    )


GATE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-threshold",
        "minimum strict accuracy for a category (or 'default'), e.g. years=0.9, or for a slice FIELD=VALUE=FLOOR "
        "(a facet, language or suite), e.g. form=arabic_indic=0.8; repeatable; overrides the configuration and "
        "the case files; a name no loaded case file defines is refused",
        action="append",
        metavar="[SUITE/]CATEGORY=FLOOR",
    ),
    OptionSpec(
        "--tts-min-n",
        "a floor's bucket needs at least N targets to be gated, else it is 'too few' (default: 5)",
        type=number_option("--tts-min-n", AT_LEAST_ONE),
        metavar="N",
    ),
    OptionSpec(
        "--tts-floor-on",
        "compare floors with the point estimate or its Wilson 95%% lower bound (default: point)",
        choices=FLOOR_ON,
    ),
    ALLOW_UNMEASURED_SPEC,
    OptionSpec(
        "--tts-max-error-rate",
        "the share of an engine's targets that may end in 'error' before the gate fails (default: 0, none)",
        type=number_option("--tts-max-error-rate", SHARE),
        default=0.0,
        metavar="R",
    ),
    OptionSpec("--tts-strict-xfail", "a known gap that now passes (XPASS) fails the run", action="store_true"),
    OptionSpec(
        GATE_DECIDES_EXIT_OPTION,
        "the gate alone sets the exit status: failed item tests are reported (FAILED, in JUnit and the gate file) "
        "but only the judged bounds fail the run; by default each item is a test and fails it, as in any "
        "pytest run (configuration: gate_decides_exit: true)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-update-known-gaps",
        "rewrite known_gaps/<engine>.yaml from this run: add new failures, drop fixed ones",
        action="store_true",
    ),
    OptionSpec(
        "--tts-allow-unavailable",
        "an engine that cannot run here (key variable unset, package missing) skips its targets instead of "
        "failing the gate; for local runs",
        action="store_true",
    ),
    OptionSpec("--tts-baseline", "compare with an earlier run's results file or folder", metavar="RESULTS"),
    OptionSpec(
        ALLOW_UNVERIFIED_OPTION,
        "read a --tts-baseline (and, in ttsbench gate, the run gated) whose files no longer match its checksum "
        "manifest, or that has none; recorded in the gate file and said on the terminal (default: refused)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-fail-on-regression",
        "fail the run when the regressions against the baseline (known gaps excepted) are significant or too "
        "many (see the next three options)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-regression-alpha",
        f"regressions fail the gate when McNemar's exact p is below P, overall or in a category "
        f"(default: {DEFAULT_ALPHA})",
        type=number_option("--tts-regression-alpha", ALPHA),
        default=DEFAULT_ALPHA,
        metavar="P",
    ),
    OptionSpec(
        "--tts-max-regressions",
        "regressions fail the gate when there are more than N (default: no count limit)",
        type=number_option("--tts-max-regressions", COUNT),
        metavar="N",
    ),
    OptionSpec(
        "--tts-max-regression-rate",
        f"regressions fail the gate when more than R of the paired targets regressed; 1 switches it off "
        f"(default: {DEFAULT_MAX_RATE})",
        type=number_option("--tts-max-regression-rate", SHARE),
        default=DEFAULT_MAX_RATE,
        metavar="R",
    ),
    OptionSpec(
        "--tts-allow-asr-change",
        "count verdict changes against the baseline as regressions even when the baseline used another ASR "
        "model or decoding mode (by default they are reported, not blamed on the voice)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-allow-quality-model-change",
        "judge --tts-quality-tolerance even where the baseline's figures were measured by another model, version "
        "or settings (by default such a check is not comparable and fails the gate)",
        action="store_true",
    ),
    OptionSpec(
        "--tts-latency-budget",
        "fail when an engine's synthesis latency exceeds a budget, e.g. openai=p95:800ms; figures: p50, p95, "
        "first_audio_p50, first_audio_p95; repeatable; overrides latency_budgets in the configuration",
        action="append",
        metavar="ENGINE=FIGURE:DURATION",
    ),
    OptionSpec(
        "--tts-latency-compare-fail",
        "with --tts-baseline: fail when a latency figure is more than PERCENT above the baseline's, e.g. p95:20%%",
        action="append",
        metavar="FIGURE:PERCENT",
    ),
    OptionSpec(
        "--tts-snapshot",
        "compare transcripts with __tts_snapshots__/<engine>.ambr: report changes (default), fail on them "
        "(strict), or skip the comparison (off); --snapshot-update records them",
        choices=SNAPSHOT_MODES,
        default="report",
    ),
    _quality_option("floor", "dnsmos_ovrl=3.0"),
    _quality_option("ceiling", "clipping_ratio=0.001"),
    OptionSpec(
        "--tts-quality-tolerance",
        "fail when a quality measure's mean moves the wrong way by more than DELTA against --tts-baseline",
        action="append",
        metavar="[SCOPE/]MEASURE=DELTA",
    ),
)


# owned by pytest_ttsbench.run_model.repeats
REPEAT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-repeats",
        "independent generations per item (default: the profile's 'repeats', else 1)",
        type=number_option("--tts-repeats", AT_LEAST_ONE),
        default=None,
        metavar="N",
    ),
    OptionSpec(
        "--tts-repeat-policy",
        "item verdict over its generations: all correct, a majority, or any (default: all)",
        choices=POLICIES,
        default="all",
    ),
)


# owned by pytest_ttsbench.quality.measures
QUALITY_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--tts-quality",
        "quality measures per clip: signal (default, near-free), dnsmos (extra [quality]), "
        "similarity (extra [similarity]), or none",
        action="append",
        default=None,
        metavar="SET[,SET...]",
    ),
    OptionSpec(
        "--tts-dnsmos-windowing",
        "how DNSMOS cuts a clip: each second scored once (clip, default), or Microsoft's reference "
        "script's 1 s hops over a clip doubled to 9.01 s (reference: comparable with published figures, ~6x the CPU)",
        choices=DNSMOS_WINDOWINGS,
    ),
)


#: (group name, its description, the options it shows in this order): pytest's two option groups
OPTION_GROUPS: tuple[tuple[str, str, tuple[OptionSpec, ...]], ...] = (
    (
        "ttsbench",
        "text-to-speech benchmark (pytest-ttsbench)",
        PROGRESS_OPTIONS
        + RUN_OPTIONS
        + RERUN_OPTIONS
        + PACK_OPTIONS
        + ASR_OPTIONS
        + CONTRACT_OPTIONS
        + PROTOCOL_OPTIONS
        + VOTING_OPTIONS
        + CACHE_OPTIONS
        + CLIP_REUSE_OPTIONS
        + SUMMARY_OPTIONS
        + SELECTION_OPTIONS
        + SHARD_OPTIONS,
    ),
    # The release gate's own options are ttsbench gate's too (session/gate_options.py).
    ("ttsbench-gate", "text-to-speech release gate (pytest-ttsbench)", GATE_OPTIONS + REPEAT_OPTIONS + QUALITY_OPTIONS),
)
