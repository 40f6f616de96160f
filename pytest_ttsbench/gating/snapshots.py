"""Transcript snapshots judged: what each item was heard as, against what it was heard as before.

With ``--tts-snapshot report`` or ``strict`` every item's transcripts (route → text) are compared
with ``__tts_snapshots__/<engine>.ambr`` (read and written by run_model/snapshot_files.py) at the
end of the session. A changed transcript is how a voice update shows itself even when the verdict
is unchanged ("the plant opened in 2026" turning into "the plant was opened in 2026"). ``report``
only lists the changes; ``strict`` fails the run on a changed or missing snapshot, as
:func:`judge_snapshot` decides.

Snapshots hold the *normalized* transcript (:mod:`pytest_ttsbench.scorers.normalize`: case,
punctuation, whitespace, and numbers read by the language's own reader), so a recognizer writing
"Mortgage" or "3 to 5" one day and "mortgage" or "three to five" the next changes nothing; the
raw transcripts stay in the results file.

With several generations of an item there is one snapshot per item: for each route, the sorted
distinct normalized transcripts of its generations (the wordings the recording drew). A
stochastic voice rarely says a sentence the same way every time, so such an item *matches* when
at least one of this run's generations was heard as one of the stored wordings; a changed voice
shares none. Not the majority wording: the recording is a sample of what the voice says, and a
run's most frequent wording may be one the recording never drew, which is a draw, not a change.
With one generation on both sides the comparison is exact.

What a changed wording means depends on the item's verdicts (:func:`judge_snapshot`): a change
on an item whose verdict moved to correct (a known gap now correct, or an item the baseline
judged not correct) is a *fix*; a change on a known gap that still fails is how that gap fails
today; and a change on an item correct now, of a voice the run shows is not reproducible (its
identical requests gave different audio, or an item was heard in several wordings, now or when
recorded), is a *draw*: such a voice's wording is a sample, its verdicts are what is gated. All
three are listed and none fails a ``strict`` run (the known-gaps ratchet, ``--tts-strict-xfail``
where a fixed gap must fail, the regression rule and the floors judge those items). Every other
change does: a reproducible voice that says a sentence differently, or an item now heard wrong.

Snapshots are serialized with syrupy's amber serializer, as the file stores them; the comparison
runs on the controller, from the results, so it works the same under pytest-xdist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.scorers.registry import UnknownScorerError, get_scorer

#: how one item's transcripts compare with its snapshot
MATCHED, CHANGED, FIXED, KNOWN_GAP, DRAW, NEW = "matched", "changed", "fixed", "known gap", "draw", "new"
#: what a changed wording may be instead of a change, by the item's standing; none fails a strict run
EXCUSED = (FIXED, KNOWN_GAP, DRAW)
#: how amber writes the tuple of wordings of a snapshot of several generations
_SEVERAL = "tuple("


@dataclass(frozen=True)
class Received:
    """One item's snapshot from this run: the serialized data, and each transcript heard (serialized)."""

    data: str
    heard: frozenset[str]
    generations: int = 1
    #: some route heard this run's generations in more than one wording: the voice varies
    varied: bool = False


def received_snapshots(results: Iterable[ItemResult], engine: str) -> dict[str, Received]:
    """One snapshot per item (its targets share a clip, its generations are pooled), by item id.

    Clips judged by listeners only (a scorer that needs no transcript) have no snapshot: they are
    never transcribed, so a missing snapshot of theirs must not fail a strict run.
    """
    # syrupy's serializer and the scorers' normalizer load with the first gate that compares
    # snapshots, not with the plugin (a listing compares nothing).
    from syrupy.extensions.amber.serializer import AmberDataSerializer

    from pytest_ttsbench.scorers.normalize import normalized_transcript

    clips: dict[str, dict[int, ItemResult]] = {}
    for row in results:
        if row.engine == engine and _transcribed(row):
            clips.setdefault(row.id, {})[row.repeat] = row
    received: dict[str, Received] = {}
    for item_id, generations in clips.items():
        rows = [generations[k] for k in sorted(generations)]
        heard: dict[str, set[str]] = {}
        for row in rows:
            for route, text in row.transcripts.items():
                heard.setdefault(route, set()).add(normalized_transcript(text, row.language))
        data: dict[str, Any]
        if len(rows) == 1:
            data = {route: next(iter(texts)) for route, texts in heard.items()}
        else:
            data = {route: tuple(sorted(texts)) for route, texts in heard.items()}
        variants = frozenset(AmberDataSerializer.serialize(t) for texts in heard.values() for t in texts)
        varied = any(len(texts) > 1 for texts in heard.values())
        received[item_id] = Received(AmberDataSerializer.serialize(data), variants, len(rows), varied)
    return received


