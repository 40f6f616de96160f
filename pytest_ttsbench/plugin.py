"""The pytest plugin's entry point: what pytest imports in every run of every project the package is installed in.

So it costs nothing to a run that is not a benchmark: it declares the options (plain data,
support/plugin_options.py) and imports nothing else of the package. A run that is the plugin's
business (:func:`runs_a_benchmark`) gets the benchmark's hooks (session/hooks.py) registered at
configuration, and pays for their imports then. tests/architecture/test_lazy_imports.py checks
what importing this module loads; benchmarks/idle_cost.py measures what it costs.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from pathlib import Path

import pytest

from pytest_ttsbench.support.option_specs import add_options, unknown_option_hints
from pytest_ttsbench.support.plugin_options import CONFIG_FILE, OPTION_GROUPS
from pytest_ttsbench.support.yaml_documents import YAML_SUFFIXES

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
    own = [spec.flag for _, _, options in OPTION_GROUPS for spec in options]
    hints = unknown_option_hints(parser.parse_known_and_unknown_args(args)[1], own)
    if hints:
        parser.extra_info["ttsbench"] = "\n    ".join(hints)
    return result


def configures_the_plugin(rootdir: Path) -> bool:
    """Whether the project at ``rootdir`` has a configuration of ours: ``ttsbench.yaml``, or a
    ``[tool.ttsbench]`` table in pyproject.toml (config.py reads it; a mention is enough here)."""
    if (rootdir / CONFIG_FILE).is_file():
        return True
    pyproject = rootdir / "pyproject.toml"
    try:
        return pyproject.is_file() and "tool.ttsbench" in pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True  # unreadable: config.py says what is wrong with it


def runs_a_benchmark(config: pytest.Config) -> bool:
    """Whether this run is the plugin's business: an engine selected (``--tts-engine``), a benchmark
    named (``--tts-pack``, a case file among the arguments), or a project that configures the plugin.
    Any other run (an unrelated project's tests) never imports the benchmark's modules."""
    if config.getoption("tts_engine") or config.getoption("tts_pack"):
        return True
    named = [Path(str(arg).split("::", 1)[0]).suffix for arg in config.args]
    return any(suffix in (*YAML_SUFFIXES, ".jsonl") for suffix in named) or configures_the_plugin(Path(config.rootpath))


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
