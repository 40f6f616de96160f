"""Clips of several items decoded together (asr/whisper_batch.py, asr/batching.py), on real
eSpeak NG audio and the real Whisper tiny.en.

What is under test is ours: that a clip decoded in a batch comes out as the same clip decoded
alone by the same model (text, flags, segments and every recorded fact), in its own place
whatever the lengths around it, that one clip's failure stays its own, and that the mode reaches
the rows and the run header. Where a failure is needed, the decoder is made to fail by the test
(a stand-in in front of the real CTranslate2 model, as tests/support/forced_decoder.py does).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from forced_decoder import force_a_loop
from processes import run, written_by
from shipped_packs import pack_file

from pytest_ttsbench.asr.base import AsrError, Transcription
from pytest_ttsbench.asr.batching import ReadyClip, TranscriptionStage
from pytest_ttsbench.asr.whisper import (
    CPU_ITEMS_BATCH,
    FLAG_BOUNDED,
    FLAG_REPETITION,
    WhisperRoute,
    decoder_max_new_tokens,
    resolve_batching,
    window_token_budget,
)
from pytest_ttsbench.audio.decoding import DecodedAudio, decode_audio
from pytest_ttsbench.cases.model import CaseItem, Target
from pytest_ttsbench.config import BUILTIN_PROFILES, EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest
from pytest_ttsbench.engines.espeak import EspeakEngine
from pytest_ttsbench.pipeline.evaluator import Evaluator, RunOptions
from pytest_ttsbench.run_model.provenance import read_header

# Different lengths on purpose, longest third: a batch must hand each clip its own transcript.
TEXTS = (
    "Flight 237 leaves from gate 14.",
    "Room 12.",
    "The invoice of March 3rd 2024 came to 1,250 dollars and 40 cents, payable within 30 days.",
    "Call 555 0199 after 6 pm.",
)
# What a batch may differ in from the clip alone: the mode's name and how many clips shared the call.
MODE_DETAILS = ("batching", "decoded_with_clips")


@pytest.fixture(scope="module")
def espeak() -> EspeakEngine:
    return EspeakEngine(EngineProfile(name="espeak", type="espeak", voice=BUILTIN_PROFILES["espeak"]["voice"]))


@pytest.fixture(scope="module")
def clips(espeak: EspeakEngine) -> list[DecodedAudio]:
    return [decode_audio(espeak.synthesize(SynthesisRequest(text, "en")).audio) for text in TEXTS]


@pytest.fixture(scope="module")
def alone() -> WhisperRoute:
    route = WhisperRoute("tiny.en", batch_items=1)
    try:
        route.load("en")
    except Exception as exc:
        pytest.skip(f"tiny.en is not installed here: {exc}")
    return route


@pytest.fixture(scope="module")
def singles(alone: WhisperRoute, clips: list[DecodedAudio]) -> list[Transcription]:
    return [alone.transcribe(clip, "en") for clip in clips]


def _same_hearing(together: Transcription | AsrError, single: Transcription) -> None:
    assert isinstance(together, Transcription), together
    assert (together.text, together.flags, together.language) == (single.text, single.flags, single.language)
    strip = {key: value for key, value in together.details.items() if key not in MODE_DETAILS}
    assert strip == {key: value for key, value in single.details.items() if key not in MODE_DETAILS}


def test_clips_decoded_together_are_heard_as_each_alone_in_their_own_places(
    clips: list[DecodedAudio], singles: list[Transcription]
) -> None:
    route = WhisperRoute("tiny.en", batch_items=4)
    assert route.batching == "cross_item:4" and route.items_batch == 4

    heard = route.transcribe_together(clips, "en")
    assert len(heard) == len(clips)
    for together, single in zip(heard, singles, strict=True):
        _same_hearing(together, single)
        assert isinstance(together, Transcription)
        assert together.details["batching"] == "cross_item:4" and together.details["decoded_with_clips"] == 4
    assert len({h.text for h in heard if isinstance(h, Transcription)}) == len(TEXTS)  # four different clips

    # Another order of the same clips: each transcript follows its clip.
    order = [2, 0, 3, 1]
    for together, n in zip(route.transcribe_together([clips[n] for n in order], "en"), order, strict=True):
        _same_hearing(together, singles[n])


def test_a_clip_that_cannot_be_decoded_fails_alone(clips: list[DecodedAudio], singles: list[Transcription]) -> None:
    empty = DecodedAudio(clips[0].samples[:0], clips[0].sample_rate, clips[0].sample_rate, 1, "wav", 2)
    heard = WhisperRoute("tiny.en", batch_items=4).transcribe_together([clips[0], empty, clips[1]], "en")
    assert isinstance(heard[1], AsrError) and "empty clip" in str(heard[1])
    _same_hearing(heard[0], singles[0])
    _same_hearing(heard[2], singles[1])


@dataclass
class RefusesOneLimit:
    """Stands in for the CTranslate2 model: refuses every decoder call asking for one length limit
    (as a GPU out of memory refuses a batch), and passes every other call to the real model."""

    real: Any
    refused_max_length: int
    batch_sizes: list[int] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def generate(self, features: Any, prompts: list[list[int]], **options: Any) -> Any:
        self.batch_sizes.append(len(prompts))
        if options["max_length"] == self.refused_max_length:
            raise RuntimeError("out of memory (refused by the test)")
        return self.real.generate(features, prompts, **options)


def refuse_the_clip(monkeypatch: pytest.MonkeyPatch, route: WhisperRoute, clip: DecodedAudio) -> RefusesOneLimit:
    """Make the decoder refuse ``clip``'s length limit: alone, and in any batch it is the longest of."""
    model = route.load("en").model
    from faster_whisper.tokenizer import Tokenizer

    prompt = len(Tokenizer(model.hf_tokenizer, model.model.is_multilingual, "transcribe", "en").sot_sequence)
    limit = prompt + decoder_max_new_tokens(window_token_budget(clip.seconds))
    stand_in = RefusesOneLimit(model.model, limit)
    monkeypatch.setattr(model, "model", stand_in)
    return stand_in


