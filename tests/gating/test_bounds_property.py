"""Properties of the gate's bounds (#22, #35).

Over random case files, selections, bounds and results, the gate never passes while a bound is ``not
measured`` or ``matches nothing`` (unless the run opted in to unmeasured bounds, which never excuses one
that matches nothing), and the pytest front end and ``ttsbench gate`` agree. Over random floors from the
command line, the configuration and case files, exactly one floor is in force on each bucket, the one the
documented precedence names, and it is the one the bucket is judged against.

Both front ends are driven through what each really does, without synthesis: the options are parsed
by pytest's parser and by ``ttsbench``'s, the gate configuration built by the one function both call,
the collected facts built as the plugin's collection builds them (``SuiteScope.of`` over every item)
and as ``ttsbench gate`` reads them back from a run header written by ``build_header``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from result_rows import make_result
from test_gate_options import from_cli, from_pytest

from pytest_ttsbench.cli.gate import recorded_collection
from pytest_ttsbench.config import load_settings
from pytest_ttsbench.gating.bounds import (
    ALL_SUITES,
    BREACHED,
    CLI_SOURCE,
    HELD,
    MATCHES_NOTHING,
    NOT_MEASURED,
    NOT_SELECTED,
    TOO_FEW,
    RunFacts,
    SuiteScope,
    case_file_source,
    judge_all,
    scope_errors,
)
from pytest_ttsbench.gating.gate import Collected, GateOutcome, evaluate_gate, scoped_bounds, scopes_of
from pytest_ttsbench.gating.thresholds import (
    DEFAULT_MIN_N,
    FloorSettings,
    config_floors,
    is_slice,
    parse_cli_thresholds,
    settle_floors,
)
from pytest_ttsbench.reporting.gate_file import gate_document
from pytest_ttsbench.run_model.provenance import RunHeader
from pytest_ttsbench.session.gate_options import build_gate_config
from pytest_ttsbench.session.provenance_capture import build_header

SUITES = ("alpha", "beta")
CATEGORIES = ("years", "times", "dates")
FORMS = ("western", "spelled")
VERDICTS = ("correct", "correct", "wrong", "error")
#: names a bound may use: real ones and typos of them
CATEGORY_NAMES = (*CATEGORIES, "default", "yeras", "tims")
SLICE_NAMES = ("form=western", "form=spelled", "form=westren", "fomr=western", "language=en", "language=ar")
SUITE_NAMES = (None, *SUITES, "alpah")
ENGINE = "replay"


@dataclass(frozen=True)
class Item:
    suite: str
    id: str
    category: str
    form: str
    language: str
    selected: bool
    verdict: str


def _items(rows: list[tuple[str, str, str, str, bool, str]], dropped: frozenset[str]) -> list[Item]:
    # The first item is always selected: a run that selected nothing is the collect-only question, not
    # this one. A dropped suite has nothing else selected (-k left the whole case file out).
    return [
        Item(s, f"i{n}", c, f, lang, n == 0 or (sel and s not in dropped), v)
        for n, (s, c, f, lang, sel, v) in enumerate(rows)
    ]


items_strategy = st.builds(
    _items,
    st.lists(
        st.tuples(
            st.sampled_from(SUITES),
            st.sampled_from(CATEGORIES),
            st.sampled_from(FORMS),
            st.sampled_from(("en", "en-GB")),
            st.booleans(),
            st.sampled_from(VERDICTS),
        ),
        min_size=1,
        max_size=10,
    ),
    st.frozensets(st.sampled_from(SUITES), max_size=1),
)

floor_value = st.sampled_from((0.0, 0.5, 0.9, 1.0))
cli_floor = st.tuples(st.sampled_from(SUITE_NAMES), st.sampled_from(CATEGORY_NAMES + SLICE_NAMES), floor_value)
case_floor = st.tuples(st.sampled_from(SUITES), st.sampled_from(CATEGORY_NAMES + SLICE_NAMES[:4]), floor_value)


def _argv(cli: list[tuple[str | None, str, float]], min_n: int, allow: bool, error_rate: float) -> list[str]:
    argv = [f"--tts-threshold={suite + '/' if suite else ''}{key}={floor}" for suite, key, floor in cli]
    argv += [f"--tts-min-n={min_n}", f"--tts-max-error-rate={error_rate}", "--tts-snapshot=off"]
    return argv + (["--tts-allow-unmeasured-bounds"] if allow else [])


@dataclass
class BothWays:
    """One random run gated by the plugin and by ``ttsbench gate``, each as it really does it."""

    collected: Collected
    plugin_errors: list[str]
    plugin: GateOutcome
    cli_errors: list[str]
    gated: GateOutcome
    command_line: list  # the plugin's floors named with --tts-threshold


def _gate_both_ways(
    root: Path, items: list[Item], cli: list, case: list, min_n: int, allow: bool, error_rate: float
) -> tuple[BothWays, list]:
    (root / "ttsbench.yaml").write_text(f"engines:\n  {ENGINE}: {{type: transcripts, path: r.jsonl}}\n")
    project = load_settings(root)
    loaded = sorted({item.suite for item in items})
    thresholds = {suite: {key: floor for s, key, floor in case if s == suite} for suite in loaded}
    files = {suite: root / "cases" / f"{suite}.yaml" for suite in loaded}
    rows = [
        make_result(
            engine=ENGINE,
            suite=item.suite,
            id=f"{item.suite}/{item.id}",
            category=item.category,
            language=item.language,
            facets={"form": item.form},
            verdict=item.verdict,
        )
        for item in items
        if item.selected
    ]
    argv = _argv(cli, min_n, allow, error_rate)

    # --- the plugin: its collection's facts, its options ---
    plugin_config = build_gate_config(
        project, [ENGINE], from_pytest(argv), repeats=1, repeat_policy="all", contract="raw"
    )
    collected = Collected(
        suite_thresholds={s: dict(t) for s, t in thresholds.items()},
        suite_scopes={
            suite: SuiteScope.of((i.category, i.language, {"form": i.form}) for i in items if i.suite == suite)
            for suite in loaded
        },
        suite_sources={suite: case_file_source(path, project.base_dir) for suite, path in files.items()},
        selected={ENGINE: len(rows)},
    )
    # the collection-time check asks the very bounds the gate judges (session/benchmark.py)
    plugin_errors = scope_errors(scoped_bounds(plugin_config, collected), list(project.engines), collected.suite_scopes)
    plugin = evaluate_gate(rows, plugin_config, collected)

    # --- ttsbench gate: the run header as the plugin writes it, read back ---
    header = build_header(
        project,
        [ENGINE],
        lambda profile: {"routes": [{"type": "command", "name": "echo", "command": ["true"]}]},
        suite_files=files,
        suite_thresholds=collected.suite_thresholds,
        suite_scopes={suite: scope.to_dict() for suite, scope in collected.suite_scopes.items()},
    )
    header = RunHeader.from_dict(json.loads(json.dumps(header.to_dict())))
    cli_config = build_gate_config(project, [ENGINE], from_cli(argv), repeats=1, repeat_policy="all", contract="raw")
    recorded = recorded_collection(rows, header, project)
    cli_errors = scope_errors(scoped_bounds(cli_config, recorded), list(project.engines), scopes_of(rows, recorded))
    gated = evaluate_gate(rows, cli_config, recorded)
    command_line = [floor for floor in plugin_config.floors if floor.from_command_line]
    return BothWays(collected, plugin_errors, plugin, cli_errors, gated, command_line), rows


GATE_SETTINGS = settings(
    # fewer examples under mutmut, which runs this test once per mutant (scripts/mutmut-gate.sh)
    max_examples=10 if os.environ.get("MUTANT_UNDER_TEST") else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
GATE_RUNS = given(
    items=items_strategy,
    cli=st.lists(cli_floor, max_size=3),
    case=st.lists(case_floor, max_size=3),
    min_n=st.integers(1, 3),
    allow=st.booleans(),
    error_rate=st.sampled_from((0.0, 0.5, 1.0)),
)


@GATE_SETTINGS
@GATE_RUNS
@example(
    items=[Item("alpha", "i0", "years", "western", "en", True, "correct")],
    cli=[("alpah", "default", 0.9)],
    case=[],
    min_n=1,
    allow=True,
    error_rate=0.0,
)  # found by the property: a default floor on a suite no case file defines matches nothing
@example(
    items=[
        Item("beta", "i0", "years", "western", "en", True, "correct"),
        Item("beta", "i1", "dates", "western", "en", False, "correct"),
        Item("alpha", "i2", "dates", "western", "en", True, "correct"),
    ],
    cli=[(None, "dates", 0.0), ("beta", "dates", 0.5)],
    case=[],
    min_n=1,
    allow=False,
    error_rate=0.0,
)  # found by the property: a general floor listed beta's unmeasured bucket before beta's own floor on it
def test_the_gate_never_passes_over_an_unmeasured_bound_and_both_front_ends_agree(
    tmp_path: Path, items: list[Item], cli: list, case: list, min_n: int, allow: bool, error_rate: float
) -> None:
    both, rows = _gate_both_ways(tmp_path, items, cli, case, min_n, allow, error_rate)
    plugin, collected, plugin_errors = both.plugin, both.collected, both.plugin_errors

    # The two front ends agree: on what they refuse, and on every judged entry and reason.
    assert plugin_errors == both.cli_errors
    assert [b.to_dict() for b in plugin.judged] == [b.to_dict() for b in both.gated.judged]
    assert plugin.reasons == both.gated.reasons
    assert plugin.checks == both.gated.checks

    statuses = {bound.status for bound in plugin.judged}
    # A bound matching nothing is refused up front, listed as such, and never passes.
    assert bool(plugin_errors) == (MATCHES_NOTHING in statuses)
    if MATCHES_NOTHING in statuses:
        assert plugin.reasons
    if NOT_MEASURED in statuses and not allow:
        assert plugin.reasons
    # Only a case file's own floor is "not selected" (the selection left its category out), and it never
    # fails the gate: a floor named on the command line is "not measured" instead.
    for bound in plugin.judged:
        if bound.status == NOT_SELECTED:
            assert bound.source in collected.suite_sources.values()
            assert not any(bound.name in reason for reason in plugin.reasons)
    # A floor named on the command line is never ``not selected``: the user asked this run.
    assert not [b for b in plugin.judged if b.source == CLI_SOURCE and b.status == NOT_SELECTED]
    # Each bucket is judged against one floor: no engine's bucket has two floor entries.
    buckets = [(b.engine, b.name.rpartition("=")[0]) for b in plugin.judged if b.kind == "floor" and b.engine]
    assert len(buckets) == len(set(buckets)), buckets
    _accounted_for(both, played={row.suite for row in rows})
    # The gate file's verdict is the gate's (no exit status yet) and errors are never verdicts.
    assert gate_document(plugin)["passed"] == (not plugin.reasons)
    assert gate_document(plugin)["bounds"] == [b.to_dict() for b in plugin.judged]
    errors = sum(1 for row in rows if row.verdict == "error")
    assert plugin.coverage[0].measured == len(rows) - errors
    if rows and errors / len(rows) > error_rate:
        assert plugin.reasons


def _accounted_for(both: BothWays, played: set[str] | None = None) -> None:
    """Every floor named on the command line is accounted for by an entry of its own name: none vanishes.
    (A general floor gives way to a suite-specific one on the same key in the suites that one names.)

    ``played``: check only the general category floors that a suite the run played defines (the rest are
    :func:`test_every_floor_named_on_the_command_line_is_accounted_for`'s)."""
    named = {b.name.split("/")[-1] for b in both.plugin.judged if b.kind == "floor"}
    scoped_keys = {floor.key for floor in both.command_line if floor.suite is not None}
    scopes = both.collected.suite_scopes
    for floor in both.command_line:
        if floor.key == "default" or (floor.suite is None and floor.key in scoped_keys):
            continue
        defined = {suite for suite, scope in scopes.items() if floor.key in scope.categories}
        if played is not None and floor.suite is None and defined and not defined & played:
            continue
        assert f"{floor.key}={floor.floor:g}" in named, floor


@GATE_SETTINGS
@GATE_RUNS
@example(
    items=[
        Item("beta", "i0", "dates", "western", "en", True, "correct"),
        Item("alpha", "i1", "years", "western", "en", False, "correct"),
    ],
    cli=[(None, "years", 0.9)],
    case=[],
    min_n=1,
    allow=False,
    error_rate=0.0,
)  # -k left out suite alpha, the only one with years: the user's years floor must still be asked
def test_every_floor_named_on_the_command_line_is_accounted_for(
    tmp_path: Path, items: list[Item], cli: list, case: list, min_n: int, allow: bool, error_rate: float
) -> None:
    both, _ = _gate_both_ways(tmp_path, items, cli, case, min_n, allow, error_rate)
    _accounted_for(both)
    # and, being named by the user, one that measured nothing fails unless partial runs are allowed
    if any(b.source == CLI_SOURCE and b.status == NOT_MEASURED for b in both.plugin.judged) and not allow:
        assert both.plugin.reasons


# --- precedence: exactly one floor in force per bucket, the one the documented precedence names ---

PRECEDENCE_KEYS = (*CATEGORIES, "default", "form=western", "form=spelled", "language=en", "category=years")
CONFIG_SOURCE = "ttsbench.yaml"
Table = Mapping[tuple[str | None, str], float]


def _documented_floor(
    suite: str, key: str, cli: Table, config: Table, case: Mapping[str, Mapping[str, float]], sources: Mapping[str, str]
) -> tuple[float, str] | None:
    """The floor a bucket is judged against, as docs/gating.md and thresholds.py's docstring state it: a
    category takes its own key before ``default``; within a key the command line, then the configuration,
    then the suite's case file; within one source a suite's own floor before the general one. A slice
    has no ``default``; one across suites (``*``) is named only on the command line or in the configuration."""
    for wanted in (key,) if is_slice(key) else (key, "default"):
        for table, source in ((cli, CLI_SOURCE), (config, CONFIG_SOURCE)):
            scopes = (None,) if suite == ALL_SUITES else (suite,) if is_slice(key) else (suite, None)
            for scope in scopes:
                if (scope, wanted) in table:
                    return table[(scope, wanted)], source
        if suite != ALL_SUITES and wanted in case.get(suite, {}):
            return case[suite][wanted], sources[suite]
    return None


def _documented_settings(suite: str, layers: list[dict[str, object]]) -> tuple[int, str]:
    """``min_n`` and ``floor_on``: the command line's, else the configuration's, else the suite's case file's."""
    min_n = next((layer["min_n"] for layer in layers if layer.get("min_n") is not None), DEFAULT_MIN_N)
    floor_on = next((layer["floor_on"] for layer in layers if layer.get("floor_on") is not None), "point")
    return int(str(min_n)), str(floor_on)


share = st.sampled_from((0.0, 0.25, 0.5, 0.75, 0.9, 1.0))
scoped_floor = st.tuples(st.sampled_from((None, *SUITES)), st.sampled_from(PRECEDENCE_KEYS), share)
setting = st.fixed_dictionaries(
    {}, optional={"min_n": st.integers(1, 4), "floor_on": st.sampled_from(("point", "lower"))}
)


@settings(max_examples=10 if os.environ.get("MUTANT_UNDER_TEST") else 200, deadline=None)
@given(
    cli=st.lists(scoped_floor, max_size=5),
    config=st.lists(scoped_floor, max_size=5),
    case=st.dictionaries(
        st.sampled_from(SUITES), st.dictionaries(st.sampled_from(PRECEDENCE_KEYS), share, max_size=4), max_size=2
    ),
    cli_settings=setting,
    config_settings=setting,
    case_settings=st.dictionaries(st.sampled_from(SUITES), setting, max_size=2),
    rows=st.lists(
        st.tuples(st.sampled_from(SUITES), st.sampled_from(CATEGORIES), st.sampled_from(FORMS), st.booleans()),
        max_size=12,
    ),
)
def test_exactly_one_floor_is_in_force_per_bucket_and_it_is_the_documented_one(
    cli: list, config: list, case: dict, cli_settings: dict, config_settings: dict, case_settings: dict, rows: list
) -> None:
    # Each source written as its reader reads it: option strings, a configuration mapping, case files.
    cli_floors = parse_cli_thresholds([f"{s + '/' if s else ''}{k}={v}" for s, k, v in cli])
    raw_config: dict[str, object] = dict(config_settings)
    for suite, key, value in config:
        if suite is None:
            raw_config[key] = value
        else:
            inner = raw_config.setdefault(suite, {})
            assert isinstance(inner, dict)
            inner[key] = value
    config_list, config_floor_settings = config_floors(raw_config, CONFIG_SOURCE)
    thresholds = {suite: {**floors, **case_settings.get(suite, {})} for suite, floors in case.items()}
    thresholds.update({s: dict(v) for s, v in case_settings.items() if s not in case})
    sources = {suite: f"cases/{suite}.yaml" for suite in SUITES}
    given_settings = FloorSettings.checked(
        cli_settings.get("min_n"), cli_settings.get("floor_on"), ("--tts-min-n", "--tts-floor-on")
    )
    floors = settle_floors([*cli_floors, *config_list], [given_settings, config_floor_settings], thresholds, sources)

    # The reference: each source as a table, a repeated option's last value winning (a mapping has one).
    cli_table = {(s, k): v for s, k, v in cli}
    config_table: dict[tuple[str | None, str], float] = {}
    for suite, key, value in config:
        config_table[(suite, key)] = value
    case_table = {suite: {k: v for k, v in floors_.items()} for suite, floors_ in case.items()}

    buckets = [(s, k) for s in SUITES for k in PRECEDENCE_KEYS if k != "default"]
    buckets += [(ALL_SUITES, k) for k in PRECEDENCE_KEYS if is_slice(k)]
    for suite, key in buckets:
        in_force = [floor for floor in floors if floor.in_force(suite, key)]
        expected = _documented_floor(suite, key, cli_table, config_table, case_table, sources)
        assert [(f.floor, f.source) for f in in_force] == ([expected] if expected else []), (suite, key)
    for category in CATEGORIES:
        # Across suites (the bucket of a category no played suite defines) only a general floor on that very
        # category speaks, never a default or a suite's own: the first source's, as for any bucket.
        in_force = [floor for floor in floors if floor.in_force(ALL_SUITES, category)]
        general = [(k, v) for (s, k), v in cli_table.items() if s is None and k == category]
        general += [(k, v) for (s, k), v in config_table.items() if s is None and k == category]
        assert [f.floor for f in in_force] == [v for _, v in general[:1]], category

    # Judged over a run: each bucket with targets is judged once, against that floor, with its settings.
    results = tuple(
        make_result(
            engine=ENGINE,
            suite=suite,
            id=f"{suite}/i{n}",
            category=category,
            facets={"form": form},
            verdict="correct" if correct else "wrong",
        )
        for n, (suite, category, form, correct) in enumerate(rows)
    )
    scope = SuiteScope.of([(c, "en", {"form": f}) for c in CATEGORIES for f in FORMS])
    run = RunFacts(results, results, (ENGINE,), {suite: scope for suite in SUITES})
    judged = judge_all(floors, run)
    assert MATCHES_NOTHING not in {entry.status for entry in judged}
    measured = {}
    for entry in judged:
        if entry.measured is None:
            continue
        figures = entry.measured
        bucket = (figures["suite"], figures["category"])
        assert bucket not in measured, f"{bucket} judged twice"
        measured[bucket] = figures
        expected = _documented_floor(*bucket, cli_table, config_table, case_table, sources)
        assert expected is not None and (figures["floor"], entry.source) == expected
        suite = bucket[0]
        layers = [cli_settings, config_settings, case_settings.get(suite, {}) if suite != ALL_SUITES else {}]
        assert (figures["min_n"], figures["floor_on"]) == _documented_settings(suite, layers)
        value = figures["ci95"][0] if figures["floor_on"] == "lower" else figures["strict_accuracy"]
        assert figures["measured"] == value
        status = TOO_FEW if figures["n"] < figures["min_n"] else BREACHED if value < figures["floor"] else HELD
        assert entry.status == status and figures["breached"] == (status == BREACHED)
        assert bool(entry.reasons) == (status == BREACHED)

    def members(suite: str, key: str) -> int:
        field_name, _, value = key.partition("=")
        return sum(
            1
            for row in results
            if (suite == ALL_SUITES or row.suite == suite)
            and (
                row.category == key
                if not is_slice(key)
                else {"form": row.facets.get("form"), "language": row.language, "category": row.category}[field_name]
                == value
            )
        )

    wanted = {
        (suite, key)
        for suite, key in buckets
        if members(suite, key) and _documented_floor(suite, key, cli_table, config_table, case_table, sources)
    }
    assert set(measured) == wanted
