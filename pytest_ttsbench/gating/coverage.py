"""Did the run measure what it claims? Coverage of the selected targets, and runs that did not finish.

A green gate must mean every selected target of every selected engine produced a verdict in a
session that ran to its end. Three ways it could be green over nothing are reasons to fail:

* the session was interrupted (Ctrl-C, an internal error) or stopped early (``-x``, ``--maxfail``);
* a selected engine produced no verdict at all: it is unavailable here (a key variable unset, a
  package missing) and skipped every target; ``--tts-allow-unavailable`` keeps the old skip for
  local runs;
* an engine produced verdicts for only some of its selected targets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_ttsbench.results import ItemResult

# pytest's exit statuses for a session that did not run to its end (interrupted, internal error, usage error).
UNFINISHED_STATUSES = frozenset({2, 3, 4})


@dataclass(frozen=True)
class EngineCoverage:
    """How many of one engine's selected targets (one per repeat) produced a verdict."""

    engine: str
    selected: int | None  # None: unknown (no worker reported its collection)
    measured: int
    unavailable: str | None = None  # why the engine could not run here, when it could not

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "selected": self.selected,
            "measured": self.measured,
            "unavailable": self.unavailable,
        }

    def describe(self) -> str:
        of = f" of {self.selected}" if self.selected is not None else ""
        return f"{self.engine}: {self.measured}{of} selected target(s) produced a verdict"


def engine_coverage(
    engines: Iterable[str],
    selected: Mapping[str, int] | None,
    results: Iterable[ItemResult],
    unavailable: Mapping[str, str],
) -> list[EngineCoverage]:
    """One :class:`EngineCoverage` per selected engine, in the order given."""
    measured = Counter(row.engine for row in results)
    return [
        EngineCoverage(
            engine,
            None if selected is None else selected.get(engine),
            measured.get(engine, 0),
            unavailable.get(engine),
        )
        for engine in engines
    ]


def coverage_reasons(coverage: Iterable[EngineCoverage], allow_unavailable: bool) -> list[str]:
    """Reasons the gate fails because targets went unmeasured (empty when everything selected was measured)."""
    reasons = []
    for engine in coverage:
        if engine.measured == 0 and engine.selected != 0:
            if engine.unavailable is not None:
                if allow_unavailable:
                    continue
                reasons.append(
                    f"{engine.describe()}: {engine.unavailable} (--tts-allow-unavailable skips an unavailable "
                    "engine on a local run)"
                )
            else:
                reasons.append(f"{engine.describe()}: the run measured nothing for it")
        elif engine.selected is not None and engine.measured < engine.selected:
            reasons.append(f"{engine.describe()}: the run is incomplete")
    return reasons


def unfinished_reason(exitstatus: int, stopped_early: str | bool) -> str | None:
    """Why a session that did not run to its end cannot pass, or None when it finished."""
    if exitstatus in UNFINISHED_STATUSES:
        return f"the session did not finish (pytest exit status {exitstatus}): an interrupted run never passes"
    if stopped_early:
        detail = stopped_early if isinstance(stopped_early, str) else "stopped early"
        return f"the session stopped before running every selected target ({detail})"
    return None
