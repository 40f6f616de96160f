"""Path-valued ``--tts-*`` options given as ``--option PATH`` must not move pytest's rootdir.

pytest decides its rootdir and configuration file before any plugin's options are known, so
in ``pytest --tts-results /elsewhere/r.jsonl`` it takes ``/elsewhere/r.jsonl`` for a test path:
an existing file outside the project then moves the rootdir there, the project's configuration
is never read and a different set of tests is collected. That must never pass as a green gate.
Once the plugin's options are known, :func:`check_rootdir_not_moved` works out the rootdir
pytest would have chosen from the real test paths; when a space-form value moved it, the run
stops with a usage error that names the ``--option=PATH`` form, which pytest always reads right.
"""

from __future__ import annotations

import inspect
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_ttsbench.support.yaml_documents import BENCHMARK_FILE_SUFFIXES

#: every plugin option whose value may be an existing file or folder
PATH_OPTIONS: tuple[str, ...] = ("--tts-results", "--tts-audio-dir", "--tts-baseline", "--tts-asr-model")


def spaced_path_values(args: Sequence[str], invocation_dir: Path) -> list[tuple[str, str]]:
    """``(option, value)`` for each path option written ``--option VALUE`` whose value exists on disk.

    Only those can move the rootdir: pytest ignores test paths that do not exist when it looks
    for the rootdir.
    """
    found = []
    for index, arg in enumerate(args[:-1]):
        if arg in PATH_OPTIONS:
            value = args[index + 1]
            path = Path(value) if Path(value).is_absolute() else invocation_dir / value
            if path.exists():
                found.append((arg, value))
    return found


def _command_line(config: pytest.Config) -> list[str]:
    """Every argument pytest read: the environment's PYTEST_ADDOPTS, the ini ``addopts`` and the command line."""
    env = shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    return [*env, *config.getini("addopts"), *config.invocation_params.args]


def _intended_setup(config: pytest.Config) -> tuple[Path, Path | None] | None:
    """The rootdir and ini file pytest would pick from the real test paths; None where pytest cannot say."""
    try:
        from _pytest.config.findpaths import determine_setup
    except ImportError:  # pragma: no cover - a pytest without this helper
        return None
    namespace = config.known_args_namespace
    arguments: dict[str, Any] = {
        "inifile": getattr(namespace, "inifilename", None),
        "override_ini": getattr(namespace, "override_ini", None),
        "args": [str(arg) for arg in config.option.file_or_dir or []],
        "rootdir_cmd_arg": getattr(namespace, "rootdir", None) or None,
        "invocation_dir": config.invocation_params.dir,
    }
    try:
        accepted = inspect.signature(determine_setup).parameters
        rootpath, inipath, *_ = determine_setup(**{k: v for k, v in arguments.items() if k in accepted})
    except (TypeError, ValueError, pytest.UsageError):
        return None
    return Path(rootpath), Path(inipath) if inipath is not None else None


def check_rootdir_not_moved(config: pytest.Config) -> None:
    """Stop with a usage error when a ``--tts-* PATH`` value moved pytest's rootdir or ini file."""
    spaced = spaced_path_values(_command_line(config), config.invocation_params.dir)
    if not spaced:
        return
    intended = _intended_setup(config)
    actual = (Path(config.rootpath), Path(config.inipath) if config.inipath is not None else None)
    if intended is not None and intended == actual:
        return
    option, value = spaced[0]
    moved = (
        f"it moved pytest's rootdir to {actual[0]} (expected {intended[0]})"
        if intended is not None
        else "pytest may have taken it for a test path"
    )
    raise pytest.UsageError(
        f"{option} {value}: pytest read this path as a test path before the plugin's options were known, "
        f"and {moved}; write it as {option}={value}"
    )


def benchmark_files_named(config: pytest.Config) -> list[str]:
    """The command line's arguments that name a case file or an external benchmark file (a path or
    a node id); never testpaths or the working folder, which are the project's own tests. One of
    them makes a run the plugin's business (plugin.runs_a_benchmark); without an engine it is refused."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return []
    return [str(arg) for arg in config.args if Path(str(arg).split("::", 1)[0]).suffix in BENCHMARK_FILE_SUFFIXES]
