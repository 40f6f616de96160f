"""Cache keys: everything that shapes a clip or a transcript is in its key, and no secret ever is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ttsbench.asr.whisper import WhisperRoute
from pytest_ttsbench.config import load_settings
from pytest_ttsbench.support.cache import (
    CacheError,
    audio_key_material,
    cache_key,
    parse_size,
    resolve_cache_dir,
    transcript_key_material,
)

SECRET = "sk-live-4b1d9e0c-cache-must-never-hold-me"

CONFIG = """\
engines:
  vendor:
    type: openai
    base_url: https://tts.example.com/v1
    model: tts-1
    voice: alloy
    api_key_env: VENDOR_TTS_KEY
    speed: 1.0
    concurrency: 4
    timeout_s: 20
"""


def _audio_key(profile_options: dict, **changes: object) -> str:
    fields = {
        "engine_type": "openai",
        "options": profile_options,
        "voice": "alloy",
        "language": "en",
        "text": "The plant opened in 2026.",
        "generation": 0,
    }
    fields.update(changes)
    return cache_key(audio_key_material(**fields))  # type: ignore[arg-type]


@pytest.fixture
def vendor_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setenv("VENDOR_TTS_KEY", SECRET)
    (tmp_path / "ttsbench.yaml").write_text(CONFIG, encoding="utf-8")
    return dict(load_settings(tmp_path).engines["vendor"].options)


def test_no_secret_reaches_a_key(vendor_options: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    # Options that look like credentials are dropped even if someone wrote one in the profile.
    options = {**vendor_options, "api_key": SECRET, "auth_token": SECRET, "extra_headers_env": "HDR"}
    material = audio_key_material("openai", options, "alloy", "en", "text", 0)
    canonical = json.dumps(material)
    assert SECRET not in canonical and "VENDOR_TTS_KEY" not in canonical and "HDR" not in canonical
    # The key is the same whatever the secret's value: it cannot depend on it.
    before = _audio_key(vendor_options)
    monkeypatch.setenv("VENDOR_TTS_KEY", "sk-another-value-entirely")
    assert _audio_key(vendor_options) == before


@pytest.mark.parametrize(
    ("option", "value"),
    [("speed", 1.1), ("model", "tts-1-hd"), ("base_url", "https://eu.tts.example.com/v1"), ("instructions", "calm")],
)
def test_a_changed_option_is_a_new_key(vendor_options: dict, option: str, value: object) -> None:
    assert _audio_key({**vendor_options, option: value}) != _audio_key(vendor_options)


@pytest.mark.parametrize(
    "change",
    [
        {"voice": "nova"},
        {"text": "The plant opened in 2027."},
        {"language": "en-GB"},
        {"engine_type": "azure"},
        {"generation": 1},  # --tts-repeats: each generation is its own, independent clip
        {"engine_identity": {"library_version": "1.52"}},
    ],
)
def test_whatever_shapes_the_audio_is_in_the_key(vendor_options: dict, change: dict) -> None:
    assert _audio_key(vendor_options, **change) != _audio_key(vendor_options)


def test_connection_tuning_is_not_in_the_key(vendor_options: dict) -> None:
    tuned = {**vendor_options, "concurrency": 16, "timeout_s": 90, "requests_per_second": 2, "max_retries": 7}
    assert _audio_key(tuned) == _audio_key(vendor_options)


def _fake_model(folder: Path, weights: bytes) -> Path:
    folder.mkdir()
    (folder / "model.bin").write_bytes(weights)
    (folder / "config.json").write_text("{}", encoding="utf-8")
    return folder


def test_a_changed_model_is_a_new_transcript_key(tmp_path: Path) -> None:
    one = WhisperRoute(str(_fake_model(tmp_path / "model-a", b"weights one")))
    two = WhisperRoute(str(_fake_model(tmp_path / "model-b", b"weights two")))
    same_weights = WhisperRoute(str(_fake_model(tmp_path / "model-c", b"weights one")))

    def key(route: WhisperRoute, language: str = "en", audio: str = "ab" * 32) -> str:
        return cache_key(transcript_key_material(audio, route.cache_identity(language), language))

    assert key(one) != key(two)  # other weights
    assert one.cache_identity("en")["weights_sha256"] == same_weights.cache_identity("en")["weights_sha256"]
    assert key(one) != key(one, language="zh")
    assert key(one) != key(one, audio="cd" * 32)
    beam = WhisperRoute(one.model, beam_size=1)
    int8_float = WhisperRoute(one.model, compute_type="int8_float32")
    assert len({key(one), key(beam), key(int8_float)}) == 3
    identity = one.cache_identity("en")
    # batch_items: auto on the CPU decodes clips of 8 items together (asr/batching.py)
    assert identity["faster_whisper"] and identity["ctranslate2"] and identity["batching"] == "cross_item:8"


def test_the_cache_folder_follows_option_then_configuration_then_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TTSBENCH_CACHE_DIR", raising=False)
    assert resolve_cache_dir(None, None, tmp_path) == tmp_path / ".ttsbench" / "cache"
    monkeypatch.setenv("TTSBENCH_CACHE_DIR", str(tmp_path / "shared"))
    assert resolve_cache_dir(None, None, tmp_path) == tmp_path / "shared" / "clips"
    assert resolve_cache_dir(None, "ci-cache", tmp_path) == tmp_path / "ci-cache"
    assert resolve_cache_dir(str(tmp_path / "flag"), "ci-cache", tmp_path) == tmp_path / "flag"


@pytest.mark.parametrize(
    ("text", "size"), [("2GB", 2 * 10**9), ("500 MB", 500 * 10**6), ("1.5GiB", 3 * 2**29), (42, 42)]
)
def test_sizes(text: str | int, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "-5MB", "GB", -1])
def test_bad_sizes_name_themselves(text: str | int) -> None:
    with pytest.raises(CacheError, match="cache size"):
        parse_size(text)
