"""Provenance: the run header beside every results file and the per-row synthesis facts, free of secrets."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from plugin_projects import write_cloud_echo_project
from tts_providers import FakeOpenAI, Recorded, Reply

from pytest_ttsbench.asr import models as weights_models
from pytest_ttsbench.run_model import provenance
from pytest_ttsbench.run_model.provenance import RunHeader, differences, header_path, read_header, recognizer_changes

KEY_ENV = "TTSBENCH_PROVENANCE_KEY"
KEY = "sk-provenance-5d0c-never-write-me"

CASES = """\
suite: prov-numerals
language: en
scorer: numbers
thresholds: {default: 0.5}
items:
  - {id: year-2026, category: years, text: "It opened in 2026.", expect: {values: ["2026"]}}
  - {id: year-1984, category: years, text: "It opened in 1984.", expect: {values: ["1984"]}}
"""


class VersionedOpenAI(FakeOpenAI):
    """The OpenAI fake, answering with the model and API version headers a provider may send."""

    def handle(self, req: Recorded) -> Reply:
        reply = super().handle(req)
        reply.headers.update({"openai-model": "tts-1-2026-05-01", "openai-version": "2020-10-01"})
        return reply


@pytest.fixture
def cloud_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    fake = VersionedOpenAI(key=KEY).start()
    write_cloud_echo_project(pytester, {"prov.yaml": CASES}, fake.url, KEY_ENV, speed=1.1)
    yield pytester.path, fake
    fake.stop()


def test_header_and_rows_record_what_made_the_run_and_no_secret(pytester: pytest.Pytester, cloud_project) -> None:
    root, fake = cloud_project
    result = pytester.runpytest("--tts-engine=cloud", "--tts-results=out/results.jsonl", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # 1984 is heard as 2026
    header = json.loads(header_path(root / "out" / "results.jsonl").read_text(encoding="utf-8"))

    software = header["software"]
    assert set(software) >= {"python", "pytest-ttsbench", "pytest", "faster-whisper", "ctranslate2"}
    assert software["python"] == ".".join(map(str, sys.version_info[:3]))
    assert software["pytest"] == pytest.__version__

    engine = header["engines"]["cloud"]
    host = fake.url.split("//", 1)[1]
    assert engine["type"] == "openai" and engine["endpoint_host"] == host  # no path, no query string
    assert engine["voice"] == "alloy"
    assert engine["settings"]["model"] == "tts-1" and engine["settings"]["speed"] == 1.1
    assert "api_key_env" not in engine["settings"]  # not even the variable's name

    (route,) = header["asr"]["cloud"]
    assert (route["name"], route["type"]) == ("echo", "command")
    case = header["case_files"]["prov-numerals"]
    assert case["sha256"] == hashlib.sha256((root / "cases" / "prov.yaml").read_bytes()).hexdigest()
    assert case["thresholds"] == {"default": 0.5}
    assert (header["contract"], header["repeats"], header["shard"]) == ("raw", 1, None)

    rows = [json.loads(line) for line in (root / "out" / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2
    for row in rows:
        made = row["generation"]
        assert (made["provider"], made["model"], made["voice"]) == ("openai", "tts-1", "alloy")
        facts = made["settings"]
        assert facts["response_format"] == "wav" and facts["endpoint_host"] == host
        assert facts["provider_headers"] == {"openai-model": "tts-1-2026-05-01", "openai-version": "2020-10-01"}
        assert "request_id" not in facts and "total_seconds" not in facts  # per-request, not the voice's

    # The key went to the server, and nothing written beside the results holds it.
    assert fake.requests and all(r.headers["authorization"] == f"Bearer {KEY}" for r in fake.requests)
    for path in (p for p in root.rglob("*") if p.is_file() and p.parent.name != "cases" and p.name != "ttsbench.yaml"):
        assert KEY.encode() not in path.read_bytes(), path


def test_the_header_is_written_before_the_first_result_line(pytester: pytest.Pytester, cloud_project) -> None:
    root, _ = cloud_project
    seen: list[bool] = []
    results = root / "out" / "results.jsonl"

    class Spy:
        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_logreport(self, report):  # type: ignore[no-untyped-def]
            if report.when == "call" and not results.exists():
                # The recorder (which writes the first line) runs inside this wrapper.
                yield
                seen.append(header_path(results).is_file() and results.is_file())
                return None
            return (yield)

    pytester.runpytest("--tts-engine=cloud", f"--tts-results={results}", "-p", "no:cacheprovider", plugins=[Spy()])
    assert seen == [True]


def test_weights_hash_is_the_sha256_of_model_bin_and_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.bin").write_bytes(b"weights" * 1000)
    (model / "config.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(weights_models, "_cache_file", lambda: tmp_path / "cache" / "weights-sha256.json")
    expected = hashlib.sha256(b"weights" * 1000).hexdigest()
    assert weights_models.weights_sha256(model) == expected

    def no_rehash(files):  # type: ignore[no-untyped-def]
        raise AssertionError("hashed again although nothing changed")

    monkeypatch.setattr(weights_models, "hash_files", no_rehash)
    assert weights_models.weights_sha256(model) == expected
    monkeypatch.undo()
    monkeypatch.setattr(weights_models, "_cache_file", lambda: tmp_path / "cache" / "weights-sha256.json")
    (model / "model.bin").write_bytes(b"other weights")
    assert weights_models.weights_sha256(model) == hashlib.sha256(b"other weights").hexdigest()

    # A figure edited by one byte is never taken: the weights are hashed again.
    other = hashlib.sha256(b"other weights").hexdigest()
    figures = tmp_path / "cache" / "weights-sha256.json"
    figures.write_bytes(
        figures.read_bytes().replace(other.encode(), ("f" if other[0] != "f" else "e").encode() + other[1:].encode())
    )
    assert weights_models.weights_sha256(model) == other


def test_secret_named_settings_and_echoed_secrets_are_dropped() -> None:
    settings = provenance.clean_settings(
        {"model": "m", "api_key_env": "X", "client_secret": "s", "endpoint": "https://u:p@h.example:8443/a?key=1"}
    )
    assert settings == {"model": "m", "endpoint": "h.example:8443"}
    facts = provenance.synthesis_facts({"voice": "v", "echo": "sk-secret-value", "attempts": 2}, ["sk-secret-value"])
    assert facts == {"voice": "v"}


def _header(model: str, beam: int = 5, sha: str = "aa", engine: str = "espeak") -> RunHeader:
    route = {
        "name": "whisper:auto",
        "type": "whisper",
        "model": "auto",
        "beam_size": beam,
        "compute_type": "int8",
        "models": {"en": {"model": model, "weights_sha256": sha}},
    }
    return RunHeader(created_at="2026-01-01T00:00:00+00:00", software={}, engines={engine: {}}, asr={engine: [route]})


def test_recognizer_changes_name_the_model_and_the_decoding_mode() -> None:
    same = recognizer_changes(_header("tiny.en"), _header("tiny.en"))
    assert same == []
    changed = recognizer_changes(_header("tiny.en", sha="aa"), _header("base", sha="bb", beam=1))
    assert any(c.startswith("ASR model differs") and "tiny.en → base" in c for c in changed)
    assert any(c.startswith("ASR decoding differs") and "beam_size): 5 → 1" in c for c in changed)
    # One engine on each side under another name is still the same system's recognizer.
    renamed = recognizer_changes(_header("tiny.en", engine="espeak-1.51"), _header("base", engine="espeak-1.52"))
    assert renamed and "espeak-1.52" in renamed[0]
    assert any("engines" in line for line in differences(_header("x", engine="a"), _header("x", engine="b")))


def test_read_header_names_a_broken_file(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text("", encoding="utf-8")
    assert read_header(results) is None
    header_path(results).write_text("[1, 2", encoding="utf-8")
    with pytest.raises(provenance.RunHeaderError, match=r"r\.run\.json: not a readable run header"):
        read_header(results)
