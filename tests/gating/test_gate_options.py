"""One declaration, one validation (#22, #27): every gate option exists in pytest and in ``ttsbench gate``,
both read it into the same values with the same defaults, both parsers refuse the same bad values with the
same message, and the one builder refuses the same combinations alike. Every ``--tts-*`` option any
subcommand takes is the plugin's own declaration."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from _pytest.config.argparsing import Parser
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from pytest_ttsbench.cli import build_parser
from pytest_ttsbench.config import Settings, load_settings
from pytest_ttsbench.plugin import pytest_addoption
from pytest_ttsbench.session.gate_options import (
    GATE_OPTIONS,
    GateOptionError,
    GateOptions,
    build_gate_config,
    read_gate_options,
)

#: one value each option takes, to parse it in both front ends
SAMPLE = {
    "--tts-threshold": "years=0.9",
    "--tts-min-n": "3",
    "--tts-floor-on": "lower",
    "--tts-max-error-rate": "0.1",
    "--tts-baseline": "base/results.jsonl",
    "--tts-regression-alpha": "0.01",
    "--tts-max-regressions": "2",
    "--tts-max-regression-rate": "0.2",
    "--tts-latency-budget": "replay=p95:800ms",
    "--tts-latency-compare-fail": "p95:20%",
    "--tts-snapshot": "strict",
    "--tts-quality-floor": "dnsmos_ovrl=3.0",
    "--tts-quality-ceiling": "clipping_ratio=0.001",
    "--tts-quality-tolerance": "dnsmos_ovrl=0.2",
}


def _args(option: str) -> list[str]:
    kind = next(o for o in GATE_OPTIONS if o.flag == option)
    return [option] if kind.action == "store_true" else [option, SAMPLE[option]]


def from_pytest(argv: Sequence[str]) -> GateOptions:
    parser = Parser(_ispytest=True)
    pytest_addoption(parser)
    namespace = parser.parse(list(argv))
    return read_gate_options(lambda dest: getattr(namespace, dest))


def from_cli(argv: Sequence[str]) -> GateOptions:
    namespace = build_parser().parse_args(["gate", "RUN", *argv])
    return read_gate_options(lambda dest: getattr(namespace, dest))


def test_every_gate_option_has_a_sample_value_or_is_a_flag() -> None:
    assert {o.flag for o in GATE_OPTIONS if o.action != "store_true"} == set(SAMPLE)


@pytest.mark.parametrize("option", [o.flag for o in GATE_OPTIONS])
def test_both_front_ends_take_every_gate_option_into_the_same_values(option: str) -> None:
    argv = _args(option)
    assert from_pytest(argv) == from_cli(argv)
    assert from_pytest(argv) != from_pytest([])  # the option is read, not dropped
    assert from_pytest([]) == from_cli([]) == GateOptions()  # and both share the defaults


REFUSED = [
    (["--tts-latency-compare-fail", "p95:20%"], "--tts-latency-compare-fail needs --tts-baseline"),
    (["--tts-fail-on-regression"], "--tts-fail-on-regression needs --tts-baseline"),
    (["--tts-quality-tolerance", "dnsmos_ovrl=0.2"], "--tts-quality-tolerance (or quality.tolerance) needs"),
    (["--tts-threshold", "years=1.5"], "a floor must be a number in [0, 1], got '1.5'"),
    (["--tts-threshold", "years=nan"], "a floor must be a number in [0, 1], got 'nan'"),
    (["--tts-threshold", "years"], "expected [SUITE/]CATEGORY=FLOOR"),
    (["--tts-quality-ceiling", "peak_dbfs=nan"], "a ceiling must be a finite number, got 'nan'"),
    (["--tts-quality-tolerance", "dnsmos_ovrl=-inf"], "a tolerance must be a finite number"),
    (["--tts-latency-budget", "replay=p95:nanms"], "--tts-latency-budget"),
    (["--tts-latency-budget", "replay=p99:1s"], "--tts-latency-budget"),
    (["--tts-latency-compare-fail", "p95"], "expected FIGURE:PERCENT"),
    (["--tts-quality-floor", "nonsense=1"], "unknown quality measure"),
    (["--tts-baseline", "missing/results.jsonl"], "--tts-baseline: no results file at"),
]


#: plain numeric options: refused by both parsers as they parse (support/checked_numbers.number_option)
REFUSED_AS_PARSED = [
    (["--tts-regression-alpha", "0"], "argument --tts-regression-alpha: must be a number in (0, 1], got '0'"),
    (["--tts-regression-alpha", "nan"], "argument --tts-regression-alpha: must be a number in (0, 1], got 'nan'"),
    (["--tts-max-regression-rate", "1.5"], "argument --tts-max-regression-rate: must be a number in [0, 1]"),
    (["--tts-max-regressions", "-1"], "argument --tts-max-regressions: must be a whole number of at least 0, got '-1'"),
    (["--tts-max-error-rate", "2"], "argument --tts-max-error-rate: must be a number in [0, 1], got '2'"),
    (["--tts-max-error-rate", "inf"], "argument --tts-max-error-rate: must be a number in [0, 1], got 'inf'"),
    (["--tts-min-n", "0"], "argument --tts-min-n: must be a whole number of at least 1, got '0'"),
]


@pytest.mark.parametrize(("argv", "message"), REFUSED_AS_PARSED)
def test_both_parsers_refuse_a_bad_number_alike(argv: list[str], message: str) -> None:
    errors = [_parse_error(lambda: from_pytest(argv)), _parse_error(lambda: from_cli(argv))]
    assert errors[0] == errors[1]
    assert errors[0] is not None and message in errors[0]


@pytest.mark.parametrize(("argv", "message"), REFUSED)
def test_both_front_ends_refuse_the_same_combinations_alike(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ttsbench.yaml").write_text("engines:\n  replay: {type: transcripts, path: r.jsonl}\n")
    settings = load_settings(tmp_path)
    errors = []
    for options in (from_pytest(argv), from_cli(argv)):
        with pytest.raises(GateOptionError) as refused:
            build_gate_config(settings, ["replay"], options, repeats=1, repeat_policy="all", contract="raw")
        errors.append(str(refused.value))
    assert errors[0] == errors[1] and message in errors[0]


# --- every option a subcommand shares with the plugin: one declaration, so one parser entry ---------------


def _plugin_actions() -> dict[str, argparse.Action]:
    parser = Parser(_ispytest=True)
    pytest_addoption(parser)
    return {flag: action for action in parser.optparser._actions for flag in action.option_strings}


def _subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(commands.choices)


ACTION_FIELDS = ("dest", "default", "type", "choices", "help", "metavar", "nargs", "const", "required")


def _shape(action: argparse.Action) -> tuple[object, ...]:
    return (type(action).__name__, *(getattr(action, name) for name in ACTION_FIELDS))


def test_every_tts_option_of_a_subcommand_is_the_plugins_own_declaration() -> None:
    plugin = _plugin_actions()
    shared = 0
    for name, subparser in _subcommand_parsers().items():
        for action in subparser._actions:
            for flag in action.option_strings:
                if flag.startswith("--tts-"):
                    assert flag in plugin, f"ttsbench {name} {flag} is no plugin option"
                    assert _shape(action) == _shape(plugin[flag]), f"ttsbench {name} {flag} differs from the plugin's"
                    shared += 1
    assert shared >= len(GATE_OPTIONS)  # ttsbench gate takes every gate option


def test_ttsbench_gate_takes_every_gate_option() -> None:
    gate = {flag for action in _subcommand_parsers()["gate"]._actions for flag in action.option_strings}
    assert {option.flag for option in GATE_OPTIONS} <= gate


def _parse_error(parse: Callable[[], object]) -> str | None:
    """The argument parser's message for a value it refuses (after its ``error:``), None when it parses."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            parse()
    except pytest.UsageError as exc:  # pytest's parser
        return str(exc).rsplit("error: ", 1)[1].strip()
    except SystemExit:  # argparse's, in ttsbench
        return stderr.getvalue().rsplit("error: ", 1)[1].strip()
    return None


