"""Time the local stack: eSpeak NG and Piper synthesis, Whisper model loads and transcription.

Run: ``python benchmarks/asr_speed.py [--models tiny.en base] [--beam 5]``. Prints one line per
(engine, model) with synthesis ms per sentence, ASR seconds per sentence, and how many of the
sentences' numbers Whisper heard back. Uses a temporary cache for the assembled models unless
``TTSBENCH_CACHE_DIR`` is set.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time

from pytest_ttsbench.asr.whisper import WhisperRoute
from pytest_ttsbench.audio.decoding import decode_audio
from pytest_ttsbench.config import BUILTIN_PROFILES, EngineProfile
from pytest_ttsbench.engines.base import SynthesisRequest

SENTENCES = [
    "The plant opened in 2026.",
    "The meeting starts at 6:30.",
    "She paid 45 dollars for 3 tickets.",
    "The final score was 96 to 91.",
    "Flight 237 leaves from gate 14.",
    "The population reached 8,400 in 1998.",
    "Call me at 7 tomorrow.",
    "Only 12 of the 300 seats were empty.",
    "In 2019 the company hired 250 people.",
    "The bridge is 1,200 meters long.",
    "He was born on May 4, 1987.",
    "Room 508 is on the fifth floor.",
]


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+", text.replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["tiny.en", "base"])
    parser.add_argument("--engines", nargs="+", default=["espeak", "piper"])
    parser.add_argument("--beam", type=int, default=5)
    args = parser.parse_args()
    if os.environ.get("TTSBENCH_CACHE_DIR"):
        run(args)
        return
    with tempfile.TemporaryDirectory(prefix="ttsbench-bench-") as cache:  # the assembled base is 145 MB
        os.environ["TTSBENCH_CACHE_DIR"] = cache
        run(args)


def run(args: argparse.Namespace) -> None:
    from pytest_ttsbench.engines.registry import create_engine

    for engine_name in args.engines:
        spec = dict(BUILTIN_PROFILES[engine_name])
        engine = create_engine(EngineProfile(name=engine_name, type=spec.pop("type"), voice=spec.pop("voice", None)))
        clips = []
        started = time.perf_counter()
        for text in SENTENCES:
            clips.append(decode_audio(engine.synthesize(SynthesisRequest(text=text, language="en")).audio))
        synth_ms = (time.perf_counter() - started) * 1000 / len(SENTENCES)
        audio_s = sum(c.seconds for c in clips) / len(clips)
        for model in args.models:
            route = WhisperRoute(model, beam_size=args.beam)
            loaded = route.load("en")
            asr_s = 0.0
            heard = 0
            flagged = 0
            for text, clip in zip(SENTENCES, clips, strict=True):
                result = route.transcribe(clip, "en")
                asr_s += result.seconds
                got = numbers(result.text)
                heard += all(n in got for n in numbers(text))
                flagged += bool(result.flags)
            print(
                f"{engine_name:7s} {model:8s} synth {synth_ms:7.1f} ms/sentence  audio {audio_s:4.2f} s  "
                f"load {loaded.load_seconds:5.2f} s  asr {asr_s / len(clips):5.2f} s/sentence  "
                f"numbers heard {heard}/{len(clips)}  flagged {flagged}"
            )


if __name__ == "__main__":
    main()
