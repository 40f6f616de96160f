"""Did the run measure what it claims? Coverage of the selected targets, and runs that did not finish.

A green gate must mean every selected target of every selected engine produced a verdict in a
session that ran to its end. Three ways it could be green over nothing are reasons to fail:

* the session was interrupted (Ctrl-C, an internal error) or stopped early (``-x``, ``--maxfail``);
* a selected engine produced no verdict at all: it is unavailable here (a key variable unset, a
  package missing) and skipped every target; ``--tts-allow-unavailable`` keeps the old skip for
  local runs;
* an engine produced verdicts for only some of its selected targets.

An ``error`` row (the engine refused, the clip was broken) is not a measurement: coverage
counts judged targets only, and a share of error rows above the error-rate limit
(``--tts-max-error-rate``, default 0: none allowed) fails the gate itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_ttsbench.gating.bounds import BREACHED, HELD, NOT_SELECTED, Judged, RunFacts
from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.record_dicts import record_dict

# pytest's exit statuses for a session that did not run to its end (interrupted, internal error, usage error).
UNFINISHED_STATUSES = frozenset({2, 3, 4})


@dataclass(frozen=True)
class EngineCoverage:
    """How many of one engine's selected targets (one per repeat) produced a verdict."""

    engine: str
    selected: int | None  # None: unknown (no worker reported its collection)
    measured: int  # rows with a verdict other than ``error``: judged targets
    unavailable: str | None = None  # why the engine could not run here, when it could not
    errors: int = 0  # rows that ended in ``error``: recorded, not measured

    @property
    def error_rate(self) -> float:
        rows = self.measured + self.errors
        return self.errors / rows if rows else 0.0

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self, order=("engine", "selected", "measured", "errors", "unavailable"))

    def describe(self) -> str:
        of = f" of {self.selected}" if self.selected is not None else ""
        errors = f" ({self.errors} ended in error)" if self.errors else ""
        return f"{self.engine}: {self.measured}{of} selected target(s) produced a verdict{errors}"


def engine_coverage(
    engines: Iterable[str],
    selected: Mapping[str, int] | None,
    results: Iterable[ItemResult],
    unavailable: Mapping[str, str],
) -> list[EngineCoverage]:
    """One :class:`EngineCoverage` per selected engine, in the order given."""
    rows = list(results)
    measured = Counter(row.engine for row in rows if row.verdict != "error")
    errors = Counter(row.engine for row in rows if row.verdict == "error")
    return [
        EngineCoverage(
            engine,
            None if selected is None else selected.get(engine),
            measured.get(engine, 0),
            unavailable.get(engine),
            errors.get(engine, 0),
        )
        for engine in engines
    ]


@dataclass(frozen=True)
class Coverage:
    """A gate bound: every selected target of every selected engine produced a verdict."""

    engines: tuple[str, ...]
    #: engine → selected test items (targets × repeats) after -k/-m; None: not known
    selected: Mapping[str, int] | None
    #: engine → why it cannot run here, for engines that skipped their targets
    unavailable: Mapping[str, str]
    allow_unavailable: bool = False
    kind: ClassVar[str] = "coverage"

    def judge(self, run: RunFacts) -> list[Judged]:
        judged = []
        for engine in engine_coverage(self.engines, self.selected, run.results, self.unavailable):
            status, why = HELD, ""
            if engine.measured == 0 and engine.selected != 0:
                status, why = BREACHED, f"{engine.describe()}: the run measured nothing for it"
                if engine.unavailable is not None and engine.errors == 0:
                    status = NOT_SELECTED if self.allow_unavailable else BREACHED
                    why = f"{engine.describe()}: {engine.unavailable} (--tts-allow-unavailable skips an " + (
                        "unavailable engine on a local run)"
                    )
            elif engine.selected is not None and engine.measured + engine.errors < engine.selected:
                status, why = BREACHED, f"{engine.describe()}: the run is incomplete"
            reasons = (why,) if status == BREACHED else ()
            detail = engine.describe() if status == HELD else why
            judged.append(Judged(self.kind, "every selected target", "the run's selection", status, engine.engine,
                                 detail, reasons, engine))  # fmt: skip
        return judged


@dataclass(frozen=True)
class ErrorRateLimit:
    """A gate bound: the share of an engine's rows that may end in ``error`` (--tts-max-error-rate)."""

    engines: tuple[str, ...]
    limit: float = 0.0
    kind: ClassVar[str] = "error rate"

    def judge(self, run: RunFacts) -> list[Judged]:
        judged = []
        for engine in engine_coverage(self.engines, None, run.results, {}):
            rows = engine.measured + engine.errors
            if rows == 0:
                continue  # an engine with no rows at all: coverage says why
            breached = engine.error_rate > self.limit
            reasons = (error_rate_reason(engine, self.limit),) if breached else ()
            status, detail = BREACHED if breached else HELD, f"{engine.errors} of {rows}"
            judged.append(Judged(self.kind, f"<={self.limit:g}", "--tts-max-error-rate", status, engine.engine, detail,
                                 reasons))  # fmt: skip
        return judged


def error_rate_reason(engine: EngineCoverage, max_error_rate: float) -> str:
    """Why an engine's error rows fail the gate: more of them than the error-rate limit allows."""
    limit = "no error is allowed" if max_error_rate == 0 else f"at most {max_error_rate:.1%} allowed"
    return (
        f"{engine.engine}: {engine.errors} of {engine.measured + engine.errors} target(s) ended in error "
        f"({engine.error_rate:.1%}; {limit}, --tts-max-error-rate)"
    )


def unfinished_reason(exitstatus: int, stopped_early: str | bool) -> str | None:
    """Why a session that did not run to its end cannot pass, or None when it finished."""
    if exitstatus in UNFINISHED_STATUSES:
        return f"the session did not finish (pytest exit status {exitstatus}): an interrupted run never passes"
    if stopped_early:
        detail = stopped_early if isinstance(stopped_early, str) else "stopped early"
        return f"the session stopped before running every selected target ({detail})"
    return None