def _build_error(options: GateOptions, settings: Settings) -> str | None:
    try:
        build_gate_config(settings, ["replay"], options, repeats=1, repeat_policy="all", contract="raw")
    except GateOptionError as exc:
        return str(exc)
    return None


VALUED = [o.flag for o in GATE_OPTIONS if o.action != "store_true"]
FLAGS = [o.flag for o in GATE_OPTIONS if o.action == "store_true"]
#: pieces of which option values are made: numbers, ranges' edges, the syntax of floors, budgets and bounds
NUMBERS = ["0", "1", "-1", "0.5", "1.5", "2", "nan"]
SYNTAX = ["/", "=", ":", "%", "ms", "s"]
NAMES = ["abc", "years", "form", "a", "p95", "p50", "dnsmos_ovrl", "clipping_ratio", "replay", "default"]
CHOICES = ["strict", "off", "report", "lower", "point"]
PIECES = st.sampled_from([*NUMBERS, *SYNTAX, *NAMES, *CHOICES])


@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    valued=st.lists(
        st.tuples(st.sampled_from(VALUED), st.lists(PIECES, min_size=1, max_size=5).map("".join)), max_size=3
    ),
    flags=st.lists(st.sampled_from(FLAGS), max_size=2, unique=True),
)
def test_both_front_ends_refuse_any_gate_option_value_alike(
    valued: list[tuple[str, str]], flags: list[str], tmp_path: Path
) -> None:
    """Any values, good or bad: both parsers take them into the same options or refuse them with the same
    message, and the one builder then refuses the same ones with the same message."""
    argv = [f"{flag}={value}" for flag, value in valued] + flags
    pytest_error = _parse_error(lambda: from_pytest(argv))
    cli_error = _parse_error(lambda: from_cli(argv))
    assert pytest_error == cli_error
    if pytest_error is not None:
        return
    from_plugin, from_gate = from_pytest(argv), from_cli(argv)
    assert repr(from_plugin) == repr(from_gate)  # by repr: a float option may read nan, never equal to itself
    (tmp_path / "ttsbench.yaml").write_text("engines:\n  replay: {type: transcripts, path: r.jsonl}\n")
    settings = load_settings(tmp_path)
    assert _build_error(from_plugin, settings) == _build_error(from_gate, settings)
