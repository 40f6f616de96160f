"""External benchmark files named in the configuration with their SHA-256: run when they are the
pinned copy, refused with both hashes when they differ, and with where to get them when missing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from plugin_projects import NUMERALS, read_jsonl, write_project

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cn-news-tts-bench-v0.1"
REPLAY = "engines:\n  replay: {type: transcripts, path: runs/replay.jsonl}\n"


def _pinned_project(pytester: pytest.Pytester, body: str, sha256: str, extra: str = "") -> Path:
    write_project(pytester, cases={"own.yaml": NUMERALS.replace("demo-numerals", "own-numerals")})
    bench = pytester.path / "bench"
    bench.mkdir()
    (bench / "full.yaml").write_text(body, encoding="utf-8")
    pin = {"path": "bench/full.yaml", "sha256": sha256, "source": "the vendor's release page" + extra}
    config = REPLAY + "external: " + json.dumps([pin])  # JSON is YAML
    (pytester.path / "ttsbench.yaml").write_text(config + "\n", encoding="utf-8")
    return bench / "full.yaml"


def test_the_pinned_copy_runs_beside_the_case_folders(pytester: pytest.Pytester) -> None:
    _pinned_project(pytester, NUMERALS, hashlib.sha256(NUMERALS.encode()).hexdigest())
    pytester.runpytest("-p", "no:cacheprovider", "--tts-engine=replay", "--tts-results=out/r.jsonl")
    rows = read_jsonl(pytester.path / "out" / "r.jsonl")
    assert sorted({row["suite"] for row in rows}) == ["demo-numerals", "own-numerals"]
    assert {row["node_id"].split("::")[0] for row in rows if row["suite"] == "demo-numerals"} == {"bench/full.yaml"}


def test_a_different_copy_is_refused_naming_both_hashes(pytester: pytest.Pytester) -> None:
    pinned = hashlib.sha256(NUMERALS.encode()).hexdigest()
    changed = NUMERALS.replace("2026", "2027")
    _pinned_project(pytester, changed, pinned)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tts-engine=replay", "--tts-results=out/r.jsonl")
    text = "\n".join(result.outlines)
    actual = hashlib.sha256(changed.encode()).hexdigest()
    assert f"SHA-256 {actual}, but" in text and f"field external[0].sha256 expects {pinned}" in text
    assert "ttsbench.yaml" in text and "the vendor's release page" in text
    assert result.ret != 0
    assert "ERROR bench/full.yaml" in text  # a collection error like any bad case file: nothing was synthesized
    assert not (pytester.path / "out" / "r.jsonl").exists()
    # named on the command line, the file is checked against its pin too
    named = pytester.runpytest("-p", "no:cacheprovider", "--co", "--tts-engine=replay", "bench/full.yaml")
    assert f"expects {pinned}" in "\n".join(named.outlines)


def test_a_missing_copy_says_where_to_get_it(pytester: pytest.Pytester) -> None:
    path = _pinned_project(pytester, NUMERALS, "0" * 64)
    path.unlink()
    result = pytester.runpytest("-p", "no:cacheprovider", "--co", "--tts-engine=replay")
    text = "\n".join(result.outlines)
    assert "bench/full.yaml: not found, named by" in text and "field external[0]" in text
    assert "obtain it: the vendor's release page" in text


def test_plain_pytest_neither_reads_nor_hashes_them(pytester: pytest.Pytester) -> None:
    path = _pinned_project(pytester, NUMERALS, "0" * 64)
    path.unlink()  # a missing external file is no concern of an ordinary test run
    result = pytester.runpytest("-p", "no:cacheprovider")
    # nothing of ours is collected: pytest's own "no tests ran", and no word of the external file
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED and "full.yaml" not in "\n".join(result.outlines)


def test_a_bad_pin_is_a_configuration_error(pytester: pytest.Pytester) -> None:
    _pinned_project(pytester, NUMERALS, "not-a-hash")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tts-engine=replay")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "field external.0.sha256" in "\n".join(result.errlines)


@pytest.mark.skipif(not SHARED.is_dir(), reason="CN-NewsTTS Bench data not found at ../shared/data")
def test_the_cn_news_public_split_pinned_by_its_hash(pytester: pytest.Pytester) -> None:
    split = SHARED / "test_public.jsonl"
    sha = hashlib.sha256(split.read_bytes()).hexdigest()
    (pytester.path / "ttsbench.yaml").write_text(
        json.dumps({"external": [{"path": str(split), "sha256": sha}]}), encoding="utf-8"
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--co", "-q", "--tts-engine=espeak", "--tts-all-languages")
    listed = [line for line in result.outlines if "test_public.jsonl::cn-news-" in line]
    assert len(listed) > 100, result.outlines[-10:]
