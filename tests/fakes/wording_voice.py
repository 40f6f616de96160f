"""A voice whose wording varies between identical requests, for the ``python`` engine (no audio, no Whisper).

Real stochastic vendors return a different clip for the same request, and a recognizer then hears
it in slightly different words now and then. This fake skips the audio and returns what such a
voice would be heard as: a transcript drawn per request from a fixed repertoire, with a random
generator seeded by the request's own seed (``SynthesisRequest.seed``: fresh per generation, or
``seed + r`` under a profile ``seed``), so a test can both let it vary freely and replay a draw.

Profile::

    voice:
      type: python
      factory: "wording_voice:load"
      options: {mode: steady}          # or degraded: a bad release
      repeats: 3

In ``steady`` mode some items are heard alike in every draw, up to case and punctuation, which
the snapshots normalize away; two are heard right in one of two wordings (``year-1999``: "founded"
or "set up"; ``time-0630``: "leaves" or "departs"); ``release/pct-45`` is a coin (its number heard
right or swapped, half the time each), the kind of item a team lists as a known gap. ``degraded``
hears every number wrong.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pytest_ttsbench.engines.base import Synthesis, SynthesisRequest

#: the release pack: item id → (category, text, expected values)
ITEMS = {
    "year-2026": ("years", "The plant opened in 2026.", ["2026"]),
    "year-1999": ("years", "The company was founded in 1999.", ["1999"]),
    "pct-45": ("percentages", "Turnout reached 45% this year.", ["45"]),
    "pct-12": ("percentages", "Prices rose by 12% last year.", ["12"]),
    "time-0630": ("times", "The train leaves at 6:30.", ["6", "30"]),
}
SUITE = "release"
COIN = f"{SUITE}/pct-45"
#: what the steady voice is heard as, per item: every wording one draw may give
STEADY = {
    f"{SUITE}/year-2026": ("The plant opened in 2026.", "the plant opened in 2026", "The plant opened in 2026!"),
    f"{SUITE}/year-1999": ("The company was founded in 1999.", "The company was set up in 1999."),
    COIN: ("Turnout reached 45 percent this year.", "Turnout reached 54 percent this year."),
    f"{SUITE}/pct-12": ("Prices rose by 12 percent last year.", "prices rose by 12 percent last year"),
    f"{SUITE}/time-0630": ("The train leaves at 6:30.", "The train departs at 6:30."),
}
#: the items heard right in several wordings (what a snapshot stores of them varies with the draw)
REWORDED = (f"{SUITE}/year-1999", f"{SUITE}/time-0630")
DEGRADED = {
    f"{SUITE}/year-2026": "The plant opened in 2062.",
    f"{SUITE}/year-1999": "The company was founded in 1990.",
    COIN: "Turnout reached 54 percent this year.",
    f"{SUITE}/pct-12": "Prices rose by 20 percent last year.",
    f"{SUITE}/time-0630": "The train leaves at 6:13.",
}


def heard(item_id: str, seed: int | None, mode: str = "steady") -> str:
    """What one request for ``item_id`` (``suite/id``) with ``seed`` is heard as."""
    if mode == "degraded":
        return DEGRADED[item_id]
    return random.Random(f"{seed}/{item_id}").choice(STEADY[item_id])


@dataclass
class WordingVoice:
    mode: str = "steady"

    def synthesize(self, request: SynthesisRequest) -> Synthesis:
        return Synthesis(transcripts={"transcript": heard(request.item_id, request.seed, self.mode)})


def load(mode: str = "steady") -> WordingVoice:
    return WordingVoice(mode)
