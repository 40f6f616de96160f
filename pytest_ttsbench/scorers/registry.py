"""Scorers by name: the built-in ones, and third-party ones from the ``pytest_ttsbench.scorers`` entry point.

A third-party package registers a :class:`~pytest_ttsbench.scorers.base.Scorer` subclass::

    [project.entry-points."pytest_ttsbench.scorers"]
    my-scorer = "my_package.scoring:MyScorer"
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from pytest_ttsbench.scorers.base import Scorer

ENTRY_POINT_GROUP = "pytest_ttsbench.scorers"


class UnknownScorerError(LookupError):
    """Raised for a scorer name that is neither built in nor registered."""


def _builtin() -> dict[str, type[Scorer]]:
    # Imported here so that importing the registry stays cheap and free of cycles.
    from pytest_ttsbench.scorers.keyword import KeywordScorer
    from pytest_ttsbench.scorers.listening import ListeningScorer
    from pytest_ttsbench.scorers.numbers import NumbersScorer
    from pytest_ttsbench.scorers.readings import ReadingsScorer
    from pytest_ttsbench.scorers.semantic_zh import SemanticScorer

    return {cls.name: cls for cls in (NumbersScorer, KeywordScorer, ReadingsScorer, SemanticScorer, ListeningScorer)}


@cache
def _all_scorer_classes() -> dict[str, type[Scorer]]:
    found = _builtin()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.load())
    return found


def available_scorers() -> list[str]:
    """Names of every scorer that can be used in a case file."""
    return sorted(_all_scorer_classes())


@cache
def get_scorer(name: str) -> Scorer:
    """The scorer registered under ``name``; raises :class:`UnknownScorerError` listing the known ones."""
    classes = _all_scorer_classes()
    if name not in classes:
        raise UnknownScorerError(f"unknown scorer {name!r}; known scorers: {', '.join(sorted(classes))}")
    return classes[name]()
