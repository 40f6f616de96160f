"""Splitting one run into N shards for N CI jobs: ``--tts-shard I/N``.

An item goes to shard ``1 + (SHA-256 of its id) mod N``. The id is the item's
``<suite>/<item id>``, so every target, engine and repeat of one item land in the same shard (its
clip is synthesized once), and adding or removing an item never moves any other item: yesterday's
shard 2 is today's shard 2 plus or minus the items that changed. A hash spreads items evenly
enough for CI (for 300 items in 3 shards, each holds about 100 ± 15). Tests that are not
benchmark items are sharded by their node id the same way, so a project's own tests run once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class ShardError(ValueError):
    """A shard that cannot be used; the message names the option and the value."""


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, key: str) -> bool:
        return shard_of(key, self.count) == self.index


def parse_shard(text: str, where: str = "--tts-shard") -> Shard:
    """``"2/3"`` → Shard(2, 3); anything else is a :class:`ShardError` naming ``where``."""
    index, slash, count = text.strip().partition("/")
    try:
        shard = Shard(int(index), int(count))
    except ValueError:
        raise ShardError(f"{where} {text!r}: expected I/N with whole numbers, e.g. 2/3") from None
    if not slash or shard.count < 1 or not 1 <= shard.index <= shard.count:
        raise ShardError(f"{where} {text!r}: expected I/N with 1 <= I <= N, e.g. 2/3")
    return shard


def shard_of(key: str, count: int) -> int:
    """The 1-based shard that holds ``key`` among ``count`` shards."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def select(items: Sequence[T], shard: Shard, key_of: Callable[[T], str]) -> tuple[list[T], list[T]]:
    """(kept, deselected): the items whose key falls in ``shard``, in their original order."""
    kept: list[T] = []
    dropped: list[T] = []
    for item in items:
        (kept if shard.holds(key_of(item)) else dropped).append(item)
    return kept, dropped