def test_a_batch_the_decoder_refuses_is_decoded_clip_by_clip_and_only_the_bad_clip_fails(
    monkeypatch: pytest.MonkeyPatch, clips: list[DecodedAudio], singles: list[Transcription]
) -> None:
    route = WhisperRoute("tiny.en", batch_items=4)
    longest = max(range(len(clips)), key=lambda n: clips[n].seconds)
    decoder = refuse_the_clip(monkeypatch, route, clips[longest])

    heard = route.transcribe_together(clips, "en")
    assert decoder.batch_sizes[0] == len(clips)  # the batch was tried, then each clip alone
    assert isinstance(heard[longest], AsrError) and "out of memory" in str(heard[longest])
    for n, (together, single) in enumerate(zip(heard, singles, strict=True)):
        if n != longest:
            _same_hearing(together, single)


def test_a_looping_clip_in_a_batch_keeps_its_own_token_budget(
    monkeypatch: pytest.MonkeyPatch, clips: list[DecodedAudio]
) -> None:
    # Every window is made to loop to its length limit (forced_decoder.py): the batch is decoded
    # with its longest clip's limit, and every shorter clip, having reached its own, is decoded
    # again alone with that own limit, so each keeps its own budget as the sequential mode does.
    route = WhisperRoute("tiny.en", batch_items=4)
    decoder = force_a_loop(monkeypatch, route, "en", " 200,000,000")
    heard = route.transcribe_together(clips, "en")
    limits = sorted({d.max_length for d in decoder.decoded})
    assert len(limits) > 1, decoder.decoded  # the batch's limit, then the shorter clips' own
    for together, clip in zip(heard, clips, strict=True):
        assert isinstance(together, Transcription), together
        budget = window_token_budget(clip.seconds)
        assert FLAG_BOUNDED in together.flags and FLAG_REPETITION in together.flags
        assert budget - 2 <= int(together.details["tokens"]) <= budget  # type: ignore[call-overload]
        assert "200,000,000" in together.text


# --- the stage: transcripts made ahead are handed out as their clips are asked for ----------------


def test_the_stage_decodes_the_ready_clips_once_and_hands_each_its_own(
    clips: list[DecodedAudio], singles: list[Transcription]
) -> None:
    route = WhisperRoute("tiny.en", batch_items=3)
    # Five clips in the run (the fifth another decoding of the first); the first asks while the
    # next four are ready, and a batch holds three.
    run = [*clips, replace(clips[0])]
    ready_after = {id(clip): [ReadyClip(later, "en") for later in run[n + 1 :]] for n, clip in enumerate(run)}
    asked: list[DecodedAudio] = []

    def ready(_: object) -> list[ReadyClip]:
        return ready_after[id(asked[-1])]

    stage = TranscriptionStage(ready)
    heard = []
    for clip in run:
        asked.append(clip)
        heard.append(stage.transcribe(route, clip, "en"))
    assert stage.batches == 2  # clips 1-3 together, then 4-5
    for together, single in zip(heard, [*singles, singles[0]], strict=True):
        _same_hearing(together, single)
    assert [h.details.get("decoded_with_clips") for h in heard] == [3, 3, 3, 2, 2]


