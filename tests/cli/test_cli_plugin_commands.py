"""Third-party subcommands and reports: the ``pytest_ttsbench.subcommands`` and ``pytest_ttsbench.reports``
entry-point groups, as an installed package declares them (a dist-info on the child's path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from entry_point_dists import env_with, ttsbench_command, write_dist
from processes import run, shown
from result_rows import make_result

from pytest_ttsbench.cli import SUBCOMMANDS
from pytest_ttsbench.run_model.results import write_results

PLUGIN = """\
from pathlib import Path


def add_hello(subparsers):
    parser = subparsers.add_parser("hello", help="say hello")
    parser.set_defaults(func=lambda args: print("hello from a plugin") or 0)


def add_elsewhere(subparsers):
    subparsers.add_parser("not-its-name")


def engines(runs, out: Path) -> None:
    out.write_text(",".join(sorted({run.system for run in runs})) + "\\n", encoding="utf-8")
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "cmd_plugin").mkdir(parents=True)
    (site / "cmd_plugin" / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    write_dist(
        site,
        "cmd-plugin",
        {
            "pytest_ttsbench.subcommands": {
                "hello": "cmd_plugin:add_hello",
                "broken": "cmd_plugin_missing_module:add_command",
                "misnamed": "cmd_plugin:add_elsewhere",
                "texts": "cmd_plugin:add_hello",  # a built-in's name: the built-in stays
            },
            "pytest_ttsbench.reports": {"engines": "cmd_plugin:engines"},
        },
    )
    return site


def ttsbench(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return run(ttsbench_command(*argv), env=env_with(site), expect=None)


def test_a_plugin_subcommand_runs_and_a_broken_one_is_left_out_with_a_warning(site: Path) -> None:
    done = ttsbench(site, "hello")
    assert (done.returncode, done.stdout) == (0, "hello from a plugin\n")
    assert "subcommand 'broken' (entry point group pytest_ttsbench.subcommands) left out: " in done.stderr
    assert "cmd_plugin_missing_module" in done.stderr
    assert "entry point 'misnamed' (group pytest_ttsbench.subcommands) added no subcommand called 'misnamed'" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    helped = ttsbench(site, "--help")
    assert all(name in helped.stdout for name in (*SUBCOMMANDS, "hello"))
    # the built-in texts is not replaced by the plugin's entry of that name
    assert ttsbench(site, "texts", "--help").stdout.startswith("usage: ttsbench texts")


def test_a_plugin_report_is_written_from_results_files(site: Path, tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    write_results(results, [make_result(engine="espeak"), make_result(engine="piper", id="s/y")])
    listed = ttsbench(site, "report", "--list")
    assert listed.stdout.split() == ["engines"]
    done = ttsbench(site, "report", "engines", str(results), "-o", str(tmp_path / "new" / "engines.txt"))
    assert done.returncode == 0, shown(done)
    assert done.stdout.startswith(f"wrote {tmp_path / 'new' / 'engines.txt'} (report 'engines', 2 run(s))")
    assert (tmp_path / "new" / "engines.txt").read_text(encoding="utf-8") == "espeak,piper\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope", "{results}", "-o", "{out}"], "ttsbench report: unknown report 'nope'; known reports: engines"),
        (["engines", "{missing}", "-o", "{out}"], "ttsbench report: "),
        (["engines", "{results}"], "ttsbench report: give NAME, at least one RUN and -o FILE (or --list)"),
    ],
)
def test_a_report_with_bad_input_exits_2_naming_what_is_wrong(
    site: Path, tmp_path: Path, argv: list[str], message: str
) -> None:
    results = tmp_path / "r.jsonl"
    write_results(results, [make_result()])
    paths = {"results": str(results), "missing": str(tmp_path / "nope.jsonl"), "out": str(tmp_path / "o.txt")}
    done = ttsbench(site, "report", *(part.format(**paths) for part in argv))
    # after the warnings about the fixture's broken subcommands
    assert done.returncode == 2 and done.stderr.splitlines()[-1].startswith(message), shown(done)
    assert "Traceback" not in done.stderr and not (tmp_path / "o.txt").exists()
