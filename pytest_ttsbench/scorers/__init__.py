"""Scorers: pure functions from a transcript and an expectation to a :class:`~pytest_ttsbench.verdict.Verdict`."""

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.scorers.registry import UnknownScorerError, available_scorers, get_scorer

__all__ = ["ScoreContext", "Scorer", "UnknownScorerError", "available_scorers", "get_scorer"]
