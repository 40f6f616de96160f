"""Values that cannot judge are refused when they are read (#35): every numeric field of the case file's
and the configuration's schema, the configuration's numeric fields the schema leaves open (floors, quality
bounds, latency budgets, adapter options), every numeric option of the plugin and of every ``ttsbench``
subcommand, and the compound options that carry a number (``years=0.9``), fed NaN, an infinity or a value
outside the field's range, are refused with the file or option, the field and the value, never judged."""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from _pytest.config.argparsing import Parser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ttsbench.cases.loader import parse_suite
from pytest_ttsbench.cases.model import CaseFileError
from pytest_ttsbench.cases.schema import CASE_FILE_SCHEMA
from pytest_ttsbench.cli import build_parser
from pytest_ttsbench.config import CONFIG_SCHEMA, ConfigError, load_settings
from pytest_ttsbench.plugin import pytest_addoption
from pytest_ttsbench.session.gate_options import GateOptionError, GateOptions, build_gate_config
from pytest_ttsbench.support.checked_numbers import NumberRange

NON_FINITE = [math.nan, math.inf, -math.inf]
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# --- the numeric fields a schema declares --------------------------------------------------------------------


def numeric_fields(schema: Mapping[str, Any], path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], dict]]:
    """(path, node) of every node of ``schema`` that takes a number; a map's open keys become ``x``, a
    list's items index 0, each branch of a ``oneOf`` is walked."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    if {"number", "integer"} & set(kinds):
        yield path, dict(schema)
    for key, sub in schema.get("properties", {}).items():
        yield from numeric_fields(sub, (*path, key))
    if isinstance(schema.get("additionalProperties"), Mapping):
        yield from numeric_fields(schema["additionalProperties"], (*path, "x"))
    if isinstance(schema.get("items"), Mapping):
        yield from numeric_fields(schema["items"], (*path, 0))
    for branch in schema.get("oneOf", []):
        yield from numeric_fields(branch, path)


def out_of_range(node: Mapping[str, Any]) -> list[float]:
    """Finite values the node's own range refuses: below its minimum, above its maximum, a fraction for a
    whole number."""
    bad: list[float] = []
    if "minimum" in node:
        bad.append(node["minimum"] - 1)
    if "exclusiveMinimum" in node:
        bad.append(node["exclusiveMinimum"])
    if "maximum" in node:
        bad.append(node["maximum"] + 1)
    if node.get("type") == "integer":
        bad.append(1.5)
    return bad


def bad_values(node: Mapping[str, Any]) -> list[float]:
    return [*NON_FINITE, *out_of_range(node)]


def with_value(document: Mapping[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A deep copy of ``document`` with ``value`` at ``path`` (maps and lists made as needed)."""
    copy: Any = json.loads(json.dumps(document))
    here = copy
    for key, following in itertools.pairwise(path):
        if isinstance(key, int):
            here = here[key]
            continue
        if key not in here or not isinstance(here[key], (dict, list)):
            here[key] = [{}] if isinstance(following, int) else {}
        here = here[key]
    here[path[-1]] = value
    return copy


def dotted(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path)


# --- case files ----------------------------------------------------------------------------------------------

CASE_FILE = {
    "suite": "demo",
    "language": "en",
    "scorer": "numbers",
    "items": [{"id": "a", "category": "years", "text": "In 2026.", "expect": {"values": ["2026"]}}],
}
CASE_FIELDS = list(numeric_fields(CASE_FILE_SCHEMA))
# Fields the case file's schema leaves open, read as numbers by the gate: quality bounds.
OPEN_CASE_FIELDS = [("quality", "floors", "dnsmos_ovrl"), ("quality", "ceilings", "peak_dbfs")]


def test_the_case_file_schema_has_numeric_fields_to_probe() -> None:
    assert {dotted(path) for path, _ in CASE_FIELDS} >= {"thresholds.min_n", "thresholds.x", "items.0.facets.x"}


def _case_file_refusal(document: dict[str, Any]) -> str:
    with pytest.raises(CaseFileError) as refused:
        parse_suite(Path("cases/demo.yaml"), document)
    return str(refused.value)


