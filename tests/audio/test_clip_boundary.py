"""Every clip an engine sends is checked once, at decode_audio: a malformed one is an AudioDecodeError
(its item's error row), never another exception, and a clip that passes holds only finite samples."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from boundary_invariants import assert_outputs_clean, assert_terminal_clean
from hostile_engine import planned_wav
from hypothesis import example, given, settings
from hypothesis import strategies as st
from plugin_projects import read_jsonl

from pytest_ttsbench.audio.decoding import MAX_CHANNELS, SAMPLE_RATES, AudioDecodeError, decode_audio
from pytest_ttsbench.engines.base import Synthesis, synthesis_problem
from pytest_ttsbench.support.json_documents import NonFiniteNumber, dump_json, finite_or_null

FAKES = Path(__file__).resolve().parents[1] / "fakes"


def decodes_or_refuses(body: bytes, pcm_rate: int | None = None) -> None:
    try:
        decoded = decode_audio(body, pcm_rate, max_seconds=5.0)
    except AudioDecodeError:
        return
    assert np.isfinite(decoded.samples).all()
    assert decoded.source_sample_rate in SAMPLE_RATES
    assert 1 <= decoded.source_channels <= MAX_CHANNELS


WAV_HEADERS = st.fixed_dictionaries(
    {
        "format": st.sampled_from([1, 3, 0, 2, 6, 0xFFFE]) | st.integers(0, 0xFFFF),
        "channels": st.integers(0, 40),
        "rate": st.sampled_from([0, 1, 3_999, 4_000, 16_000, 384_000, 384_001, 2**31, 2**32 - 1])
        | st.integers(0, 2**32 - 1),
        "bits": st.sampled_from([0, 1, 8, 16, 24, 32, 64, 65535]) | st.integers(0, 0xFFFF),
        "fill": st.sampled_from(["tone", "nan", "inf", "zeros"]),
        "seconds": st.sampled_from([0.0, 0.01, 0.5]),
    }
)


@settings(max_examples=60, deadline=None)
@given(WAV_HEADERS)
@example({"format": 1, "channels": 1, "rate": 16_000, "bits": 0, "fill": "tone", "seconds": 0.1})  # the probe
@example({"format": 3, "channels": 1, "rate": 16_000, "bits": 32, "fill": "nan", "seconds": 0.5})  # the probe
@example({"format": 3, "channels": 2, "rate": 48_000, "bits": 64, "fill": "inf", "seconds": 0.5})
def test_any_wav_header_decodes_to_a_sane_clip_or_is_refused(header) -> None:
    decodes_or_refuses(planned_wav(header))


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=600), st.sampled_from([b"", b"RIFF", b"fLaC", b"ID3", b"OggS", b"\xff\xfb"]))
def test_any_bytes_decode_or_are_refused(body: bytes, magic: bytes) -> None:
    decodes_or_refuses(magic + body)


@settings(max_examples=30, deadline=None)
@given(st.integers(-(2**40), 2**40) | st.sampled_from([-16_000, 0, 10**12, 3_999, 384_001]))
def test_headerless_pcm_at_any_rate_decodes_or_is_refused(rate: int) -> None:
    decodes_or_refuses(b"\x01\x00" * 800, rate)


@pytest.mark.parametrize(
    ("synthesis", "problem"),
    [
        ("audio", "not a Synthesis"),
        (Synthesis(audio="text"), "not bytes"),  # type: ignore[arg-type]
        (Synthesis(audio=b"x", pcm_sample_rate=-16_000), "outside"),
        (Synthesis(audio=b"x", pcm_sample_rate=16_000.5), "must be an integer"),  # type: ignore[arg-type]
        (Synthesis(transcripts={"whisper": 3}), "transcripts"),  # type: ignore[dict-item]
        (Synthesis(audio=b"x", metadata=[1]), "metadata"),  # type: ignore[arg-type]
    ],
)
def test_a_synthesis_that_breaks_the_contract_says_how(synthesis, problem) -> None:
    assert problem in (synthesis_problem(synthesis) or "")


NESTED = st.recursive(
    st.floats(allow_nan=True, allow_infinity=True) | st.integers() | st.text(max_size=5) | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


@given(NESTED)
def test_the_one_json_writer_never_writes_nan(document) -> None:
    cleaned, nulled = finite_or_null(document)
    json.loads(dump_json(cleaned), parse_constant=lambda name: pytest.fail(f"{name} written"))
    if nulled:
        with pytest.raises(NonFiniteNumber, match="not a finite number"):
            dump_json(document)
    text = dump_json(document, null_non_finite=True)
    assert json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} written")) == json.loads(
        dump_json(cleaned)
    )


PROBES = {
    "b/zero-bits": {"kind": "wav", "format": 1, "channels": 1, "rate": 16_000, "bits": 0, "seconds": 0.5},
    "b/nan-float": {"kind": "wav", "format": 3, "channels": 1, "rate": 16_000, "bits": 32, "fill": "nan"},
    "b/rate-negative": {"kind": "samples", "rate": -16_000},
    "b/rate-huge": {"kind": "samples", "rate": 10**12},
    "b/pcm-rate-zero": {"kind": "pcm", "rate": 0},
    "b/pcm-rate-huge": {"kind": "pcm", "rate": 10**12},
    "b/not-audio": {"kind": "value", "value": {"audio": "text"}},
}
REASONS = {
    "b/zero-bits": "undecodable audio",
    "b/nan-float": "not finite numbers",
    "b/rate-negative": "outside 4,000..384,000 Hz",
    "b/rate-huge": "outside 4,000..384,000 Hz",
    "b/pcm-rate-zero": "outside 4,000..384,000 Hz",
    "b/pcm-rate-huge": "outside 4,000..384,000 Hz",
    "b/not-audio": "sample rate must be an integer",
}


def write_hostile_project(root: Path, plan: dict[str, dict]) -> None:
    """A project whose items are said by ``hostile_engine`` following ``plan``; its one ASR route echoes."""
    (root / "hostile_engine.py").write_text((FAKES / "hostile_engine.py").read_text(encoding="utf-8"), "utf-8")
    (root / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    items = "".join(
        f'  - {{id: {key.split("/", 1)[1]}, category: c, text: "It opened in 2026.", expect: {{values: ["2026"]}}}}\n'
        for key in plan
        if key != "*"
    )
    (root / "cases").mkdir(exist_ok=True)
    (root / "cases" / "b.yaml").write_text(f"suite: b\nlanguage: en\nscorer: numbers\nitems:\n{items}", "utf-8")
    route = {"type": "command", "name": "echo", "command": [sys.executable, "-c", "print('It opened in 2026.')"]}
    engine = {"type": "python", "factory": "hostile_engine:load", "options": {"plan": str(root / "plan.json")}}
    config = {"asr": {"routes": [route]}, "engines": {"hostile": engine}}
    (root / "ttsbench.yaml").write_text(json.dumps(config), encoding="utf-8")


def test_every_malformed_clip_is_its_items_error_row(pytester: pytest.Pytester) -> None:
    write_hostile_project(pytester.path, PROBES)
    result = pytester.runpytest_subprocess("--tts-engine=hostile", "--tts-results=out/r.jsonl")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 1, output[-2000:]
    assert_terminal_clean(output)
    assert_outputs_clean(pytester.path / "out")
    rows = {row["id"]: row for row in read_jsonl(pytester.path / "out" / "r.jsonl")}
    assert set(rows) == set(PROBES)
    for item, reason in REASONS.items():
        assert rows[item]["verdict"] == "error" and reason in rows[item]["error"], (item, rows[item]["error"])
