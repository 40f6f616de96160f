"""``ttsbench gate RUN``: the plugin's release gate over a run on disk (a merged run of shards, typically).

A run split into shards (``--tts-shard I/N``) and joined with ``ttsbench merge`` never had one
pytest session that saw every item, so nothing gated it. :func:`gate_run` builds what the
plugin's session holds at its end — the gate's :class:`~pytest_ttsbench.gating.gate.GateConfig`
from the same options and files, and the :class:`~pytest_ttsbench.gating.gate.Collected` facts
(the suites' own floors from the run header, the failed tests from the rows) — and calls
:func:`~pytest_ttsbench.gating.gate.evaluate_gate` and
:func:`~pytest_ttsbench.gating.gate.final_status`, so the outcome, the exit status and the
``<results>.gate.json`` are those the unsplit run would have had.

The exit status before the gate is derived from the rows the way pytest reaches it: a target
that is auto-evaluable and not correct failed its test, unless a known gap covers it (XFAIL);
a known gap that came out correct is an XPASS, a failure only with strict xfail.

The options are the plugin's gate options, declared once for both (session/gate_options.py) and checked
by the same function, and the exit status is the one the unsplit pytest run would have ended
with: 0 the gate passed, 1 it failed (2 for bad input, a refused option combination among it).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_ttsbench.cli.common import EXIT_USAGE
from pytest_ttsbench.config import ConfigError, Settings, load_settings
from pytest_ttsbench.gating.bounds import SuiteScope, case_file_source, fails, scope_errors
from pytest_ttsbench.gating.gate import (
    Collected,
    GateConfig,
    GateOutcome,
    evaluate_gate,
    final_status,
    scoped_bounds,
    scopes_of,
    write_gate_updates,
)
from pytest_ttsbench.protocols import (
    DEFAULT_PROTOCOL,
    PROTOCOL_HELP,
    PROTOCOLS,
    require_one_protocol,
    under_protocol,
)
from pytest_ttsbench.reporting.gate_file import write_gate
from pytest_ttsbench.reporting.terminal import gate_lines
from pytest_ttsbench.run_model.known_gaps import KnownGaps
from pytest_ttsbench.run_model.manifest import UnverifiedRunError, verify_recorded_run
from pytest_ttsbench.run_model.provenance import RunHeader, RunHeaderError, read_header
from pytest_ttsbench.run_model.reader import gate_path, results_file
from pytest_ttsbench.run_model.repeats import failure_is_a_draw
from pytest_ttsbench.run_model.results import ItemResult, read_results
from pytest_ttsbench.session.gate_options import (
    ALLOW_UNVERIFIED_OPTION,
    GateOptionError,
    GateOptions,
    MeasureSetsChoice,
    add_gate_options,
    build_gate_config,
    read_gate_options,
)


def failed_tests(
    rows: Sequence[ItemResult], known_gaps: Mapping[str, KnownGaps], strict_xfail: bool, repeat_policy: str
) -> tuple[set[tuple[str, str]], int]:
    """(verdict failures as (engine, target key), other failures): what pytest would have counted.

    A failed generation of an engine that made several under a policy other than ``all`` read XFAIL
    (:func:`~pytest_ttsbench.run_model.repeats.failure_is_a_draw`): the gate judges its item instead.
    An engine's generations are those its rows show.
    """
    generations = Counter[str]()
    for row in rows:
        generations[row.engine] = max(generations[row.engine], row.repeat + 1)
    verdict_failures: set[tuple[str, str]] = set()
    other = 0
    for row in rows:
        if not row.auto_evaluable:
            continue  # recorded, then skipped
        gaps = known_gaps.get(row.engine)
        known = gaps is not None and gaps.match(row.id, row.key) is not None
        if row.verdict != "correct" and not known:
            if not failure_is_a_draw(generations[row.engine], repeat_policy):
                verdict_failures.add((row.engine, row.key))
        elif row.verdict == "correct" and known and strict_xfail:
            other += 1  # XPASS(strict)
    return verdict_failures, other


def recorded_collection(rows: Sequence[ItemResult], header: RunHeader | None, settings: Settings) -> Collected:
    """What the plugin's session would have collected, from the run header and the rows."""
    collected = Collected(header=header)
    if header is not None:
        files = header.case_files
        collected.suite_thresholds = {suite: dict(entry.get("thresholds") or {}) for suite, entry in files.items()}
        collected.suite_quality = {suite: dict(entry.get("quality") or {}) for suite, entry in files.items()}
        collected.suite_sources = {
            suite: case_file_source(entry["path"], settings.base_dir)
            for suite, entry in files.items()
            if entry.get("path")
        }
        collected.suite_scopes = {
            suite: SuiteScope.from_dict(entry["scopes"]) for suite, entry in files.items() if entry.get("scopes")
        }
        collected.missing_shards = list(header.missing_shards)
        # an engine that could not start left no row: the run said why, and the gate excuses it as the run's did
        collected.unavailable = dict(header.unavailable)
        # what the run matched its known gaps against, -k's leftovers included (else: the rows alone)
        collected.ids = {(engine, i) for engine, ids in (header.collected_ids or {}).items() for i in ids}
    if header is not None and header.selected is not None:
        # What the run selected, so a run killed midway (or a shard cut short) is judged incomplete,
        # as its own session would have judged it, not complete over the rows it had time to write.
        collected.selected = dict(header.selected)
    else:
        # A header that does not say (written by an older version, or by an xdist run killed before
        # its workers reported): the rows are all the run says about its selection.
        collected.selected = dict(Counter(row.engine for row in rows))
    return collected


