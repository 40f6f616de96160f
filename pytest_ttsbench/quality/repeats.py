"""Identity across generations (``--tts-repeats``): how much each measure moves between an item's clips.

For every item with two or more generations: the spread (max − min) and standard deviation of
each measure, and, when the ``similarity`` set is chosen, the mean speaker similarity between
every pair of its clips (read back from the clips kept on disk by
:func:`~pytest_ttsbench.quality.similarity.between_generations`, which the plugin adds). A stable voice keeps its
level, pace and timbre from one generation to the next; a sampling TTS may not.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pytest_ttsbench.quality.summary import measures_present
from pytest_ttsbench.run_model.repeats import group_generations
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.record_dicts import record_dict, written_as


@dataclass(frozen=True)
class GenerationSpread:
    """One item (target) on one engine over its generations."""

    engine: str
    key: str
    generations: int
    spread: dict[str, float] = field(default_factory=dict)  # measure → max − min
    std: dict[str, float] = field(default_factory=dict)  # measure → standard deviation
    #: mean cosine between generations
    speaker_similarity: float | None = field(default=None, metadata=written_as("between_generations_similarity"))

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


def generation_spreads(results: Iterable[ItemResult]) -> list[GenerationSpread]:
    """Per item with at least two generations carrying quality figures (similarity left None here)."""
    rows = list(results)
    names = measures_present(rows)
    found: list[GenerationSpread] = []
    for (engine, key), generations in group_generations(rows).items():
        measured = [g for g in generations if g.quality]
        if len(measured) < 2:
            continue
        spread: dict[str, float] = {}
        std: dict[str, float] = {}
        for name in names:
            values = np.asarray([g.quality[name] for g in measured if g.quality.get(name) is not None], float)
            if values.size >= 2:
                spread[name] = round(float(np.ptp(values)), 4)
                std[name] = round(float(values.std(ddof=1)), 4)
        found.append(GenerationSpread(engine, key, len(measured), spread, std))
    return found