def _stored_variants(serialized: str) -> set[str]:
    """The serialized transcripts inside a stored snapshot (one per line in amber's layout)."""
    found = set()
    for line in serialized.splitlines():
        text = line.strip().rstrip(",")
        if "': '" in text:  # 'route': 'transcript' of a one-generation snapshot (normalized: no quote inside)
            found.add(text.split(": ", 1)[1])
        elif text.startswith("'") and text.endswith("'"):  # one wording of a tuple
            found.add(text)
    return found


def wordings_vary(received: Mapping[str, Received], stored: Mapping[str, str]) -> bool:
    """Whether an engine's items were heard in more than one wording on some route, in this run or
    in the snapshots stored for them: the voice (or its clips) varies between identical requests."""
    return any(now.varied for now in received.values()) or any(
        _several_wordings(stored[name]) for name in received if name in stored
    )


def _several_wordings(serialized: str) -> bool:
    """Whether a stored snapshot holds more than one wording on some route."""
    counts: list[int] = []
    for line in serialized.splitlines():
        text = line.strip()
        if text.endswith(_SEVERAL):
            counts.append(0)
        elif counts and text.startswith("'"):
            counts[-1] += 1
    return any(count > 1 for count in counts)


def _transcribed(row: ItemResult) -> bool:
    try:
        return get_scorer(row.scorer).needs_transcript if row.scorer else True
    except UnknownScorerError:
        return True


def judge_snapshot(stored: str | None, received: Received, standing: str | None = None) -> str:
    """One item's transcripts against its stored snapshot: :data:`MATCHED`, :data:`CHANGED`,
    :data:`NEW`, or for a changed wording the item's ``standing`` when it has one (:data:`FIXED`: its
    verdict moved to correct; :data:`KNOWN_GAP`: a known gap still failing; :data:`DRAW`: correct,
    of a voice that is not reproducible), which a strict run lists without failing on.

    With several generations on either side the stored wordings are a set: the item matches when
    any of this run's generations was heard as one of them (see the module's docstring).
    """
    if stored is None:
        return NEW
    if stored == received.data:
        return MATCHED
    several = received.generations > 1 or _SEVERAL in stored
    if several and received.heard & _stored_variants(stored):
        return MATCHED
    return standing if standing in EXCUSED else CHANGED


@dataclass
class SnapshotCheck:
    """One engine's transcripts against its snapshot file."""

    engine: str
    path: Path
    matched: list[str] = field(default_factory=list)
    changed: list[tuple[str, str, str]] = field(default_factory=list)  # name, stored, received
    new: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    #: changed wordings that do not fail a strict run (FIXED, KNOWN_GAP or DRAW), with both sides
    excused: list[tuple[str, str, str, str]] = field(default_factory=list)  # name, standing, stored, received
    updated: bool = False

    @property
    def failing(self) -> bool:
        """Whether a strict run fails on this engine's snapshots."""
        return bool(self.changed or self.new)

    def summary(self) -> str:
        """The counts, as the terminal and the snapshots' bound give them."""
        excused = f", {len(self.excused)} changed on a fix, a known gap or a draw" if self.excused else ""
        return (
            f"{len(self.matched)} matched, {len(self.changed)} changed, {len(self.new)} new, "
            f"{len(self.unused)} not run{excused}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "path": str(self.path),
            "matched": len(self.matched),
            "changed": [name for name, _, _ in self.changed],
            "new": list(self.new),
            "fixed": [name for name, standing, _, _ in self.excused if standing == FIXED],
            "known_gaps": [name for name, standing, _, _ in self.excused if standing == KNOWN_GAP],
            "draws": [name for name, standing, _, _ in self.excused if standing == DRAW],
            "unused": list(self.unused),
            "updated": self.updated,
        }


def compare_snapshots(
    stored: Mapping[str, str],
    path: Path,
    engine: str,
    received: Mapping[str, Received],
    standing: Mapping[str, str] | None = None,
) -> SnapshotCheck:
    """Compare a run's transcripts with the stored ones, read from ``path`` beforehand.

    ``standing``: item id → :data:`FIXED` or :data:`KNOWN_GAP` (see :func:`judge_snapshot`)."""
    check = SnapshotCheck(engine=engine, path=path)
    for name in sorted(received):
        now = received[name]
        judged = judge_snapshot(stored.get(name), now, (standing or {}).get(name))
        if judged == NEW:
            check.new.append(name)
        elif judged == MATCHED:
            check.matched.append(name)
        elif judged == CHANGED:
            check.changed.append((name, stored[name], now.data))
        else:
            check.excused.append((name, judged, stored[name], now.data))
    check.unused = sorted(stored.keys() - received.keys())
    return check
