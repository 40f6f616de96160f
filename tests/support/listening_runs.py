"""Runs for the listening tests, made through the real pipeline (no pytest session needed)."""

from __future__ import annotations

from pathlib import Path

import yaml

from pytest_ttsbench.cases.loader import parse_suite
from pytest_ttsbench.cases.model import Suite
from pytest_ttsbench.config import EngineProfile
from pytest_ttsbench.pipeline.evaluator import Evaluator, RunOptions
from pytest_ttsbench.run_model.results import ItemResult, ResultsWriter

PROMPTS = {
    "suite": "demo-listen",
    "language": "en",
    "scorer": "listening",
    "items": [
        {
            "id": "greeting",
            "category": "listening",
            "facets": {"variety": "en_us"},
            "review": "native-speaker",
            "text": "Good morning, your order has shipped.",
            "expect": {"focus": "a friendly tone"},
        },
        {
            "id": "reminder",
            "category": "listening",
            "facets": {"variety": "en_us"},
            "text": "Remember to bring your card tomorrow.",
            "expect": {},
        },
    ],
}


def prompt_suite(path: Path) -> Suite:
    path.write_text(yaml.safe_dump(PROMPTS, allow_unicode=True), encoding="utf-8")
    return parse_suite(path, PROMPTS)


def run_prompts(profiles: dict[str, EngineProfile], folder: Path, repeats: int = 3) -> Path:
    """Every prompt × engine × generation through the pipeline into ``folder/results.jsonl``; listening
    items need no ASR, so no recognizer is built."""
    folder.mkdir(parents=True, exist_ok=True)
    suite = prompt_suite(folder / "prompts.yaml")
    evaluator = Evaluator(profiles, lambda profile: [], RunOptions(audio_dir=folder / "audio"))
    writer = ResultsWriter(folder / "results.jsonl")
    try:
        for item in suite.items:
            for engine in profiles:
                for repeat in range(repeats):
                    result: ItemResult = evaluator.evaluate(item, item.targets[0], engine, repeat)
                    writer.write(result)
    finally:
        writer.close()
        evaluator.close()
    return folder / "results.jsonl"
