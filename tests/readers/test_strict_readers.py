"""Every file the project reads refuses a key given twice, naming the file, the line and the key (issue 22, failure 7).

Before, the last of two equal keys won silently: an item with two ``text:`` keys sent the second
text, a second ``suite:`` renamed the suite, an engine profile defined twice in ``ttsbench.yaml``
was the second one. Each reader is driven here the way a user reaches it (pytest collection,
configuration loading, a ``ttsbench`` subcommand on a run written by a real run).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, write_project

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file
from pytest_ttsbench.cli import main as ttsbench
from pytest_ttsbench.config import ConfigError, load_settings
from pytest_ttsbench.listening.report import load_key
from pytest_ttsbench.listening.sheets import SheetError
from pytest_ttsbench.run_model.known_gaps import KnownGapsError, load_known_gaps
from pytest_ttsbench.run_model.manifest import ManifestError, verify_manifest
from pytest_ttsbench.run_model.provenance import RunHeaderError, read_header
from pytest_ttsbench.run_model.reader import read_gate
from pytest_ttsbench.run_model.results import ResultsFileError, read_results
from pytest_ttsbench.run_model.transcripts import TranscriptsError, load_transcripts
from pytest_ttsbench.support.cache import ClipCache

TWO_TEXTS = """\
suite: demo-numerals
language: en
scorer: numbers
items:
  - id: year-2026
    category: years
    text: "The plant opened in 2026."
    text: "The plant opened in 1999."
    expect: {values: ["2026"]}
"""


def test_an_item_with_two_texts_stops_collection_naming_file_line_and_key(pytester: pytest.Pytester) -> None:
    write_project(pytester, cases={"good.yaml": NUMERALS.replace("demo-numerals", "good"), "broken.yaml": TWO_TEXTS})
    result = pytester.runpytest("--tts-engine=replay", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*ERROR collecting cases/broken.yaml*", "*broken.yaml*duplicate key 'text' at line 8 (first given at line 7)*"]
    )
    assert "passed" not in result.stdout.str()  # nothing was synthesized, the 1999 text least of all


@pytest.mark.parametrize("parsed_cache", [False, True])
def test_two_suite_keys_are_refused_with_or_without_the_parsed_cache(tmp_path: Path, parsed_cache: bool) -> None:
    path = tmp_path / "two-suites.yaml"
    path.write_text("suite: alpha\nlanguage: en\n" + NUMERALS, encoding="utf-8")
    cache = ClipCache(tmp_path / "cache") if parsed_cache else None
    for _ in range(2):  # the second read would be served from the cache if the first had stored it
        with pytest.raises(CaseFileError) as caught:
            load_case_file(path, parsed_cache=cache)
        message = str(caught.value)
        assert str(path) in message and "duplicate key 'suite' at line 3 (first given at line 1)" in message


def test_an_engine_profile_defined_twice_in_ttsbench_yaml_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ttsbench.yaml").write_text(
        textwrap.dedent(
            """\
            engines:
              cloud: {type: openai, base_url: "http://127.0.0.1:1/v1", api_key_env: A}
              local: {type: espeak}
              cloud: {type: openai, base_url: "http://127.0.0.1:2/v1", api_key_env: B}
            """
        ),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "ttsbench.yaml") in message
    assert "duplicate key 'cloud' at line 4 (first given at line 2)" in message


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ('[tool.ttsbench]\nruns_dir = "a"\nruns_dir = "b"\n', 'runs_dir = "b"'),
        ('[tool.ttsbench.engines.x]\ntype = "espeak"\n\n[tool.ttsbench.engines.x]\ntype = "piper"\n', "engines.x]"),
    ],
)
def test_toml_refuses_a_key_given_twice_and_the_message_quotes_it(tmp_path: Path, body: str, line: str) -> None:
    """TOML itself refuses duplicates (tomllib); the message quotes the line, so it names the key."""
    (tmp_path / "pyproject.toml").write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    message = str(caught.value)
    assert "pyproject.toml" in message and "line" in message and line in message


def test_known_gaps_file_with_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "espeak.yaml"
    path.write_text("engine: espeak\ngaps: []\nengine: piper\n", encoding="utf-8")
    with pytest.raises(KnownGapsError) as caught:
        load_known_gaps(path, "espeak")
    assert str(path) in str(caught.value) and "duplicate key 'engine' at line 3" in str(caught.value)


def test_transcripts_file_row_with_two_texts_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "replay.jsonl"
    path.write_text('{"id": "s/a", "text": "one"}\n{"id": "s/b", "text": "two", "text": "three"}\n', encoding="utf-8")
    with pytest.raises(TranscriptsError) as caught:
        load_transcripts(path)
    assert f"{path}: line 2" in str(caught.value) and "duplicate key 'text'" in str(caught.value)


@pytest.fixture
def run_folder(pytester: pytest.Pytester) -> Path:
    """A real run on disk (replayed transcripts): results, gate sidecar, run header and manifest."""
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS}, transcripts={})
    pytester.runpytest("--tts-engine=replay", "--tts-results=run/results.jsonl", "-p", "no:cacheprovider")
    folder = pytester.path / "run"
    assert {"results.jsonl", "results.gate.json", "results.run.json", "manifest.sha256.json"} <= {
        p.name for p in folder.iterdir()
    }
    return folder


def _duplicate_first_key_of_line(path: Path, line_number: int, key: str, value: object) -> None:
    """Give ``key`` a second time, right after the first ``"key": ...`` of that line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    at = lines[line_number - 1].index(f'"{key}": ')
    lines[line_number - 1] = (
        lines[line_number - 1][:at] + f'"{key}": {json.dumps(value)}, ' + lines[line_number - 1][at:]
    )
    path.write_text("\n".join(lines), encoding="utf-8")


