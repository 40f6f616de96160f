"""Normalized transcripts: ASR formatting folded away, what was said kept."""

from __future__ import annotations

import pytest

from pytest_ttsbench.scorers.normalize import normalized_transcript


@pytest.mark.parametrize(
    ("one", "other", "language"),
    [
        (
            "Bake the cookies for three to five minutes, until golden.",
            "bake the cookies for 3 to 5 minutes until golden",
            "en",
        ),
        ("Mortgage rates rose.", "mortgage rates rose", "en"),
        ("Turnout reached  45 %  in the Northern Districts!", "turnout reached 45 in the northern districts", "en"),
        ("It opened in twenty twenty-six", "It opened in 20 26.", "en"),
        ("航展首日，歼二十亮相。", "航展首日 歼20亮相", "zh"),
        ("ＦＵＬＬＷＩＤＴＨ text", "fullwidth TEXT", "en"),  # NFKC
        ("ผมติดตั้งแอป LINE ใหม่", "ผมติดตั้งแอป line ใหม่", "th"),  # no number reader: the rest still applies
    ],
)
def test_formatting_differences_fold_to_the_same_text(one: str, other: str, language: str) -> None:
    assert normalized_transcript(one, language) == normalized_transcript(other, language)


@pytest.mark.parametrize(
    ("one", "other", "language"),
    [
        ("Bake for 3 to 5 minutes.", "Bake for 3 to 6 minutes.", "en"),
        ("We expect 20 guests.", "We expect guests.", "en"),  # a dropped word is a change
        ("It costs 2.5 dollars", "It costs 25 dollars", "en"),
        ("歼二十", "歼十", "zh"),
    ],
)
def test_a_change_in_what_was_said_survives(one: str, other: str, language: str) -> None:
    assert normalized_transcript(one, language) != normalized_transcript(other, language)


def test_the_longest_reading_of_overlapping_alternatives_is_kept() -> None:
    assert normalized_transcript("The meeting starts at 6.30 tomorrow.", "en") == "the meeting starts at 6.30 tomorrow"
    assert normalized_transcript(None, "en") == ""