@PROPERTY
@given(field=st.sampled_from(CASE_FIELDS), data=st.data())
def test_every_numeric_case_file_field_refuses_a_value_that_cannot_judge(
    field: tuple[tuple[Any, ...], dict], data: st.DataObject
) -> None:
    path, node = field
    value = data.draw(st.sampled_from(bad_values(node)))
    message = _case_file_refusal(with_value(CASE_FILE, path, value))
    named = dotted(path[2:]) if path[0] == "items" else dotted(path)
    assert "cases/demo.yaml" in message and named.replace(".x", "") in message.replace(".x", "")
    assert repr(value) in message or str(value) in message


@pytest.mark.parametrize("path", OPEN_CASE_FIELDS, ids=dotted)
@pytest.mark.parametrize("value", NON_FINITE, ids=repr)
def test_an_open_numeric_case_file_field_refuses_nan_and_infinity(path: tuple[str, ...], value: float) -> None:
    message = _case_file_refusal(with_value(CASE_FILE, path, value))
    assert dotted(path) in message and repr(value) in message


# --- the configuration ---------------------------------------------------------------------------------------

CONFIG = {"engines": {"x": {"type": "transcripts", "path": "r.jsonl"}}}
CONFIG_FIELDS = list(numeric_fields(CONFIG_SCHEMA))
# Fields the configuration's schema leaves open, read as numbers later: refused as the file is read.
OPEN_CONFIG_FIELDS = [
    ("thresholds", "years"),
    ("thresholds", "demo", "years"),
    ("thresholds", "min_n"),
    ("quality", "floors", "dnsmos_ovrl"),
    ("quality", "ceilings", "peak_dbfs"),
    ("quality", "tolerance", "dnsmos_ovrl"),
    ("latency_budgets", "x", "p95"),
    ("engines", "x", "timeout_s"),
    ("engines", "x", "concurrency"),
    ("asr", "beam_size"),
]


def test_the_configuration_schema_has_numeric_fields_to_probe() -> None:
    assert {dotted(path) for path, _ in CONFIG_FIELDS} >= {
        "limits.max_clip_seconds",
        "limits.max_text_chars",
        "engines.x.repeats",
        "engines.x.max_clip_seconds",
    }