def test_results_row_with_two_verdicts_is_refused_by_every_reader(run_folder: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    results = run_folder / "results.jsonl"
    _duplicate_first_key_of_line(results, 2, "verdict", "correct")
    with pytest.raises(ResultsFileError) as caught:
        read_results(results)
    assert f"{results}: line 2" in str(caught.value) and "duplicate key 'verdict'" in str(caught.value)
    assert ttsbench(["gate", str(run_folder)]) == 2  # an edited run: refused for its manifest first
    assert "no longer matches its manifest (modified: results.jsonl)" in capsys.readouterr().err
    assert ttsbench(["gate", str(run_folder), "--allow-unverified"]) == 2
    assert "duplicate key 'verdict'" in capsys.readouterr().err


def _pretty_line_of(path: Path, key: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if f'"{key}"' in line)


def _repeat_pretty_line(path: Path, key: str) -> int:
    """Repeat the line of ``key`` in an indented JSON file; returns the new line's number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    number = _pretty_line_of(path, key)
    line = lines[number - 1]
    lines.insert(number, line if line.rstrip().endswith(",") else line + ",")
    if not line.rstrip().endswith(","):
        lines[number - 1] = line + ","
        lines[number] = line
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return number + 1


def test_gate_sidecar_with_a_key_given_twice_is_an_error_not_ignored(run_folder: Path) -> None:
    gate = run_folder / "results.gate.json"
    data = json.loads(gate.read_text(encoding="utf-8"))
    key = next(iter(data))
    gate.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    second = _repeat_pretty_line(gate, key)
    with pytest.raises(ValueError) as caught:
        read_gate(run_folder / "results.jsonl")
    assert str(gate) in str(caught.value) and f"duplicate key {key!r} at line {second}" in str(caught.value)


def test_run_header_with_a_key_given_twice_is_refused(run_folder: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    header = run_folder / "results.run.json"
    key = next(iter(json.loads(header.read_text(encoding="utf-8"))))
    second = _repeat_pretty_line(header, key)
    with pytest.raises(RunHeaderError) as caught:
        read_header(run_folder / "results.jsonl")
    assert str(header) in str(caught.value) and f"duplicate key {key!r} at line {second}" in str(caught.value)
    # the run model, which passes over an unreadable header, does not pass over this one
    assert ttsbench(["leaderboard", str(run_folder)]) == 2  # an edited run: refused for its manifest first
    assert "no longer matches its manifest (modified: results.run.json)" in capsys.readouterr().err
    assert ttsbench(["leaderboard", str(run_folder), "--allow-unverified"]) == 2
    assert f"duplicate key {key!r}" in capsys.readouterr().err


def test_manifest_with_a_file_listed_twice_is_refused(run_folder: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    manifest = run_folder / "manifest.sha256.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    entries = [f"    {json.dumps(name)}: {json.dumps(entry)}" for name, entry in document.pop("files").items()]
    listed = next(i for i, line in enumerate(entries) if line.startswith('    "results.jsonl"'))
    entries.insert(listed + 1, entries[listed].replace('"sha256": "', '"sha256": "0'))  # a second, other checksum
    head = [f"  {json.dumps(key)}: {json.dumps(value)}," for key, value in document.items()]
    manifest.write_text(
        "\n".join(["{", *head, '  "files": {', ",\n".join(entries), "  }", "}"]) + "\n", encoding="utf-8"
    )
    second = 1 + len(head) + 1 + listed + 2
    with pytest.raises(ManifestError) as caught:
        verify_manifest(manifest)
    assert str(manifest) in str(caught.value) and f"duplicate key 'results.jsonl' at line {second}" in str(caught.value)
    assert ttsbench(["verify", str(run_folder)]) == 2
    assert "duplicate key 'results.jsonl'" in capsys.readouterr().err


def test_listening_key_with_a_section_given_twice_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "kit" / "private" / "key.json"
    key.parent.mkdir(parents=True)
    key.write_text(
        '{\n"clips": {},\n"groups": {},\n"prompts": {},\n"listeners": {},\n"clips": {}\n}\n', encoding="utf-8"
    )
    with pytest.raises(SheetError) as caught:
        load_key(tmp_path / "kit")
    assert str(key) in str(caught.value) and "duplicate key 'clips' at line 6 (first given at line 2)" in str(
        caught.value
    )


def test_stored_leaderboard_with_a_key_given_twice_is_refused(run_folder: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "board.json"
    store.write_text('{"entries": [], "entries": []}\n', encoding="utf-8")
    assert ttsbench(["leaderboard", str(run_folder), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert str(store) in err and "duplicate key 'entries'" in err


def test_snapshot_file_giving_one_snapshot_twice_is_refused(pytester: pytest.Pytester) -> None:
    """syrupy keeps the last of two snapshots of one name (a merge that kept both sides): refused instead."""
    write_project(pytester, cases={"demo-numerals.yaml": NUMERALS})
    run = (
        "--tts-engine=replay",
        "--tts-results=r.jsonl",
        "--tts-append",
        "--tts-snapshot=strict",
        "-p",
        "no:cacheprovider",
    )
    pytester.runpytest(*run, "--snapshot-update")
    path = pytester.path / "__tts_snapshots__" / "replay.ambr"
    text = path.read_text(encoding="utf-8")
    start = text.index("# name: ")
    end = text.find("\n# name: ", start + 1)
    first = text[start : end + 1] if end != -1 else text[start:]
    path.write_text(text + ("" if text.endswith("\n") else "\n") + first, encoding="utf-8")
    name = first.splitlines()[0][len("# name: ") :]
    markers = [
        n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line == f"# name: {name}"
    ]
    first_at, again = markers

    result = pytester.runpytest(*run)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*replay.ambr: line {again}: snapshot {name!r} given twice (first at line {first_at})"]
    )
