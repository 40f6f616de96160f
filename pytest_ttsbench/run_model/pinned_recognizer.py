"""A pack's pinned scoring recognizer, against the recognizer a run actually used.

Expectations are written against what some recognizer writes: the CN-NewsTTS readings were
calibrated on three named ASR routes, a Thai keyword list on one model's spelling. A pack names
that recognizer (``recognizer: {route: whisper, model: large-v3}`` in its case file); each result
row carries the pin, and the run summary says when the routes that transcribed a suite are not
the ones pinned, since verdicts may then differ for that reason alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_ttsbench.run_model.results import ItemResult


@dataclass(frozen=True)
class RecognizerMismatch:
    """A suite transcribed (on one engine) by routes other than the ones its pack pins."""

    engine: str
    suite: str
    pinned: tuple[str, ...]
    used: tuple[str, ...]

    def line(self) -> str:
        return (
            f"note: {self.suite} on {self.engine} was transcribed by {', '.join(self.used)}, but its expectations "
            f"were written against {', '.join(self.pinned)}: verdicts may differ for that reason alone"
        )


def matches(used: str, pinned: str) -> bool:
    """Whether route ``used`` is the pinned one: the same label, or the pinned route with any model
    when the pin names no model (``whisper`` pins every ``whisper:<model>``)."""
    return used == pinned or (":" not in pinned and used.split(":", 1)[0] == pinned)


def recognizer_mismatches(results: Iterable[ItemResult]) -> list[RecognizerMismatch]:
    """Every (engine, suite) whose rows were transcribed by a route its pin does not name."""
    pinned: dict[tuple[str, str], tuple[str, ...]] = {}
    used: dict[tuple[str, str], dict[str, None]] = {}
    for row in results:
        if not row.pinned_recognizer:
            continue
        key = (row.engine, row.suite)
        pinned[key] = tuple(row.pinned_recognizer)
        used.setdefault(key, {}).update(dict.fromkeys([*row.transcripts, *row.route_verdicts]))
    found = []
    for key, pins in sorted(pinned.items()):
        routes: Sequence[str] = list(used.get(key, {}))
        if routes and any(not any(matches(route, pin) for pin in pins) for route in routes):
            found.append(RecognizerMismatch(key[0], key[1], pins, tuple(routes)))
    return found
