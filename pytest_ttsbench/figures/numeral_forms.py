"""A Whisper-free control for items written several ways: compare the clip lengths of the forms.

The Arabic numerals pack writes each sentence three times (Western digits, Arabic-Indic digits,
spelled out), marked by the ``form`` facet and an id ending in the form (``years-01-western``).
The forms say the same words, so their clips should last about as long. An engine that skips a
number it cannot read leaves a clip clearly shorter than its siblings: that is visible from the
clip durations alone, before (or without) any recognizer, and so it is not a recognizer error.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_ttsbench.run_model.results import ItemResult

#: A form is flagged when its clip lasts less than this share of its siblings' median.
DEFAULT_MIN_RATIO = 0.8


@dataclass(frozen=True)
class FormClip:
    """One form of an item: its clip length and how it compares with the other forms."""

    form: str
    id: str
    seconds: float
    ratio: float  # seconds / median of the other forms' seconds
    flagged: bool


@dataclass(frozen=True)
class FormGroup:
    """The forms of one sentence on one engine."""

    engine: str
    suite: str
    stem: str  # the item id without its form
    forms: tuple[FormClip, ...] = field(default_factory=tuple)

    @property
    def flagged(self) -> list[FormClip]:
        return [clip for clip in self.forms if clip.flagged]


def _stem(item_id: str, form: str) -> str | None:
    """``years-01`` for ``years-01-western`` with form ``western``; None when the id does not end in it."""
    for joiner in ("-", "_", "."):
        if item_id.endswith(joiner + form):
            return item_id[: -len(form) - 1]
    return None


def duration_control(
    results: Iterable[ItemResult], facet: str = "form", min_ratio: float = DEFAULT_MIN_RATIO
) -> list[FormGroup]:
    """Every sentence written in two or more forms, with each form's clip length against the others.

    Rows without a clip length (failed syntheses, replayed transcripts) are left out; a readings
    item's several target rows share one clip and count once.
    """
    clips: dict[tuple[str, str, str], dict[str, tuple[str, float]]] = {}
    for row in results:
        form = row.facets.get(facet)
        stem = _stem(row.item_id, form) if form else None
        if stem is None or form is None or row.audio_seconds is None or row.audio_seconds <= 0:
            continue
        clips.setdefault((row.engine, row.suite, stem), {})[form] = (row.id, float(row.audio_seconds))
    groups: list[FormGroup] = []
    for (engine, suite, stem), forms in sorted(clips.items()):
        if len(forms) < 2:
            continue
        measured = []
        for form, (item_id, seconds) in sorted(forms.items()):
            others = statistics.median(s for f, (_, s) in forms.items() if f != form)
            ratio = seconds / others
            measured.append(FormClip(form, item_id, seconds, round(ratio, 4), ratio < min_ratio))
        groups.append(FormGroup(engine, suite, stem, tuple(measured)))
    return groups


def duration_control_json(groups: Iterable[FormGroup], min_ratio: float = DEFAULT_MIN_RATIO) -> dict[str, object]:
    """The control as written by ``ttsbench diagnostics --json``."""
    listed = list(groups)
    return {
        "min_ratio": min_ratio,
        "groups": [
            {
                "engine": g.engine,
                "suite": g.suite,
                "item": g.stem,
                "forms": {
                    c.form: {"id": c.id, "seconds": c.seconds, "ratio": c.ratio, "flagged": c.flagged} for c in g.forms
                },
            }
            for g in listed
        ],
        "flagged": [c.id for g in listed for c in g.flagged],
    }
