"""Sharded CI: ``--tts-shard I/N`` jobs, ``ttsbench merge`` and ``ttsbench gate`` give the unsplit run's gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from plugin_projects import write_project

from pytest_ttsbench.cli import main
from pytest_ttsbench.run_model.provenance import header_path
from pytest_ttsbench.run_model.results import read_results
from pytest_ttsbench.run_model.sharding import Shard, ShardError, parse_shard, select, shard_of

YEARS = [2001 + i for i in range(14)]


def _suite(name: str, language: str = "en") -> str:
    items = "".join(
        f"  - {{id: y{year}, category: {'years' if i % 2 else 'dates'}, facets: {{form: {'a' if i % 3 else 'b'}}}, "
        f'text: "It opened in {year}.", expect: {{values: ["{year}"]}}}}\n'
        for i, year in enumerate(YEARS)
    )
    return f"suite: {name}\nlanguage: {language}\nscorer: numbers\nthresholds: {{default: 0.8}}\nitems:\n{items}"


def _transcripts() -> dict[str, str]:
    heard = {}
    for suite in ("shard-a", "shard-b"):
        for i, year in enumerate(YEARS):
            # Every fourth item is misheard: dates in shard-b fall below 80 %, years do not.
            wrong = i % 4 == 0 or (suite == "shard-b" and i % 2 == 0 and i % 3 == 0)
            heard[f"{suite}/y{year}"] = f"It opened in {year + 1 if wrong else year}."
    return heard


# the second names no item (a typo): every gate lists it, and only it, as matching nothing
GAPS = (
    "engine: replay\ngaps:\n  - id: shard-a/y2001\n    reason: misheard on purpose\n"
    "  - id: shard-a/y1999\n    reason: a typo\n"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    root = write_project(
        pytester,
        cases={"shard-a.yaml": _suite("shard-a"), "shard-b.yaml": _suite("shard-b")},
        transcripts=_transcripts(),
    )
    (root / "known_gaps").mkdir()
    (root / "known_gaps" / "replay.yaml").write_text(GAPS, encoding="utf-8")
    return root


GATE_OPTIONS = ["--tts-threshold=form=a=0.75", "--tts-min-n=3"]


def test_a_split_run_merged_and_gated_gives_the_unsplit_gate(pytester: pytest.Pytester, project: Path) -> None:
    whole = pytester.runpytest("--tts-engine=replay", "--tts-results=whole/results.jsonl", *GATE_OPTIONS)
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    whole_gate = json.loads((project / "whole" / "results.gate.json").read_text(encoding="utf-8"))
    assert whole_gate["passed"] is False  # the case is only worth something if the gate has work to do
    assert whole_gate["known_gaps"]["xfailed"] == ["shard-a/y2001 [replay]"]
    assert whole_gate["known_gaps"]["unmatched"] == {"replay": ["shard-a/y1999"]}

    sizes = []
    for index in (1, 2, 3):
        shard = pytester.runpytest(
            "--tts-engine=replay", f"--tts-results=shard{index}/results.jsonl", f"--tts-shard={index}/3", *GATE_OPTIONS
        )
        assert shard.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        header = json.loads(header_path(project / f"shard{index}" / "results.jsonl").read_text(encoding="utf-8"))
        assert header["shard"] == f"{index}/3"
        sizes.append(len(read_results(project / f"shard{index}" / "results.jsonl")))
    assert sum(sizes) == 28 and all(sizes)  # every item ran exactly once, in some shard
    for index in (1, 2, 3):
        # A shard ran a third of the items but collected them all: re-gated from disk, its known gaps
        # match what its own gate matched (the header's collected ids), not only its rows.
        own = json.loads((project / f"shard{index}" / "results.gate.json").read_text(encoding="utf-8"))
        assert (
            main(["gate", str(project / f"shard{index}"), "--rootdir", str(project), *GATE_OPTIONS])
            == own["exitstatus"]
        )
        regated = json.loads((project / f"shard{index}" / "results.gate.json").read_text(encoding="utf-8"))
        assert regated["known_gaps"]["unmatched"] == own["known_gaps"]["unmatched"] == {"replay": ["shard-a/y1999"]}

    shards = [str(project / f"shard{i}") for i in (1, 2, 3)]
    assert main(["merge", *shards, "-o", str(project / "merged")]) == 0
    status = main(["gate", str(project / "merged"), "--rootdir", str(project), *GATE_OPTIONS])
    assert status == whole.ret == whole_gate["exitstatus"]
    merged_gate = json.loads((project / "merged" / "results.gate.json").read_text(encoding="utf-8"))
    assert merged_gate == whole_gate


def test_a_passed_gate_still_exits_1_when_items_failed_as_pytest_does(pytester: pytest.Pytester, project: Path) -> None:
    relaxed = ["--tts-threshold=default=0.25", "--tts-min-n=3"]
    (project / "known_gaps" / "replay.yaml").unlink()
    whole = pytester.runpytest("--tts-engine=replay", "--tts-results=whole/results.jsonl", "--tts-shard=1/1", *relaxed)
    # Misheard items fail their own tests, so pytest's status is 1 even though every floor holds.
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    status = main(["gate", str(project / "whole"), "--rootdir", str(project), *relaxed])
    assert status == 1
    gate = json.loads((project / "whole" / "results.gate.json").read_text(encoding="utf-8"))
    # The file's verdict is the exit status's; the gate's own reasons were none (#22: never "passed" with exit 1).
    assert gate["passed"] is False and gate["exitstatus"] == 1 and gate["gate_passed"] is True


def _shard_runs(pytester: pytest.Pytester, project: Path, *extra: str) -> None:
    for index in (1, 2):
        pytester.runpytest(
            "--tts-engine=replay", f"--tts-results=s{index}/results.jsonl", f"--tts-shard={index}/2", *extra
        )


def test_merge_refuses_a_missing_shard_and_shards_of_other_configurations(
    pytester: pytest.Pytester, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _shard_runs(pytester, project)
    assert main(["merge", str(project / "s1"), "-o", str(project / "m1")]) == 1
    assert "shard(s) 2/2 missing" in capsys.readouterr().err
    assert not (project / "m1").exists()
    # The same split made with another text contract is another configuration.
    pytester.runpytest(
        "--tts-engine=replay", "--tts-results=c2/results.jsonl", "--tts-shard=2/2", "--tts-contract=mono"
    )
    assert main(["merge", str(project / "s1"), str(project / "c2"), "-o", str(project / "m2")]) == 1
    err = capsys.readouterr().err
    assert "c2/results.jsonl: made with another configuration" in err and "contract: raw → mono" in err


def test_merge_refuses_an_item_in_two_shards(
    pytester: pytest.Pytester, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _shard_runs(pytester, project)
    # A second copy of shard 1 posing as shard 2: every one of its items is already in shard 1.
    shutil.copytree(project / "s1", project / "fake2")
    header_file = header_path(project / "fake2" / "results.jsonl")
    header = json.loads(header_file.read_text(encoding="utf-8"))
    header["shard"] = "2/2"
    header_file.write_text(json.dumps(header), encoding="utf-8")
    # its header was edited: merged at all only with --allow-unverified, and then refused for the overlap
    assert main(["merge", str(project / "s1"), str(project / "fake2"), "-o", str(project / "m")]) == 1
    assert "no longer matches its manifest (modified: results.run.json)" in capsys.readouterr().err
    assert (
        main(["merge", str(project / "s1"), str(project / "fake2"), "-o", str(project / "m"), "--allow-unverified"])
        == 1
    )
    assert "is also in" in capsys.readouterr().err


def test_shards_are_stable_when_items_come_and_go_and_roughly_balanced() -> None:
    keys = [f"suite/item-{i}" for i in range(600)]
    before = {key: shard_of(key, 3) for key in keys}
    after = {key: shard_of(key, 3) for key in [*keys[50:], *(f"suite/new-{i}" for i in range(40))]}
    assert all(after[key] == before[key] for key in keys[50:])
    counts = [sum(1 for s in before.values() if s == i) for i in (1, 2, 3)]
    assert min(counts) > 160 and max(counts) < 240
    kept, dropped = select(keys, Shard(2, 3), lambda k: k)
    assert len(kept) == counts[1] and len(kept) + len(dropped) == 600


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/3", "3", "1/3/2"])
def test_a_bad_shard_names_the_option(text: str) -> None:
    with pytest.raises(ShardError, match="--tts-shard"):
        parse_shard(text)


def test_a_bad_shard_option_is_a_usage_error(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--tts-engine=replay", "--tts-shard=4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tts-shard '4/3': expected I/N with 1 <= I <= N*"])


def _fake_shard(folder: Path, shard: str, item: str, models: dict) -> Path:
    from result_rows import make_result

    from pytest_ttsbench.run_model.provenance import RunHeader, write_header
    from pytest_ttsbench.run_model.results import write_results

    results = folder / "results.jsonl"
    write_results(results, [make_result(engine="e", id=f"s/{item}")])
    route = {"name": "whisper:auto", "type": "whisper", "model": "auto", "models": models}
    write_header(
        header_path(results), RunHeader(created_at="2026-01-01", engines={"e": {}}, asr={"e": [route]}, shard=shard)
    )
    return folder


def test_shards_that_heard_other_languages_merge_their_models(tmp_path: Path) -> None:
    from pytest_ttsbench.run_model.merging import MergeError, merge_runs

    en = {"en": {"model": "tiny.en", "weights_sha256": "aa"}}
    ar = {"ar": {"model": "base", "weights_sha256": "bb"}}
    one = _fake_shard(tmp_path / "one", "1/2", "x", en)
    two = _fake_shard(tmp_path / "two", "2/2", "y", ar)
    merged = merge_runs([one, two], allow_unverified=True)
    assert merged.header.asr["e"][0]["models"] == {**en, **ar}
    assert merged.header.shards == ["1/2", "2/2"] and merged.header.shard is None
    other = _fake_shard(tmp_path / "other", "2/2", "y", {"en": {"model": "tiny.en", "weights_sha256": "cc"}})
    with pytest.raises(MergeError, match="heard 'en' with another model"):
        merge_runs([one, other], allow_unverified=True)


def test_the_gate_command_gates_quality_from_its_options_and_the_case_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from result_rows import make_result

    from pytest_ttsbench.run_model.provenance import RunHeader, write_header
    from pytest_ttsbench.run_model.results import write_results

    results = tmp_path / "run" / "results.jsonl"
    rows = [
        make_result(engine="e", suite="s", id=f"s/{i}", quality={"clipping_ratio": 0.004, "dnsmos_ovrl": 2.5})
        for i in range(3)
    ]
    for row in rows:
        row.quality_models = {"signal": "ttsbench"}
    write_results(results, rows)
    # The case file's own quality floor travels in the run header, as its accuracy floors do.
    header = RunHeader(
        engines={"e": {}}, case_files={"s": {"sha256": "x", "quality": {"floors": {"dnsmos_ovrl": 3.0}}}}
    )
    write_header(header_path(results), header)
    status = main(["gate", str(results), "--rootdir", str(tmp_path), "--tts-quality-ceiling", "clipping_ratio=0.001"])
    assert status == 1
    gate = json.loads((tmp_path / "run" / "results.gate.json").read_text(encoding="utf-8"))
    breached = {(c["measure"], c["kind"]) for c in gate["quality"]["gates"] if c["breached"]}
    assert breached == {("clipping_ratio", "ceiling"), ("dnsmos_ovrl", "floor")}
    capsys.readouterr()
    assert main(["gate", str(results), "--rootdir", str(tmp_path), "--tts-quality-tolerance", "dnsmos_ovrl=0.1"]) == 2
    assert "--tts-quality-tolerance (or quality.tolerance) needs --tts-baseline" in capsys.readouterr().err
