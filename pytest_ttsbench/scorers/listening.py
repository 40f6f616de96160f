"""``listening``: a free-listening item, judged by people, never by the automatic chain.

Prompts such as a Gulf Arabic sentence or a long accessibility passage have no value an ASR
transcript could confirm: what matters is whether listeners fluent in the variety find the
voice right. Such an item is still synthesized (every generation kept with its provenance, so
``ttsbench listening export`` can build a kit from the run), but it is never transcribed and
its target is not auto-evaluable: it is recorded with verdict ``unknown`` and left out of every
accuracy figure, floor and baseline, so it can neither pass nor fail a gate by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_ttsbench.scorers.base import ScoreContext, Scorer
from pytest_ttsbench.verdict import Verdict

NOTE = "free listening: judged by listeners (ttsbench listening), no automatic verdict"


class ListeningScorer(Scorer):
    name: ClassVar[str] = "listening"
    expect_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        # What listeners should attend to, shown on the listening page beside the text.
        "properties": {"focus": {"type": "string", "minLength": 1}},
    }
    needs_transcript: ClassVar[bool] = False

    def targets(self, expect: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return [{**expect, "auto_evaluable": False}]

    def expected_text(self, expect: Mapping[str, Any]) -> str:
        return "no automatic check (rated by listeners)"

    def score(self, transcript: str, expect: Mapping[str, Any], context: ScoreContext) -> Verdict:
        return Verdict("unknown", note=NOTE)
