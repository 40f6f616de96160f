"""Scorers by name: the built-in ones, and third-party ones from the ``pytest_ttsbench.scorers`` entry point.

A third-party package registers a :class:`~pytest_ttsbench.scorers.base.Scorer` subclass::

    [project.entry-points."pytest_ttsbench.scorers"]
    my-scorer = "my_package.scoring:MyScorer"
"""

from __future__ import annotations

from functools import cache

from pytest_ttsbench.registry import Registry, UnknownName
from pytest_ttsbench.scorers.base import Scorer

ENTRY_POINT_GROUP = "pytest_ttsbench.scorers"

#: scorer name → its class; built-ins imported on first use, so importing the registry stays cheap.
SCORERS: Registry[type[Scorer]] = Registry(
    "scorer",
    ENTRY_POINT_GROUP,
    {
        "numbers": "pytest_ttsbench.scorers.numbers:NumbersScorer",
        "keyword": "pytest_ttsbench.scorers.keyword:KeywordScorer",
        "readings": "pytest_ttsbench.scorers.readings:ReadingsScorer",
        "semantic": "pytest_ttsbench.scorers.semantic_zh:SemanticScorer",
        "listening": "pytest_ttsbench.scorers.listening:ListeningScorer",
    },
)


class UnknownScorerError(UnknownName):
    """Raised for a scorer name that is neither built in nor registered."""


def available_scorers() -> list[str]:
    """Names of every scorer that can be used in a case file."""
    return SCORERS.names()


@cache
def get_scorer(name: str) -> Scorer:
    """The scorer registered under ``name``; raises :class:`UnknownScorerError` listing the known ones."""
    try:
        return SCORERS.get(name)()
    except UnknownName as exc:
        raise UnknownScorerError(str(exc)) from None
