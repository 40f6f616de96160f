"""Text contracts across runs: which text variant (raw, mono, bilingual) each run sent.

A Thai item may be sent as written (``raw``), with its English keyword transliterated (``mono``)
or with both (``bilingual``); the three measure different things. Every result row records the
contract of its run, and the commands that put runs side by side (``compare``, ``leaderboard``)
refuse to mix contracts silently: a score moved by the contract would read as a score moved by
the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.plugin_options import CONTRACTS as CONTRACTS

#: the text variants an item may be sent as


class ContractMixError(ValueError):
    """Runs (or rows of one run) that sent different text contracts, compared as if they had not."""


def contracts_of(results: Sequence[ItemResult]) -> list[str]:
    """The distinct text contracts of some rows, sorted."""
    return sorted({row.contract or "raw" for row in results})


def require_one_contract(runs: Mapping[str, Sequence[ItemResult]]) -> str | None:
    """The one contract every run used, or :class:`ContractMixError` naming what each run used.

    Returns None when there are no rows at all.
    """
    return one_value_per_run(
        runs,
        contracts_of,
        lambda detail: ContractMixError(
            f"runs with different text contracts ({detail}) would be compared as one: compare runs of one "
            "contract, or pass --allow-contract-mix to put them side by side knowingly"
        ),
    )


def one_value_per_run(
    runs: Mapping[str, Sequence[ItemResult]],
    values_of: Callable[[Sequence[ItemResult]], list[str]],
    refusal: Callable[[str], Exception],
) -> str | None:
    """The one value (contract, protocol …) every run's rows share, None for no rows; else raise
    ``refusal(detail)``, the detail naming each run's values."""
    used = {name: values_of(rows) for name, rows in runs.items() if rows}
    every = sorted({value for values in used.values() for value in values})
    if len(every) <= 1:
        return every[0] if every else None
    raise refusal("; ".join(f"{name}: {', '.join(values)}" for name, values in used.items()))
