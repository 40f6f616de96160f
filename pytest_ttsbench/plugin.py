"""The pytest plugin's entry point: what pytest imports in every run of every project the package is installed in.

So it costs next to nothing to a run that is not a benchmark: it declares the options (plain data,
support/plugin_options.py) and imports nothing else of the package. A run that is the plugin's
business (:func:`runs_a_benchmark`: an engine, a pack or a case file on the command line) gets the
benchmark's hooks (session/hooks.py) registered at configuration, and pays for their imports then;
any other run reads no file of ours, the project's configuration included.
tests/architecture/test_lazy_imports.py checks what importing this module and an unrelated run
load; benchmarks/idle_cost.py measures what it costs.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from pathlib import Path

import pytest

from pytest_ttsbench.support.option_specs import add_options, ours_to_explain, unknown_option_hints
from pytest_ttsbench.support.plugin_options import OPTION_GROUPS

#: the name the benchmark's hooks are registered under
SESSION_PLUGIN = "ttsbench-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    for name, description, options in OPTION_GROUPS:
        add_options(parser.getgroup(name, description).addoption, options)


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, None, None]:
    """Every plugin's and conftest's options are declared now: an unrecognized one of ours gets its
    next step beside pytest's own "unrecognized arguments" error (shown only when that error is)."""
    result = yield
    if not any(ours_to_explain(str(arg)) for arg in args):
        return result  # nothing to explain: no second parse of the command line (benchmarks/idle_cost.py)
    own = [spec.flag for _, _, options in OPTION_GROUPS for spec in options]
    hints = unknown_option_hints(parser.parse_known_and_unknown_args(args)[1], own)
    if hints:
        parser.extra_info["ttsbench"] = "\n    ".join(hints)
    return result


def runs_a_benchmark(config: pytest.Config) -> bool:
    """Whether this run is the plugin's business: an engine selected (``--tts-engine``), or a
    benchmark named (``--tts-pack``, a case file on the command line; without an engine the session
    refuses both, saying to add one). A configuration of ours (ttsbench.yaml, ``[tool.ttsbench]``)
    does not make a plain ``pytest`` one: the plugin stays out of the project's ordinary test run,
    which imports none of the benchmark's modules and reads no file of ours."""
    if config.getoption("tts_engine") or config.getoption("tts_pack"):
        return True
    if all(Path(str(arg).split("::", 1)[0]).suffix in ("", ".py") for arg in config.args):
        return False  # folders and test modules name no case file: nothing more is imported to say so
    from pytest_ttsbench.session.option_paths import benchmark_files_named

    return bool(benchmark_files_named(config))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    if not runs_a_benchmark(config):
        return
    from pytest_ttsbench.reporting.html import note_existing_assets

    note_existing_assets(config)  # before pytest-html writes its assets (see reporting/html.py)
    # Registered before any plugin's configure, so it runs after every other cleanup, pytest's
    # final garbage collections included (see collect.collected_out_of_cyclic_gc).
    config.add_cleanup(gc.unfreeze)


@pytest.hookimpl(trylast=True)  # after pytest-html's, whose report writer the HTML report adjusts
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tts: a text-to-speech benchmark item (pytest-ttsbench)")
    if runs_a_benchmark(config) and not config.pluginmanager.has_plugin(SESSION_PLUGIN):
        from pytest_ttsbench.session import hooks

        # pytest_configure is historic: the hooks' own is called now, as they register.
        config.pluginmanager.register(hooks, SESSION_PLUGIN)
