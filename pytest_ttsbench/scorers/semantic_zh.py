"""``semantic``: the meaning a written Chinese form must keep (decimal, identifier, currency, formula, unit)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.verdict import Verdict


class SemanticScorer(Scorer):
    name: ClassVar[str] = "semantic"
    expect_schema: ClassVar[Mapping[str, Any]] = {"type": "object", "required": ["type"]}

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        return Verdict("error", note="semantic scorer not implemented yet")