def _config_refusal(tmp_path: Path, document: dict[str, Any]) -> str:
    (tmp_path / "ttsbench.yaml").write_text(json.dumps(document), encoding="utf-8")  # JSON is YAML
    # NaN and the infinities as YAML spells them (.nan, .inf), which JSON cannot
    text = (tmp_path / "ttsbench.yaml").read_text(encoding="utf-8")
    text = text.replace("-Infinity", "-.inf").replace("Infinity", ".inf").replace("NaN", ".nan")
    (tmp_path / "ttsbench.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_settings(tmp_path)
    return str(refused.value)


@PROPERTY
@given(field=st.sampled_from(CONFIG_FIELDS + [(path, {}) for path in OPEN_CONFIG_FIELDS]), data=st.data())
def test_every_numeric_configuration_field_refuses_a_value_that_cannot_judge(
    field: tuple[tuple[Any, ...], dict], data: st.DataObject, tmp_path: Path
) -> None:
    path, node = field
    value = data.draw(st.sampled_from(bad_values(node)))
    message = _config_refusal(tmp_path, with_value(CONFIG, path, value))
    assert "ttsbench.yaml" in message and f"field {dotted(path)}" in message
    assert repr(value) in message or f"{value:g}" in message


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("years", 1.5, "field thresholds.years: a floor must be a number in [0, 1], got 1.5"),
        ("min_n", 0, "field thresholds.min_n: min_n must be a whole number of at least 1, got 0"),
    ],
)
def test_open_configuration_floors_out_of_range_are_refused_before_the_run(
    field: str, value: float, message: str, tmp_path: Path
) -> None:
    (tmp_path / "ttsbench.yaml").write_text(json.dumps({"thresholds": {field: value}}), encoding="utf-8")
    with pytest.raises(GateOptionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_gate_config(load_settings(tmp_path), [], GateOptions(), repeats=1, repeat_policy="all", contract=None)


# --- options -------------------------------------------------------------------------------------------------


def _plugin_parser() -> Parser:
    parser = Parser(_ispytest=True)
    pytest_addoption(parser)
    return parser


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(commands.choices)


def numeric_options() -> list[tuple[str, str, NumberRange]]:
    """(front end, flag, range) of every option whose value is a number: the plugin's, every subcommand's."""
    found = [
        ("pytest", option.names()[-1], option.attrs()["type"].allowed)
        for group in _plugin_parser()._groups
        for option in group.options
        if hasattr(option.attrs().get("type"), "allowed")
    ]
    for name, parser in _subcommands().items():
        found += [
            (name, action.option_strings[-1], action.type.allowed)  # type: ignore[union-attr]
            for action in parser._actions
            if hasattr(action.type, "allowed")
        ]
    return found


NUMERIC_OPTIONS = numeric_options()


def test_there_are_numeric_options_in_both_front_ends() -> None:
    flags = {(front, flag) for front, flag, _ in NUMERIC_OPTIONS}
    assert {("pytest", "--tts-min-n"), ("gate", "--tts-regression-alpha"), ("compare", "--alpha")} <= flags


def out_of_option_range(allowed: NumberRange) -> list[str]:
    bad = ["nan", "inf", "-inf", "NaN", "abc"]
    if allowed.minimum is not None:
        bad.append(f"{allowed.minimum - 1:g}")
        if allowed.exclusive_minimum:
            bad.append(f"{allowed.minimum:g}")
    if allowed.maximum is not None:
        bad.append(f"{allowed.maximum + 1:g}")
    if allowed.integer:
        bad.append("1.5")
    return bad


def _usage_error(parse: Callable[[], object]) -> str | None:
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            parse()
    except pytest.UsageError as exc:
        return str(exc)
    except SystemExit:
        return stderr.getvalue()
    return None


def _parse(front: str, flag: str, value: str) -> Callable[[], object]:
    if front == "pytest":
        return lambda: _plugin_parser().parse([f"{flag}={value}"])
    positional = {"compare": ["A", "B"], "diagnostics": ["A"], "rescore": ["T"], "gate": ["RUN"]}
    argv = [front, *positional.get(front, []), f"{flag}={value}"]
    if front == "listening":
        argv = ["listening", "export", "RUN", "-o", "KIT", "--listeners=1", f"{flag}={value}"]
    return lambda: build_parser().parse_args(argv)


@PROPERTY
@given(option=st.sampled_from(NUMERIC_OPTIONS), data=st.data())
def test_every_numeric_option_refuses_a_value_that_cannot_judge(
    option: tuple[str, str, NumberRange], data: st.DataObject
) -> None:
    front, flag, allowed = option
    value = data.draw(st.sampled_from(out_of_option_range(allowed)))
    message = _usage_error(_parse(front, flag, value))
    assert message is not None, f"{front} {flag}={value} was taken"
    assert flag in message and repr(value) in message and allowed.describe() in message


#: the options whose entries carry a number among other things, each with a template for the number
COMPOUND = {
    "tts_threshold": ("--tts-threshold", "years={}"),
    "tts_quality_floor": ("--tts-quality-floor", "dnsmos_ovrl={}"),
    "tts_quality_ceiling": ("--tts-quality-ceiling", "peak_dbfs={}"),
    "tts_quality_tolerance": ("--tts-quality-tolerance", "dnsmos_ovrl={}"),
    "tts_latency_budget": ("--tts-latency-budget", "x=p95:{}ms"),
}


@PROPERTY
@given(dest=st.sampled_from(sorted(COMPOUND)), value=st.sampled_from(["nan", "inf", "-inf", "NaN", "Infinity"]))
def test_every_compound_option_refuses_a_number_that_cannot_judge(dest: str, value: str, tmp_path: Path) -> None:
    flag, template = COMPOUND[dest]
    entry = template.format(value)
    options = GateOptions(**{dest: (entry,)})
    with pytest.raises(GateOptionError) as refused:
        build_gate_config(load_settings(tmp_path), ["x"], options, repeats=1, repeat_policy="all", contract=None)
    assert flag in str(refused.value) and entry in str(refused.value)


@pytest.mark.parametrize("size", ["nanGB", "infB", "-infMB", "NaN"])
def test_a_cache_size_that_is_no_number_is_refused(size: str) -> None:
    from pytest_ttsbench.support.cache import CacheError, parse_size

    with pytest.raises(CacheError, match="is not a size"):
        parse_size(size)