def _recorded_config(
    rows: Sequence[ItemResult], header: RunHeader | None, settings: Settings, options: GateOptions, protocol: str
) -> GateConfig:
    """The gate's configuration for a recorded run: what its header says of the run, as the plugin had it."""
    engines = list(dict.fromkeys(row.engine for row in rows))
    if header is None:
        return build_gate_config(settings, engines, options, repeats=1, repeat_policy="all", contract=None,
                                 protocol=protocol)  # fmt: skip
    return build_gate_config(
        settings,
        list(header.engines) or engines,  # the order the run named them in, as the plugin gates them
        options,
        repeats=header.repeats,
        repeat_policy=header.repeat_policy,
        contract=header.contract,
        protocol=protocol,
        # a header that does not say which sets the run took is judged at the gate
        quality_sets=tuple(header.quality_sets) if header.quality_sets is not None else None,
        # as the plugin refuses them when the session starts
        sets_chosen=MeasureSetsChoice("its run header", "gate a run measured with --tts-quality {sets}"),
    )


def gate_run(results_path: Path, settings: Settings, options: GateOptions, protocol: str | None = None) -> GateOutcome:
    """Gate the run in ``results_path`` and write its gate file beside it (and any planned rewrites).

    ``protocol``: whose verdicts are gated, the run's and the baseline's alike (``--protocol``);
    None: the run's own, which must be one.
    """
    unchecked: str | None = None
    try:
        unverified = verify_recorded_run(
            results_path, allow_unverified=options.tts_allow_unverified, flag=ALLOW_UNVERIFIED_OPTION
        )
    except UnverifiedRunError as exc:
        if not exc.no_manifest:
            raise
        # A run killed midway has no manifest: gated all the same (it says what it left undone), and failed.
        unchecked = str(exc)
        unverified = (f"unverified: {exc}",)
    header = read_header(results_path)
    recorded = read_results(results_path)
    protocol = protocol or require_one_protocol({str(results_path): recorded}) or DEFAULT_PROTOCOL
    rows = [under_protocol(row, protocol, str(results_path)) for row in recorded]
    config = _recorded_config(rows, header, settings, options, protocol)
    config = replace(config, unverified=(*unverified, *config.unverified))
    collected = recorded_collection(rows, header, settings)
    collected.verdict_failures, collected.other_failures = failed_tests(
        rows, config.known_gaps, options.tts_strict_xfail, config.repeat_policy
    )
    # A bound whose scope the run's case files do not define is refused, as the plugin refuses it.
    errors = scope_errors(scoped_bounds(config, collected), list(settings.engines), scopes_of(rows, collected))
    if errors:
        raise GateOptionError("\n".join(errors))
    status = 1 if collected.verdict_failures or collected.other_failures else 0
    outcome = evaluate_gate(rows, config, collected)
    if unchecked is not None:
        outcome.judged.append(fails(unchecked))
    write_gate_updates(outcome)
    outcome.exitstatus = final_status(outcome, status)
    write_gate(gate_path(results_path), outcome)
    return outcome


def _cmd_gate(args: argparse.Namespace) -> int:
    try:
        results = results_file(Path(args.run))
        settings = load_settings(Path(args.rootdir).resolve())
        options = read_gate_options(lambda dest: getattr(args, dest))
        outcome = gate_run(results, settings, options, protocol=args.protocol)
    except (OSError, ValueError, ConfigError, RunHeaderError) as exc:  # GateOptionError is a ValueError
        print(f"ttsbench gate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in gate_lines(outcome):
        print(line)
    print(f"gate file: {gate_path(results)}")
    return int(outcome.exitstatus or 0)


def add_command(commands: Any) -> None:
    p = commands.add_parser(
        "gate",
        help="the release gate over a run on disk (e.g. merged shards), with the plugin's options and exit statuses",
    )
    p.add_argument("run", metavar="RUN", help="a results file or a run folder holding results.jsonl")
    p.add_argument("--rootdir", default=".", help="where ttsbench.yaml and known_gaps/ are (default: .)")
    add_gate_options(p.add_argument)
    # the spelling every other subcommand takes, for the same opt-in
    p.add_argument(
        "--allow-unverified", dest="tts_allow_unverified", action="store_true", help="as --tts-allow-unverified"
    )
    p.add_argument("--protocol", choices=PROTOCOLS, help=f"the verdicts gated: {PROTOCOL_HELP} (default: the run's)")
    p.set_defaults(func=_cmd_gate)
