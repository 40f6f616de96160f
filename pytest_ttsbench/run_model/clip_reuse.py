"""Which engines' clips a run may read from the cache, and what a run's verdicts rest on.

The cache key (cache.py) holds everything a *request* says. A local engine that makes the same
audio from the same inputs every time (eSpeak NG, whose release is in the key; Piper, whose
model file's SHA-256 is) cannot answer an unchanged request differently, so its cached clip is
the clip it would make now. A remote engine can: a vendor ships a new voice behind the same
endpoint, model and voice names, and a cached clip then judges the new release on the old
release's audio. So the safe default (``local``) reads only clips of engines that declare
themselves ``reproducible``; every other engine's clips are made afresh (and still written, for
a run that asks to reuse them with ``--tts-cache-reuse=all`` / ``cache_reuse: all``). A run
gated against a baseline never reads a non-reproducible engine's clip whatever it asks: it
exists to measure the candidate. Transcripts stay reusable: they are keyed by the clip's
SHA-256, so one is reused only for the very audio it was made from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ttsbench.run_model.results import ItemResult
from pytest_ttsbench.support.cache import READ_FAILED, WRITE_FAILED
from pytest_ttsbench.support.plugin_options import REUSE_CHOICES as REUSE_CHOICES

DEFAULT_REUSE = "local"


#: the ``cache`` values of a row: ``hit`` read from the cache; ``miss`` none there, made now;
#: ``fresh`` not read (the reuse policy), made now; ``damaged`` a damaged entry ignored, made now;
#: ``off`` the cache was not used
MADE_NOW = ("miss", "fresh", "damaged")


class ReuseError(ValueError):
    """A reuse setting that is not one of :data:`REUSE_CHOICES`; the message names the setting."""


@dataclass(frozen=True)
class ClipReuse:
    """What a run may read: every cacheable engine's clips (``remote``) or only reproducible ones'."""

    remote: bool = False
    #: the run is compared with a baseline (``--tts-baseline``): a candidate is always measured
    gated_against_baseline: bool = False

    @property
    def reads_remote(self) -> bool:
        return self.remote and not self.gated_against_baseline


def reuse_choice(option: str | None, configured: str | None) -> ClipReuse:
    """``--tts-cache-reuse``, else the configuration's ``cache_reuse``, else ``local``."""
    chosen = option or configured or DEFAULT_REUSE
    if chosen not in REUSE_CHOICES:
        where = "--tts-cache-reuse" if option else "field cache_reuse"
        raise ReuseError(f"{where}: {chosen!r} is not one of {', '.join(REUSE_CHOICES)}")
    return ClipReuse(remote=chosen == "all")


def is_reproducible(engine: object) -> bool:
    """An engine that declares ``reproducible = True``: its audio depends on nothing but its cache key."""
    return getattr(engine, "reproducible", False) is True


def reads_clips(reuse: ClipReuse, engine: object) -> bool:
    """Whether a run under ``reuse`` may judge ``engine`` on a clip from the cache."""
    return is_reproducible(engine) or reuse.reads_remote


