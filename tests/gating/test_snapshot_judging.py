"""Property: how one item's transcripts are judged against its snapshot, over what each repeat produced.

A stochastic voice is heard in several wordings; its snapshot stores the set its recorded generations
were heard as (through the real amber file). Over every combination of recorded and current
generations (wording and ASR formatting per repeat), and every standing of the item's verdict:

* the order of the generations never matters;
* with one generation on both sides the comparison is exact; with several on either side the item
  matches exactly when some generation of this run was heard as a recorded wording, so an unchanged
  voice whose wordings the recording drew always matches, and one that shares no wording never does;
* a changed wording on an item whose verdict moved to correct (a fix), on a known gap still
  failing, or on a correct item of a voice that is not reproducible (a draw) is reported with that
  standing and never fails a strict run; every other change does.

Then through the gate itself, over what each of three generations was heard as (two right wordings,
one wrong) before and now: a strict run fails on its snapshots exactly when the item shares no
wording with its snapshot and is neither a fix (its majority verdict moved from not correct, by the
baseline or the known gaps, to correct), nor a known gap, nor a draw (correct now, of a voice whose
audio varied or that was heard in several wordings).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from result_rows import make_result

from pytest_ttsbench.gating.gate import Collected, GateConfig, evaluate_gate
from pytest_ttsbench.gating.snapshots import (
    CHANGED,
    DRAW,
    FIXED,
    KNOWN_GAP,
    MATCHED,
    Received,
    judge_snapshot,
    received_snapshots,
)
from pytest_ttsbench.run_model.known_gaps import Gap, KnownGaps
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.run_model.snapshot_files import read_snapshots, update_snapshots

#: wordings that normalize apart, each with ASR formattings that normalize alike
WORDINGS = (
    ("We expect 20 guests.", "we expect 20 guests", "We expect twenty guests!"),
    ("We expect 30 guests.", "we expect thirty guests"),
    ("We accept 20 ghosts.", "we accept 20 ghosts"),
    ("Expect 2.", "expect two"),
)
generation = st.tuples(st.integers(0, len(WORDINGS) - 1), st.integers(0, 2))
generations = st.lists(generation, min_size=1, max_size=4)
standings = st.sampled_from([None, FIXED, KNOWN_GAP, DRAW])


def _text(wording: tuple[int, int]) -> str:
    forms = WORDINGS[wording[0]]
    return forms[wording[1] % len(forms)]


def _rows(heard: list[tuple[int, int]], verdicts: list[str] | None = None) -> list[ItemResult]:
    return [
        make_result(
            engine="e",
            id="s/a",
            transcripts={"t": _text(wording)},
            repeat=k,
            verdict=(verdicts or ["correct"] * len(heard))[k],
        )
        for k, wording in enumerate(heard)
    ]


def _received(heard: list[tuple[int, int]]) -> Received:
    return received_snapshots(_rows(heard), "e")["s/a"]


def _recorded(heard: list[tuple[int, int]], folder: Path) -> str:
    """The snapshot ``--snapshot-update`` writes for these generations, read back from its file."""
    path = folder / "e.ambr"
    update_snapshots(path, {"s/a": _received(heard).data})
    return read_snapshots(path)["s/a"]


@settings(max_examples=150, deadline=None)
@given(generations, generations, standings, st.randoms())
@example([(0, 0), (1, 0), (0, 1)], [(2, 0), (2, 1), (3, 0)], FIXED, None)  # the report: a fix in new words
def test_one_items_judgement_over_what_each_repeat_produced(stored_heard, now_heard, standing, rnd) -> None:
    with tempfile.TemporaryDirectory() as folder:
        stored = _recorded(stored_heard, Path(folder))
    judged = judge_snapshot(stored, _received(now_heard), standing)

    shuffled = list(now_heard)
    if rnd is not None:
        rnd.shuffle(shuffled)
    assert judge_snapshot(stored, _received(shuffled), standing) == judged  # order-free

    before = {wording for wording, _ in stored_heard}
    now = {wording for wording, _ in now_heard}
    several = len(stored_heard) > 1 or len(now_heard) > 1
    matches = bool(before & now) if several else before == now
    assert judged == (MATCHED if matches else standing or CHANGED)
    if now <= before:
        assert judged == MATCHED  # an unchanged voice whose wordings the recording drew always passes
    if standing is not None:
        assert judged in (MATCHED, standing)  # a fix, a known gap or a draw never fails a strict run


def test_a_missing_snapshot_is_new_whatever_the_items_standing() -> None:
    assert judge_snapshot(None, _received([(0, 0)]), FIXED) == "new"


#: one item's three wordings: two heard right (in other words), one heard wrong
HEARD = ("Turnout reached 45 percent.", "Turnout hit 45 percent.", "Turnout reached 54 percent.")
draws = st.lists(st.integers(0, 2), min_size=3, max_size=3)  # what each of three generations was heard as


@settings(max_examples=200, deadline=None)
@given(draws, draws, st.booleans(), st.booleans(), st.booleans())
@example([2, 2, 2], [0, 0, 0], True, True, False)  # the report: majority wrong -> correct, a known gap
@example([2, 2, 0], [1, 1, 1], False, True, False)  # a baseline fix, in words never recorded
@example([0, 0, 0], [1, 1, 1], False, True, False)  # a reproducible voice reworded: a change
@example([0, 0, 0], [1, 1, 1], False, True, True)  # the same of a voice whose audio varies: a draw
def test_strict_snapshots_through_the_gate_fail_only_a_change_the_verdicts_do_not_explain(
    before: list[int], now: list[int], gap: bool, with_baseline: bool, audio_varies: bool
) -> None:
    """One item, three generations a run, against the snapshot of the baseline's three."""

    def run(heard: list[int], varies: bool) -> list[ItemResult]:
        return [
            make_result(
                engine="e",
                id="s/a",
                transcripts={"t": HEARD[wording]},
                repeat=k,
                verdict="wrong" if wording == 2 else "correct",
                audio_sha256=f"clip-{k}" if varies else "one-clip",
            )
            for k, wording in enumerate(heard)
        ]

    baseline, results = run(before, False), run(now, audio_varies)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "e.ambr"
        update_snapshots(path, {name: r.data for name, r in received_snapshots(baseline, "e").items()})
        stored = read_snapshots(path)
    gaps = KnownGaps(engine="e", path=Path("e.yaml"), gaps=[Gap("s/a", "a coin")] if gap else [])
    config = GateConfig(
        engines=("e",),
        repeats=3,
        repeat_policy="majority",
        known_gaps={"e": gaps},
        baseline=tuple(baseline) if with_baseline else None,
        snapshot_mode="strict",
        snapshots={"e": (path, stored)},
    )
    outcome = evaluate_gate(results, config, Collected(selected={"e": 3}))
    snapshot_failure = any("differ from their snapshot" in reason for reason in outcome.reasons)

    shares_a_wording = bool(set(before) & set(now))
    correct_now = sum(w != 2 for w in now) >= 2
    was_not_correct = gap or (with_baseline and sum(w != 2 for w in before) < 2)
    a_fix = correct_now and was_not_correct
    a_failing_gap = gap and not correct_now
    # the voice shows it is not reproducible: its audio varied, or it was heard in several wordings
    varies = audio_varies or len(set(now)) > 1 or len(set(before)) > 1
    a_draw = correct_now and varies and not a_fix
    assert snapshot_failure == (not shares_a_wording and not (a_fix or a_failing_gap or a_draw))
    (check,) = outcome.snapshots
    if not shares_a_wording and (a_fix or a_failing_gap or a_draw):
        key = "fixed" if a_fix else "known_gaps" if a_failing_gap else "draws"
        assert check.to_dict()[key] == ["s/a"]
