"""Which ready clips are decoded together (asr/batching.py's plan_batches), over every grouping."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from pytest_ttsbench.asr.batching import plan_batches


@dataclass(frozen=True)
class _Ready:
    position: int  # where the clip's test comes in the run
    route: str
    language: str


_clips = st.lists(
    st.tuples(st.sampled_from(["whisper:tiny.en", "whisper:base"]), st.sampled_from(["en", "zh", "th", "en-GB"])),
    max_size=40,
).map(lambda pairs: [_Ready(n, route, language) for n, (route, language) in enumerate(pairs)])


@given(clips=_clips, limit=st.integers(min_value=1, max_value=9))
def test_every_clip_once_in_order_never_mixing_routes_or_languages(clips: list[_Ready], limit: int) -> None:
    batches = plan_batches(clips, lambda clip: (clip.route, clip.language), limit)

    flat = [clip for batch in batches for clip in batch]
    assert sorted(flat, key=lambda clip: clip.position) == clips  # each clip exactly once
    for batch in batches:
        assert 1 <= len(batch) <= limit
        assert len({(clip.route, clip.language) for clip in batch}) == 1  # one route, one language
        assert [clip.position for clip in batch] == sorted(clip.position for clip in batch)
    # Within a group the batches follow one another in test order, each full but the last.
    for group in {(clip.route, clip.language) for clip in clips}:
        of_group = [batch for batch in batches if (batch[0].route, batch[0].language) == group]
        positions = [clip.position for batch in of_group for clip in batch]
        assert positions == [clip.position for clip in clips if (clip.route, clip.language) == group]
        assert all(len(batch) == limit for batch in of_group[:-1])
    if clips:  # the asking clip (first) is in the first batch, the one decoded now
        assert batches[0][0] == clips[0]