@dataclass
class CacheUse:
    """What a run's rows say of the cache: clips and transcripts reused or made now, per engine."""

    #: engine → row ``cache["audio"]`` value → rows
    clips: dict[str, Counter[str]] = field(default_factory=dict)
    transcripts: Counter[str] = field(default_factory=Counter)
    #: row ``cache["quality"]`` value → clips (quality figures, ``--tts-quality``)
    quality: Counter[str] = field(default_factory=Counter)
    #: entry kind → damaged entries found (each a miss); rows count clips and transcripts, the
    #: session adds parsed case files
    damaged: Counter[str] = field(default_factory=Counter)

    @property
    def damaged_entries(self) -> Counter[str]:
        """Entry kind → damaged entries found (each a miss)."""
        return Counter({kind: n for kind, n in self.damaged.items() if not kind.startswith(_FAILED)})

    @property
    def failed(self) -> Counter[str]:
        """``write failed: <kind>`` / ``read failed: <kind>`` → cache accesses the file system refused."""
        return Counter({kind: n for kind, n in self.damaged.items() if kind.startswith(_FAILED)})

    @property
    def clips_reused(self) -> int:
        return sum(counts["hit"] for counts in self.clips.values())

    @property
    def clips_total(self) -> int:
        return sum(sum(counts.values()) for counts in self.clips.values())

    @property
    def clips_not_read(self) -> int:
        return sum(counts["fresh"] for counts in self.clips.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "clips": {
                "reused": self.clips_reused,
                "total": self.clips_total,
                "engines": {
                    engine: {
                        "reused": counts["hit"],
                        "made_now": sum(counts[v] for v in MADE_NOW),
                        "not_read_by_policy": counts["fresh"],
                        "off": counts["off"],
                    }
                    for engine, counts in sorted(self.clips.items())
                },
            },
            "transcripts": {"reused": self.transcripts["hit"], "total": sum(self.transcripts.values())},
            "quality": {"reused": self.quality["hit"], "total": sum(self.quality.values())},
            "damaged_entries": dict(sorted(self.damaged_entries.items())),
            "failed": dict(sorted(self.failed.items())),
        }

    def line(self) -> str | None:
        """The terminal's line next to the gate's outcome; None when the cache played no part
        (nothing reused, nothing damaged, nothing left unread by the reuse policy)."""
        reused = self.transcripts["hit"]
        if not (self.clips_reused or reused or self.quality["hit"] or self.damaged or self.clips_not_read):
            return None
        text = (
            f"cache: {self.clips_reused} of {self.clips_total} clip(s) reused from an earlier run"
            f"{_engines_reused(self.clips)}, {reused} of {sum(self.transcripts.values())} transcript(s) reused"
        )
        if self.quality:
            text += f", quality figures of {self.quality['hit']} of {sum(self.quality.values())} clip(s) reused"
        if self.clips_not_read:
            text += (
                f"; {self.clips_not_read} clip(s) of engines that are not reproducible made afresh, "
                "not read from the cache (--tts-cache-reuse=all reads them, except against a baseline)"
            )
        if self.damaged_entries:
            found = ", ".join(f"{count} {kind}" for kind, count in sorted(self.damaged_entries.items()))
            text += f"; damaged cache entries ignored and made again: {found}"
        text += self._failed_text()
        if self.clips_reused:
            text += "; --tts-cache=off asks the engines afresh"
        return text

    def _failed_text(self) -> str:
        if not self.failed:
            return ""
        writes = sum(n for kind, n in self.failed.items() if kind.startswith(WRITE_FAILED))
        reads = sum(self.failed.values()) - writes
        parts = [f"{writes} cache write(s)"] * bool(writes) + [f"{reads} cache read(s)"] * bool(reads)
        return f"; {' and '.join(parts)} failed (the file system refused them): the run went on without them"


#: what a failed cache read or write is counted under (support/cache.py READ_FAILED / WRITE_FAILED)
_FAILED = (READ_FAILED, WRITE_FAILED)

# a row's cache source → the cache entry kind it read (every other source is a route's transcript)
_KINDS = {"audio": "audio", "quality": "quality"}


def _engines_reused(clips: Mapping[str, Counter[str]]) -> str:
    reused = [f"{engine} {counts['hit']}" for engine, counts in sorted(clips.items()) if counts["hit"]]
    return f" ({', '.join(reused)})" if reused else ""


def cache_use(results: Sequence[ItemResult], damaged: Mapping[str, int] | None = None) -> CacheUse:
    """Count what the rows say of the cache, one clip per (engine, item, generation) however many
    targets share it; ``damaged`` is what the session counted (it also saw parsed case files),
    else the rows' own ``damaged`` clips and transcripts are counted."""
    use = CacheUse(damaged=Counter({kind: n for kind, n in (damaged or {}).items() if n}))
    seen: set[tuple[str, str, int, str]] = set()
    for row in results:
        for source_of, source in row.cache.items():
            clip = (row.engine, row.id, row.repeat, source_of)
            if clip in seen:
                continue
            seen.add(clip)
            if source_of == "audio":
                use.clips.setdefault(row.engine, Counter())[source] += 1
            elif source_of == "quality":
                use.quality[source] += 1
            else:
                use.transcripts[source] += 1
            if source == "damaged" and damaged is None:
                use.damaged[_KINDS.get(source_of, "transcripts")] += 1
    return use
