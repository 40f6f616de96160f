"""Property (#22): over random case files, selections, bounds and results, the gate never passes while a
bound is ``not measured`` or ``matches nothing`` (unless the run opted in to unmeasured bounds, which
never excuses one that matches nothing), and the pytest front end and ``ttsbench gate`` agree.

Both front ends are driven through what each really does, without synthesis: the options are parsed
by pytest's parser and by ``ttsbench``'s, the gate configuration built by the one function both call,
the collected facts built as the plugin's collection builds them (``SuiteScope.of`` over every item)
and as ``ttsbench gate`` reads them back from a run header written by ``build_header``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from result_rows import make_result
from test_gate_options import from_cli, from_pytest

from pytest_ttsbench.cli.gate import recorded_collection
from pytest_ttsbench.config import load_settings
from pytest_ttsbench.gating.bounds import (
    MATCHES_NOTHING,
    NOT_MEASURED,
    NOT_SELECTED,
    SuiteScope,
    case_file_source,
    declared_floors,
    scope_errors,
)
from pytest_ttsbench.gating.gate import Collected, evaluate_gate, scopes_of
from pytest_ttsbench.gating.options import build_gate_config
from pytest_ttsbench.run_model.provenance import RunHeader
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


items_strategy = st.lists(
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
).map(
    # the first item is always selected: a run that selected nothing is the collect-only question, not this one
    lambda rows: [Item(s, f"i{n}", c, f, lang, sel or n == 0, v) for n, (s, c, f, lang, sel, v) in enumerate(rows)]
)

floor_value = st.sampled_from((0.0, 0.5, 0.9, 1.0))
cli_floor = st.tuples(st.sampled_from(SUITE_NAMES), st.sampled_from(CATEGORY_NAMES + SLICE_NAMES), floor_value)
case_floor = st.tuples(st.sampled_from(SUITES), st.sampled_from(CATEGORY_NAMES + SLICE_NAMES[:4]), floor_value)


def _argv(cli: list[tuple[str | None, str, float]], min_n: int, allow: bool, error_rate: float) -> list[str]:
    argv = [f"--tts-threshold={suite + '/' if suite else ''}{key}={floor}" for suite, key, floor in cli]
    argv += [f"--tts-min-n={min_n}", f"--tts-max-error-rate={error_rate}", "--tts-snapshot=off"]
    return argv + (["--tts-allow-unmeasured-bounds"] if allow else [])


@settings(
    # fewer examples under mutmut, which runs this test once per mutant (scripts/mutmut-gate.sh)
    max_examples=10 if os.environ.get("MUTANT_UNDER_TEST") else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
@given(
    items=items_strategy,
    cli=st.lists(cli_floor, max_size=3),
    case=st.lists(case_floor, max_size=3),
    min_n=st.integers(1, 3),
    allow=st.booleans(),
    error_rate=st.sampled_from((0.0, 0.5, 1.0)),
)
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
    root = tmp_path
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
    plugin_errors = scope_errors(
        declared_floors(collected.suite_thresholds, plugin_config.floor_layers, collected.suite_sources),
        [],
        [ENGINE],
        collected.suite_scopes,
    )
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
    cli_errors = scope_errors(
        declared_floors(recorded.suite_thresholds, cli_config.floor_layers, recorded.suite_sources),
        [],
        [ENGINE],
        scopes_of(rows, recorded),
    )
    gated = evaluate_gate(rows, cli_config, recorded)

    # The two front ends agree: on what they refuse, and on every bound and reason.
    assert plugin_errors == cli_errors
    assert [b.to_dict() for b in plugin.bounds] == [b.to_dict() for b in gated.bounds]
    assert plugin.reasons == gated.reasons

    statuses = {bound.status for bound in plugin.bounds}
    # A bound matching nothing is refused up front, listed as such, and never passes.
    assert bool(plugin_errors) == (MATCHES_NOTHING in statuses)
    if MATCHES_NOTHING in statuses:
        assert plugin.reasons
    if NOT_MEASURED in statuses and not allow:
        assert plugin.reasons
    # Only a case file's own floor is "not selected" (the selection left its category out), and it never
    # fails the gate: a floor named on the command line is "not measured" instead.
    for bound in plugin.bounds:
        if bound.status == NOT_SELECTED:
            assert bound.source in collected.suite_sources.values()
            assert not any(bound.name in reason for reason in plugin.reasons)
    # Every floor named on the command line is accounted for by a bound of its own name: none vanishes.
    # (A general floor gives way to a suite-specific one on the same key in the suites that one names.)
    named = {b.name.split("/")[-1] for b in plugin.bounds if b.kind == "floor"}
    command_line = declared_floors({}, plugin_config.floor_layers[:1])
    scoped_keys = {floor.key for floor in command_line if floor.suite is not None}
    for floor in command_line:
        if floor.key != "default" and not (floor.suite is None and floor.key in scoped_keys):
            assert f"{floor.key}={floor.floor:g}" in named, floor
    # The gate file's verdict is the gate's (no exit status yet) and errors are never verdicts.
    assert plugin.to_dict()["passed"] == (not plugin.reasons)
    errors = sum(1 for row in rows if row.verdict == "error")
    assert plugin.coverage[0].measured == len(rows) - errors
    if rows and errors / len(rows) > error_rate:
        assert plugin.reasons
