"""Every cache entry is trusted only by its content: one changed, dropped or added byte anywhere in a
clip, transcript, clip's quality figures or parsed case file is a counted ``damaged`` miss, never a
hit with other content."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ttsbench.cli import main
from pytest_ttsbench.support.cache import CachedAudio, CachedTranscript, ClipCache
from pytest_ttsbench.support.yaml_documents import load_yaml, load_yaml_cached

KEY = "a1" * 32
CASE_FILE = (
    "suite: s\nlanguage: en\nscorer: numbers\nitems:\n"
    '  - {id: a, category: years, text: "In 1776.", expect: {values: ["1776"]}}\n'
)


def _store(cache: ClipCache, kind: str, payload: bytes) -> Path:
    """One entry of ``kind`` holding ``payload``; returns its file."""
    if kind == "audio":
        cache.put_audio(KEY, CachedAudio(payload, "audio/wav", 16_000, {"seed": 3}))
    elif kind == "transcripts":
        text = payload.decode("latin-1")
        cache.put_transcript(KEY, CachedTranscript(text, ("flag",), "en", {"tokens": len(text)}))
    elif kind == "quality":
        cache.put_quality(KEY, {"speaking_rate": float(len(payload)), "dnsmos_ovrl": None, "peak_dbfs": -1.5})
    else:
        load_yaml_cached(CASE_FILE.replace("1776", str(len(payload))), cache)
    (path,) = (cache.root / kind).rglob("*.*")
    return path


def _read(cache: ClipCache, kind: str, payload: bytes) -> tuple[object, str]:
    if kind == "audio":
        return cache.read_audio(KEY)
    if kind == "transcripts":
        return cache.read_transcript(KEY)
    if kind == "quality":
        return cache.read_quality(KEY)
    text = CASE_FILE.replace("1776", str(len(payload)))
    return load_yaml_cached(text, cache), "parsed"


corruptions = st.tuples(
    st.sampled_from(["replace", "drop", "insert"]), st.integers(min_value=0), st.integers(min_value=1, max_value=255)
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["audio", "transcripts", "quality", "parsed"]),
    payload=st.binary(min_size=1, max_size=300),
    corruption=corruptions,
)
def test_any_single_byte_corruption_of_any_entry_is_a_counted_miss(
    kind: str, payload: bytes, corruption: tuple[str, int, int]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cache = ClipCache(Path(folder))
        path = _store(cache, kind, payload)
        good = _read(cache, kind, payload)
        data = bytearray(path.read_bytes())
        how, where, value = corruption
        at = where % len(data)
        if how == "replace":
            data[at] = (data[at] + value) % 256  # value in 1..255: always a different byte
        elif how == "drop":
            del data[at]
        else:
            data.insert(at, value)
        path.write_bytes(bytes(data))

        entry, status = _read(cache, kind, payload)
        assert cache.damaged == {kind: 1}  # counted, once
        if kind == "parsed":
            # parsed again from the text, exactly as a fresh parse
            assert entry == load_yaml(CASE_FILE.replace("1776", str(len(payload)))) == good[0]
        else:
            assert (entry, status) == (None, "damaged")
        assert len(list(Path(folder).rglob(".*"))) == 0  # no temporary file left


def test_an_entry_moved_under_another_key_is_damaged(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path)
    cache.put_transcript(KEY, CachedTranscript("heard 1776", (), "en", {}))
    other = "b2" * 32
    (source,) = (tmp_path / "transcripts").rglob("*.json")
    target = tmp_path / "transcripts" / other[:2] / f"{other}.json"
    target.parent.mkdir(parents=True)
    source.rename(target)
    assert cache.read_transcript(other) == (None, "damaged")
    assert cache.read_transcript(KEY) == (None, "miss")  # no entry there any more: a plain miss


def test_an_intact_entry_of_each_kind_is_a_hit(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path)
    _store(cache, "audio", b"RIFF....")
    _store(cache, "transcripts", b"heard")
    _store(cache, "quality", b"four")
    entry, status = cache.read_audio(KEY)
    assert status == "hit" and entry == CachedAudio(b"RIFF....", "audio/wav", 16_000, {"seed": 3})
    assert cache.read_transcript(KEY)[1] == "hit"
    assert cache.read_quality(KEY) == ({"speaking_rate": 4.0, "dnsmos_ovrl": None, "peak_dbfs": -1.5}, "hit")
    assert load_yaml_cached(CASE_FILE, cache) == load_yaml(CASE_FILE) == load_yaml_cached(CASE_FILE, cache)
    assert not cache.damaged


def test_cache_check_lists_damaged_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = ClipCache(tmp_path)
    _store(cache, "audio", b"clip")
    parsed = _store(cache, "parsed", b"x")
    assert main(["cache", "check", "--dir", str(tmp_path)]) == 0
    parsed.write_bytes(parsed.read_bytes().replace(b"1", b"7"))
    capsys.readouterr()
    assert main(["cache", "check", "--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"damaged parsed entry: {parsed}" in out and "2 entries checked, 1 damaged" in out
    assert main(["cache", "stats", "--dir", str(tmp_path)]) == 0
    assert "case files:        1" in capsys.readouterr().out
