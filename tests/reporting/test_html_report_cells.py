"""The cell helpers shared by the HTML report and the dashboard: evidence, transcripts, clips."""

from __future__ import annotations

import base64
import wave
from pathlib import Path

from result_rows import make_result

from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.reporting.html import ClipStore, evidence_text, expected_text, heard_html, locate_clip
from pytest_ttsbench.run_model.results import ItemResult


def result(**changes: object) -> ItemResult:
    base = {"id": "s/i", "verdict": "wrong", "transcript": "one", "expected": {"values": ["12"]}, "scorer": "numbers"}
    return make_result(**{**base, **changes})


def clip(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x10\x00" * 4000)
    return path


def test_every_route_is_shown_with_its_verdict_and_escaped() -> None:
    many = result(
        transcripts={"whisper:base": "twelve <b>", "cmd:other": "one two"},
        route_verdicts={"whisper:base": "correct", "cmd:other": "wrong"},
    )
    shown = heard_html(many)
    assert "whisper:base (correct):</span> twelve &lt;b&gt;" in shown
    assert "cmd:other (wrong):</span> one two" in shown
    assert heard_html(result(transcripts={"r": "x"}, transcript="x & y")) == "x &amp; y"
    assert heard_html(result(transcript=None)) == "(nothing)"


def test_evidence_says_why() -> None:
    assert (
        evidence_text(result(verdict="error", error="synthesis failed: HTTP 500"))
        == "error: synthesis failed: HTTP 500"
    )
    assert evidence_text(result(evidence={"missing": ["12"], "heard": ["1", "2"]})) == "missing: 12; parsed: 1, 2"
    readings = result(evidence={"negative": ["歼负二十"], "matched": [], "note": "span 歼-20"})
    assert evidence_text(readings) == "forbidden reading heard: 歼负二十; span 歼-20"
    assert evidence_text(result(verdict="correct", evidence={"matched": ["12"]})) == "matched: 12"


def test_expected_in_the_scorers_words_even_for_unknown_scorers() -> None:
    assert expected_text(result()) == "values 12"
    assert expected_text(result(scorer="retired-scorer", expected={"x": 1})) == '{"x": 1}'


def test_clips_are_copied_once_and_linked_relatively(tmp_path: Path) -> None:
    source = clip(tmp_path / "run" / "audio" / "e" / "s" / "i-abc.wav")
    row = result(audio_path=str(source))
    store = ClipStore(tmp_path / "site")
    assert store.href(row) == "audio/e/s/i-abc.wav"
    assert store.href(row, page_dir=tmp_path / "site" / "items") == "../audio/e/s/i-abc.wav"
    assert (tmp_path / "site" / "audio" / "e" / "s" / "i-abc.wav").read_bytes() == source.read_bytes()
    embedded = ClipStore(tmp_path / "single", embed=True).href(row)
    assert embedded is not None and embedded.startswith("data:audio/wav;base64,")
    assert decode_audio(base64.b64decode(embedded.split(",", 1)[1])).seconds == 0.5
    assert not (tmp_path / "single").exists()  # nothing written beside a self-contained page
    assert store.player(result(audio_path=None)) == "(no audio)"
    assert store.player(result(audio_path="/gone/x.wav")) == "(clip not found: x.wav)"


def test_clips_of_a_moved_run_are_found_beside_its_results(tmp_path: Path) -> None:
    moved = tmp_path / "archive" / "night-1"
    clip(moved / "audio" / "e" / "s" / "i-abc.wav")
    clip(tmp_path / "archive" / "flat-audio" / "e" / "s" / "j-def.wav")
    clip(moved / "relative" / "k.wav")
    results = moved / "results.jsonl"
    assert locate_clip(result(audio_path="/old/machine/audio/e/s/i-abc.wav"), results) == moved / "audio/e/s/i-abc.wav"
    flat = tmp_path / "archive" / "flat.jsonl"
    assert locate_clip(result(audio_path="/old/j-def.wav"), flat) == tmp_path / "archive/flat-audio/e/s/j-def.wav"
    assert locate_clip(result(audio_path="relative/k.wav"), results) == moved / "relative/k.wav"
    assert locate_clip(result(audio_path="/old/none.wav"), results) is None


def test_unread_spans_are_shown_under_what_was_heard_and_in_the_evidence() -> None:
    unsure = result(
        verdict="unknown",
        transcript="it was forty below <b>",
        evidence={"missing": ["-40"], "heard": ["40"], "unread": ["forty below <b>"]},
    )
    assert heard_html(unsure) == (
        'it was forty below &lt;b&gt;<div class="ttsbench-unread">unread: &#39;forty below &lt;b&gt;&#39;</div>'
    )
    assert evidence_text(unsure) == "missing: -40; parsed: 40; unread: 'forty below <b>'"
    assert "ttsbench-unread" not in heard_html(result())
