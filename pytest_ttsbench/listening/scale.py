"""The rating scale listeners use: the dimensions, their questions and the wording of each level.

One place, so the listening pages, the sheet reader and the report cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

SCALE_MIN = 1
SCALE_MAX = 5

# The descriptive 1–5 scale: the number is only a shorthand for the words.
LEVELS: dict[int, str] = {
    1: "very poor",
    2: "poor",
    3: "fair",
    4: "good",
    5: "excellent",
}


@dataclass(frozen=True)
class Dimension:
    """One thing listeners rate, with the question they answer and what each end of the scale means."""

    name: str  # the CSV column
    title: str
    question: str
    low: str  # what a 1 means
    high: str  # what a 5 means


# Rated per clip. Never averaged together: each is reported on its own.
CLIP_DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(
        "pronunciation",
        "Pronunciation",
        "Are the words, names and numbers said correctly?",
        "many words wrong or hard to make out",
        "every word said correctly, as a careful fluent speaker would",
    ),
    Dimension(
        "dialect_fit",
        "Dialect fit",
        "Does it sound like a speaker of the intended variety, not another dialect or a foreign accent?",
        "clearly not the intended variety",
        "indistinguishable from a native speaker of the variety",
    ),
    Dimension(
        "naturalness",
        "Naturalness",
        "Would you listen to this voice as comfortably as to a person?",
        "robotic, strained or tiring to listen to",
        "as natural and pleasant as a person speaking",
    ),
)

# Rated per group: the three generations of one prompt by one system.
CONSISTENCY = Dimension(
    "consistency",
    "Consistency",
    "Do these versions sound like the same voice, with the same quality and manner?",
    "different voices, quality or manner from one version to the next",
    "no difference you would notice between the versions",
)

CLIP_COLUMNS: tuple[str, ...] = ("listener", "clip", *(d.name for d in CLIP_DIMENSIONS), "notes")
CONSISTENCY_COLUMNS: tuple[str, ...] = ("listener", "group", CONSISTENCY.name, "notes")

VARIETY_NAMES: dict[str, str] = {
    "msa": "Modern Standard Arabic",
    "darija": "Moroccan Darija (with French)",
    "egyptian": "Egyptian Arabic",
    "gulf": "Gulf Arabic",
    "code_switch": "Arabic with English interface words",
    "long_form": "Modern Standard Arabic, long passage",
}


def variety_label(variety: str | None) -> str:
    """How a page names the variety a listener should judge against ("" when the prompt names none)."""
    if not variety:
        return ""
    return VARIETY_NAMES.get(variety, variety.replace("_", " "))
