"""The one registry behind engine types, scorers, ASR route types and number parsers."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

import pytest
from processes import run, shown

from pytest_ttsbench.asr.registry import ROUTES, create_route, register_route_type
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.engines.base import EngineUnavailable
from pytest_ttsbench.engines.registry import ENGINES, create_engine, register_builtin
from pytest_ttsbench.registry import MissingDependency, Registry, UnknownName
from pytest_ttsbench.scorers.numbers import PARSERS
from pytest_ttsbench.scorers.registry import SCORERS, UnknownScorerError, get_scorer


def test_builtins_are_imported_on_first_use_and_registrations_hide_nothing() -> None:
    things: Registry[Any] = Registry("thing", None, {"dumps": "json:dumps", "loads": "json:loads"})
    assert things.names() == ["dumps", "loads"]
    things.register("mine", len)
    assert things.get("dumps") is json.dumps and things.get("mine") is len
    assert things.names() == ["dumps", "loads", "mine"]


def test_an_unknown_name_lists_the_known_ones() -> None:
    things: Registry[Any] = Registry("thing", None, {"dumps": "json:dumps"})
    with pytest.raises(UnknownName, match="unknown thing 'dump'; known things: dumps"):
        things.get("dump")


def test_a_missing_package_is_named_with_its_install_hint() -> None:
    things: Registry[Any] = Registry(
        "engine type", None, {"cloud": "ttsbench_no_such_sdk.client:Client"}, {"cloud": "pip install 'x[cloud]'"}
    )
    with pytest.raises(
        MissingDependency, match=r"'cloud' needs the package 'ttsbench_no_such_sdk'.*pip install 'x\[cloud\]'"
    ):
        things.get("cloud")


def test_entry_points_are_found_in_the_registry_group() -> None:
    plugins: Registry[Any] = Registry("pytest plugin", "pytest11", {})
    assert "ttsbench" in plugins.names()
    assert plugins.get("ttsbench").__name__ == "pytest_ttsbench.plugin"


def test_engines_report_a_missing_extra_as_unavailable_with_the_hint() -> None:
    register_builtin("cloud-test", "ttsbench_no_such_sdk:Engine", "pip install 'pytest-ttsbench[cloud-test]'")
    with pytest.raises(EngineUnavailable, match=r"profile 'c'.*pip install 'pytest-ttsbench\[cloud-test\]'"):
        create_engine(EngineProfile(name="c", type="cloud-test"))
    with pytest.raises(LookupError, match=r"engine profile 'c' has unknown type 'nope'; known types: .*espeak"):
        create_engine(EngineProfile(name="c", type="nope"))


def test_every_registry_lists_its_builtins() -> None:
    assert {"espeak", "piper", "openai", "polly"} <= set(ENGINES.names())
    assert {"numbers", "keyword", "readings", "semantic"} <= set(SCORERS.names())
    assert {"whisper", "openai", "command"} <= set(ROUTES.names())
    assert {"en", "ar", "zh", "cmn"} <= set(PARSERS.names())
    with pytest.raises(UnknownScorerError, match=r"unknown scorer 'nmubers'; known scorers: .*numbers"):
        get_scorer("nmubers")


def test_a_route_type_registered_as_a_callable_is_used() -> None:
    class Echo:
        def __init__(self, spec: Mapping[str, Any]) -> None:
            self.name = str(spec.get("name", "echo"))

    register_route_type("echo-test", Echo)
    route = create_route({"type": "echo-test", "name": "mine"})
    assert isinstance(route, Echo) and route.name == "mine"


def test_registering_a_number_parser_first_keeps_the_built_in_ones() -> None:
    # A fresh process: the built-ins must not depend on having been looked up before.
    code = (
        "from pytest_ttsbench.scorers.numbers import parser_for, register_parser;"
        "register_parser('xx', lambda text: []);"
        "print(parser_for('en-US') is not None, parser_for('xx') is not None, parser_for('fr') is None)"
    )
    out = run([sys.executable, "-c", code]).stdout.split()
    assert out == ["True", "True", "True"]


def test_the_dashboard_without_its_extra_says_what_to_install(tmp_path) -> None:
    # matplotlib made unimportable in a fresh process, as on a machine with core dependencies only
    code = (
        "import sys; sys.modules['matplotlib'] = None;"
        "from pytest_ttsbench.cli import main;"
        f"sys.exit(main(['dashboard', {str(tmp_path)!r}, '-o', {str(tmp_path / 'site')!r}]))"
    )
    done = run([sys.executable, "-c", code], expect=2)
    assert "charts need matplotlib" in done.stderr and "pip install 'pytest-ttsbench[plots]'" in done.stderr, shown(
        done
    )