def test_the_stage_decodes_a_clip_alone_when_no_other_is_ready(
    clips: list[DecodedAudio], singles: list[Transcription]
) -> None:
    stage = TranscriptionStage(lambda route: [])
    heard = stage.transcribe(WhisperRoute("tiny.en", batch_items=8), clips[1], "en")
    _same_hearing(heard, singles[1])
    assert "decoded_with_clips" not in heard.details and stage.batches == 0


# --- through the pipeline: rows per item, a failed clip's own error row ----------------------------


def _numeral_item(n: int, text: str, value: str) -> CaseItem:
    target = Target(span=None, category="numbers", expect={"values": [value]})
    return CaseItem("cross", f"i{n}", "en", "numbers", "numbers", text, {"values": [value]}, (target,))


ITEMS = [
    _numeral_item(0, "Flight 237 leaves from gate 14.", "237"),
    _numeral_item(1, "The invoice of March 3rd 2024 came to 1,250 dollars, payable within 30 days.", "1250"),
    _numeral_item(2, "Room 12.", "12"),
]


def _evaluator(espeak: EspeakEngine, route: WhisperRoute, folder: Path) -> Evaluator:
    profile = EngineProfile(name="espeak", type="espeak", voice=BUILTIN_PROFILES["espeak"]["voice"])
    options = RunOptions(audio_dir=folder)
    return Evaluator({"espeak": profile}, lambda p: [route], options, engines={"espeak": espeak})


def _wait_until_synthesized(evaluator: Evaluator, count: int) -> None:
    """Until the pool holds ``count`` finished clips (not a timing assertion: a wait for the setup)."""
    for _ in range(6000):  # up to 5 minutes on a loaded machine
        if len(evaluator._ahead.claim_ready("espeak")) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the prefetch pool did not synthesize {count} clips")


def test_a_clip_failing_in_a_batch_gives_its_item_an_error_row_and_the_others_their_verdicts(
    monkeypatch: pytest.MonkeyPatch, espeak: EspeakEngine, tmp_path: Path
) -> None:
    sequential = _evaluator(espeak, WhisperRoute("tiny.en", batch_items=1), tmp_path / "seq")
    expected = [sequential.evaluate(item, item.targets[0], "espeak") for item in ITEMS]
    assert all(row.verdict != "error" and row.transcript for row in expected), expected

    route = WhisperRoute("tiny.en", batch_items=4)
    evaluator = _evaluator(espeak, route, tmp_path / "cross")
    for item in ITEMS:
        assert evaluator.prefetch(item, "espeak")
    _wait_until_synthesized(evaluator, len(ITEMS))
    long_clip = decode_audio(espeak.synthesize(SynthesisRequest(ITEMS[1].text, "en")).audio)
    decoder = refuse_the_clip(monkeypatch, route, long_clip)  # item 1's clip, the longest

    rows = [evaluator.evaluate(item, item.targets[0], "espeak") for item in ITEMS]
    assert decoder.batch_sizes[0] == len(ITEMS)  # the three clips went to the decoder together
    assert rows[1].verdict == "error" and rows[1].error_stage == "asr"
    assert rows[1].error is not None and "out of memory" in rows[1].error
    for row, alone in ((rows[0], expected[0]), (rows[2], expected[2])):
        assert (row.verdict, row.transcript, row.asr_flags) == (alone.verdict, alone.transcript, alone.asr_flags)
        assert row.asr_decoding == {route.name: "cross_item:4"}
    evaluator.close()
    sequential.close()


# --- the mode, as configured and as recorded ---------------------------------------------------


