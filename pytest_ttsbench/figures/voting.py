"""Combining the verdicts of several ASR routes on one target into a final verdict.

Each route (one recognizer's transcript, scored on its own) says correct, wrong or unknown. The
final verdict is ``correct`` when at least ``quorum`` routes say correct, ``wrong`` when at least
``quorum`` say wrong, and ``unknown`` otherwise. The default quorum is a strict majority of the
routes taking part (1 of 1, 2 of 2, 2 of 3, 3 of 4), so:

* ties never resolve: 2 routes split correct/wrong → unknown; 4 routes split 2/2 → unknown;
* with 2 routes, both must agree;
* a route that produced no transcript (value ``None`` or ``""``, or a name listed in ``routes``
  but absent from the mapping) is a missing route and counts as unknown: it still takes part,
  so it raises the bar rather than silently shrinking the panel;
* a route that errored counts as unknown too, unless *every* route errored: then there was no
  evidence at all and the final verdict is ``error``, so the failure is not hidden as unknown.

A quorum at or below half the routes could let both sides reach it (1 of 2 with a
correct/wrong split); that conflict is also unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_ttsbench.verdict import OUTCOMES, Outcome


def majority(n_routes: int) -> int:
    """The smallest count that is more than half of ``n_routes`` (the default quorum)."""
    return n_routes // 2 + 1


def vote(
    route_outcomes: Mapping[str, str | None],
    quorum: int | None = None,
    *,
    routes: Sequence[str] | None = None,
) -> Outcome:
    """The final verdict for one target from its per-route verdicts.

    ``routes`` names the configured routes when some may be absent from ``route_outcomes``; they
    then count as missing (unknown). With no routes at all there is nothing to judge: unknown.
    """
    names = list(route_outcomes)
    if routes is not None:
        names += [r for r in routes if r not in route_outcomes]
    labels: list[str] = []
    for name in names:
        label = route_outcomes.get(name) or "unknown"
        if label not in OUTCOMES:
            raise ValueError(f"route {name!r}: {label!r} is not one of {OUTCOMES}")
        labels.append(label)
    if not labels:
        return "unknown"
    if all(label == "error" for label in labels):
        return "error"
    need = majority(len(labels)) if quorum is None else quorum
    if need < 1:
        raise ValueError(f"quorum must be at least 1, got {need}")
    correct_ok = labels.count("correct") >= need
    wrong_ok = labels.count("wrong") >= need
    if correct_ok and not wrong_ok:
        return "correct"
    if wrong_ok and not correct_ok:
        return "wrong"
    return "unknown"
