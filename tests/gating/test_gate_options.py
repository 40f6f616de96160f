"""One declaration, one validation (#22): every gate option exists in pytest and in ``ttsbench gate``,
both read it into the same values, and both refuse the same combinations with the same message."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from _pytest.config.argparsing import Parser

from pytest_ttsbench.cli import build_parser
from pytest_ttsbench.config import load_settings
from pytest_ttsbench.gating.options import (
    GATE_OPTIONS,
    GateOptionError,
    GateOptions,
    build_gate_config,
    read_gate_options,
)
from pytest_ttsbench.plugin import pytest_addoption

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
    (["--tts-regression-alpha", "0"], "--tts-regression-alpha must be in (0, 1]"),
    (["--tts-max-regression-rate", "1.5"], "--tts-max-regression-rate"),
    (["--tts-max-regressions", "-1"], "--tts-max-regressions at least 0"),
    (["--tts-max-error-rate", "2"], "--tts-max-error-rate must be in [0, 1]"),
    (["--tts-threshold", "years=1.5"], "a floor must be a number between 0 and 1"),
    (["--tts-threshold", "years"], "expected [SUITE/]CATEGORY=FLOOR"),
    (["--tts-min-n", "0"], "min_n must be a whole number of at least 1"),
    (["--tts-latency-budget", "replay=p99:1s"], "--tts-latency-budget"),
    (["--tts-latency-compare-fail", "p95"], "expected FIGURE:PERCENT"),
    (["--tts-quality-floor", "nonsense=1"], "unknown quality measure"),
    (["--tts-baseline", "missing/results.jsonl"], "--tts-baseline: no results file at"),
]


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
