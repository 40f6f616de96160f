"""Shipped packs in a pytest run: which packs a run collects, their node ids, and the identity every row carries.

Replayed transcripts stand in for synthesis and ASR, so these runs are quick; the installed-wheel
test (test_installed_wheel.py) runs the same packs on real eSpeak NG and Whisper.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plugin_projects import NUMERALS, read_jsonl, write_project
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.cases.packs import run_packs, shipped_packs
from pytest_ttsbench.cli import main

EN_NODE = "pytest_ttsbench/packs/en-numerals/en-numerals.yaml::en-numerals"
REPLAY = "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\n"


def _targets(name: str) -> int:
    return sum(len(item.targets) for path in shipped_packs()[name].files for item in load_case_file(path).items)


def _listed(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line and not line.startswith(("ttsbench::", "FAILED"))]


def test_plain_pytest_without_configuration_reads_none_of_the_repositorys_files(pytester: pytest.Pytester) -> None:
    # A repository's own YAML under cases/ (a fixture of its own tests): today a collection error,
    # "Additional properties are not allowed", that interrupts the repository's whole test run.
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "fixture.yaml").write_text("name: a fixture\nrows: [1, 2]\n", encoding="utf-8")
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    assert not [line for line in result.outlines if "numerals" in line or "fixture.yaml" in line]


def test_an_engine_without_configuration_or_case_folder_collects_every_shipped_pack(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--co", "-q", "--tts-engine=espeak", "--tts-all-languages")
    listed = _listed(result)
    assert len(listed) == sum(_targets(name) for name in shipped_packs())
    prefixes = {line.split("::", 1)[0] for line in listed}
    assert prefixes == {f"pytest_ttsbench/packs/{name}/{name}.yaml" for name in shipped_packs()}


def test_node_ids_and_keywords_read_as_in_a_clone(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--co", "-q", "--tts-engine=espeak", "-k", "year-2026")
    assert _listed(result) == [f"{EN_NODE}[years/year-2026]"]
    # no folder above the package (site-packages, lib, python3.x) is a keyword of a pack item
    result = pytester.runpytest("-p", "no:cacheprovider", "--co", "-q", "--tts-engine=espeak", "-k", "lib or python")
    assert _listed(result) == []


def test_configured_packs_run_beside_the_projects_own_case_files_and_rows_name_the_pack(
    pytester: pytest.Pytester,
) -> None:
    write_project(
        pytester,
        cases={"own.yaml": NUMERALS},
        transcripts={"en-numerals/year-2026": "The new bridge over the river is scheduled to open in 2026."},
        config=REPLAY + "packs: [en-numerals]\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--tts-engine=replay", "--tts-results=out/r.jsonl")
    rows = {row["id"]: row for row in read_jsonl(pytester.path / "out" / "r.jsonl")}
    assert len(rows) == 3 + _targets("en-numerals"), result.outlines[-20:]
    version = shipped_packs()["en-numerals"].version
    pack_rows = [row for row in rows.values() if row["suite"] == "en-numerals"]
    assert {(row["pack"], row["pack_version"]) for row in pack_rows} == {("en-numerals", version)}
    assert all(row["node_id"].startswith(EN_NODE + "[") for row in pack_rows)
    assert rows["en-numerals/year-2026"]["verdict"] == "correct"
    own = [row for row in rows.values() if row["suite"] == "demo-numerals"]
    assert own and all(row["pack"] is None and row["pack_version"] is None for row in own)
    header = json.loads((pytester.path / "out" / "r.run.json").read_text(encoding="utf-8"))
    assert header["case_files"]["en-numerals"]["pack"] == "en-numerals"
    assert header["case_files"]["en-numerals"]["pack_version"] == version
    assert header["case_files"]["demo-numerals"]["pack"] is None
    # The pack's file is an input of the run, named as in node ids and checked against the installed pack.
    manifest = json.loads((pytester.path / "out" / "r.manifest.sha256.json").read_text(encoding="utf-8"))
    entry = manifest["files"]["pytest_ttsbench/packs/en-numerals/en-numerals.yaml"]
    assert entry["root"] == "pack" and entry["role"] == "input"
    assert main(["verify", str(pytester.path / "out" / "r.jsonl")]) == 0


def test_tts_pack_chooses_the_packs_and_naming_one_runs_every_language(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={}, config=REPLAY + "packs: [en-numerals]\n")
    # espeak is judged on English only; a pack named with --tts-pack runs as a case file named on the command line
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--co", "-q", "--tts-engine=espeak", "--tts-pack", "th-keywords"
    )
    listed = _listed(result)
    assert len(listed) == _targets("th-keywords")
    assert all(line.startswith("pytest_ttsbench/packs/th-keywords/th-keywords.yaml::th-keywords[") for line in listed)


def test_paths_on_the_command_line_leave_the_configured_packs_out(pytester: pytest.Pytester) -> None:
    write_project(pytester, config=REPLAY + "packs: [en-numerals]\n")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--co", "-q", "--tts-engine=replay", "cases/demo-numerals.yaml"
    )
    assert [line.split("::")[0] for line in _listed(result)] == ["cases/demo-numerals.yaml"] * 3
    both = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--co",
        "-q",
        "--tts-engine=replay",
        "cases/demo-numerals.yaml",
        "--tts-pack=en-numerals",
    )
    assert len(_listed(both)) == 3 + _targets("en-numerals")


@pytest.mark.parametrize(
    ("config", "option", "message"),
    [
        ("packs: [en-numerals, no-such-pack]\n", None, r"ttsbench.yaml: field packs: unknown pack\(s\) no-such-pack"),
        ("", "--tts-pack=nope", r"--tts-pack: unknown pack\(s\) nope"),
    ],
)
def test_an_unknown_pack_is_a_usage_error_listing_the_shipped_ones(
    pytester: pytest.Pytester, config: str, option: str | None, message: str
) -> None:
    write_project(pytester, config=REPLAY + config)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tts-engine=replay", *([option] if option else []))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = "\n".join(result.errlines)
    assert re.search(message, text), text
    assert all(name in text for name in shipped_packs())


def test_plain_pytest_in_a_project_with_packs_configured_collects_none(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={}, config=REPLAY + "packs: [th-keywords]\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.assert_outcomes()
    assert not (pytester.path / ".ttsbench").exists()


def test_workers_collect_the_packs_the_controller_chose(pytester: pytest.Pytester) -> None:
    # A worker's own command line always names paths (xdist hands it the controller's): the choice travels.
    write_project(pytester, cases={}, transcripts={}, config=REPLAY + "packs: [en-numerals]\n")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--tts-engine=replay", "--tts-results=out/r.jsonl", timeout=600
    )
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert len(rows) == _targets("en-numerals"), result.outlines[-20:]
    assert {row["pack"] for row in rows} == {"en-numerals"}


def test_the_repositorys_configuration_runs_the_shipped_packs() -> None:
    """This clone runs the very files an installed plugin runs: ttsbench.yaml names every shipped pack."""
    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[2] / "ttsbench.yaml").read_text(encoding="utf-8"))
    assert sorted(config["packs"]) == sorted(shipped_packs())
    assert pack_file("en-numerals").is_relative_to(Path(__file__).resolve().parents[2] / "pytest_ttsbench" / "packs")


def test_every_manifest_states_languages_its_items_have(tmp_path: Path) -> None:
    for pack in shipped_packs().values():
        languages = {item.language for path in pack.files for item in load_case_file(path).items}
        assert set(pack.languages) == languages, pack.name
        assert pack.version and pack.licence and pack.source, pack.name


NAMES = sorted(shipped_packs())


@given(
    configured=st.none() | st.lists(st.sampled_from(NAMES), max_size=4),
    option=st.lists(st.sampled_from(NAMES), max_size=4),
    has_case_folder=st.booleans(),
    engines_selected=st.booleans(),
    paths_given=st.booleans(),
)
def test_which_packs_a_run_collects(
    configured: list[str] | None, option: list[str], has_case_folder: bool, engines_selected: bool, paths_given: bool
) -> None:
    chosen = [
        pack.name
        for pack in run_packs(
            configured,
            option,
            has_case_folder=has_case_folder,
            engines_selected=engines_selected,
            paths_given=paths_given,
        )
    ]
    assert len(chosen) == len(set(chosen))
    if option:  # --tts-pack decides, whatever else the run says
        assert chosen == list(dict.fromkeys(option))
    elif (configured is None and not engines_selected) or paths_given:
        # a plain run of a project that names no pack; or paths on the command line, which leave
        # the configured packs out as they leave the case folders out
        assert chosen == []
    elif configured is not None:
        assert chosen == list(dict.fromkeys(configured))
    else:  # an engine, no configured pack: every pack when the project has no case folder of its own
        assert chosen == ([] if has_case_folder else NAMES)


def test_two_runs_of_different_pack_versions_differ_in_their_headers(tmp_path: Path) -> None:
    from pytest_ttsbench.run_model.provenance import RunHeader, differences
    from pytest_ttsbench.session.provenance_capture import pack_identity

    shipped = pack_identity(pack_file("en-numerals"))
    assert shipped == {"pack": "en-numerals", "pack_version": shipped_packs()["en-numerals"].version}
    own = tmp_path / "en-numerals.yaml"
    own.write_bytes(pack_file("en-numerals").read_bytes())  # the same bytes, but the project's own file
    assert pack_identity(own) == {"pack": None, "pack_version": None}
    before = RunHeader(case_files={"en-numerals": {"sha256": "a", **shipped}})
    after = RunHeader(case_files={"en-numerals": {"sha256": "a", **shipped, "pack_version": "9.9.9"}})
    assert f"case_files.en-numerals.pack_version: {shipped['pack_version']} → 9.9.9" in differences(before, after)