def test_auto_decodes_across_items_and_a_set_batch_size_keeps_its_meaning() -> None:
    assert resolve_batching("auto", "auto", "cpu").mode == f"cross_item:{CPU_ITEMS_BATCH}"
    assert resolve_batching("auto", "auto", "cuda").mode == "cross_item:16"
    assert resolve_batching(1, "auto", "cpu").mode == "sequential"  # --tts-asr-batch-size=1 as before
    assert resolve_batching("8", "auto", "cpu").mode == "batched:8"
    assert resolve_batching("auto", 1, "cpu").mode == "sequential"
    assert resolve_batching(1, "6", "cpu").mode == "cross_item:6"
    with pytest.raises(ValueError, match="'batch_size' \\(4\\) and 'batch_items' \\(4\\): choose one"):
        resolve_batching(4, 4, "cpu")
    with pytest.raises(ValueError, match="asr field 'batch_items': expected 'auto' or an integer"):
        resolve_batching("auto", "lots", "cpu")


def _project(folder: Path, items: int) -> None:
    pack = yaml.safe_load(pack_file("en-numerals").read_text(encoding="utf-8"))
    pack["items"] = pack["items"][:items]
    kept = {item["category"] for item in pack["items"]} | {"default"}
    pack["thresholds"] = {key: floor for key, floor in pack.get("thresholds", {}).items() if key in kept}
    (folder / "cases").mkdir(parents=True)
    (folder / "cases" / "en-numerals.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    (folder / "ttsbench.yaml").write_text("asr: {model: tiny.en, beam_size: 5}\nengines: {}\n", encoding="utf-8")


def _run(folder: Path, results: str, *options: str) -> list[dict[str, Any]]:
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--tts-engine=espeak", "--tts-cache=off"]
    done = run([*argv, f"--tts-results={results}", *options], cwd=folder, timeout=600, expect=None)
    path = written_by(done, folder / results)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_default_mode_is_across_items_in_every_row_and_the_header_with_the_sequential_verdicts(
    alone: WhisperRoute, tmp_path: Path
) -> None:
    _project(tmp_path, 4)
    across = _run(tmp_path, "across/results.jsonl")
    sequential = _run(tmp_path, "seq/results.jsonl", "--tts-asr-batch-items=1")

    mode = f"cross_item:{CPU_ITEMS_BATCH}"
    assert {row["asr_decoding"]["whisper:tiny.en"] for row in across} == {mode}
    assert {row["asr_decoding"]["whisper:tiny.en"] for row in sequential} == {"sequential"}
    headers = [read_header(tmp_path / run / "results.jsonl") for run in ("across", "seq")]
    assert [header.asr["espeak"][0]["batching"] for header in headers if header] == [mode, "sequential"]
    heard = {row["id"]: (row["verdict"], row["transcript"]) for row in across}
    assert heard == {row["id"]: (row["verdict"], row["transcript"]) for row in sequential}


def test_clips_whose_transcripts_are_cached_are_not_decoded_again_in_a_batch(
    monkeypatch: pytest.MonkeyPatch, espeak: EspeakEngine, tmp_path: Path
) -> None:
    from pytest_ttsbench.support.cache import ClipCache

    cache = ClipCache(tmp_path / "cache", "readwrite")

    def run(items: list[CaseItem], folder: str) -> tuple[list[Any], RefusesOneLimit]:
        route = WhisperRoute("tiny.en", batch_items=4)
        profile = EngineProfile(name="espeak", type="espeak", voice=BUILTIN_PROFILES["espeak"]["voice"])
        options = RunOptions(audio_dir=tmp_path / folder, cache=cache)
        evaluator = Evaluator({"espeak": profile}, lambda p: [route], options, engines={"espeak": espeak})
        decoder = RefusesOneLimit(route.load("en").model.model, refused_max_length=-1)  # refuses nothing, counts
        monkeypatch.setattr(route.load("en").model, "model", decoder)
        for item in items:
            evaluator.prefetch(item, "espeak")
        _wait_until_synthesized(evaluator, len(items))
        rows = [evaluator.evaluate(item, item.targets[0], "espeak") for item in items]
        evaluator.close()
        monkeypatch.undo()
        return rows, decoder

    first, decoder = run(ITEMS[1:], "first")
    assert max(decoder.batch_sizes) == 2  # items 1 and 2 decoded together, their transcripts cached
    again, decoder = run(ITEMS, "again")
    assert decoder.batch_sizes == [1]  # item 0 alone: the others' transcripts come from the cache
    assert [row.cache["asr:whisper:tiny.en"] for row in again] == ["miss", "hit", "hit"]
    assert [row.transcript for row in again[1:]] == [row.transcript for row in first]
