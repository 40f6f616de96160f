"""Which languages an engine profile is fit to be judged on, and the items a run leaves out for it.

A profile may declare ``languages: [en]``; without it the engine's adapter may say what its voice
speaks (Piper reads its voice's config); without either every language is judged. An item in a
language the profile is not fit for would cost synthesis and ASR time for audio known to be
meaningless (eSpeak NG's Arabic and Mandarin come back from Whisper as noise), so a run leaves it
out at collection and says so in one line per engine. ``--tts-all-languages``, or naming the case
file on the command line, keeps such items.

Languages match on their primary subtag (``en`` fits ``en-US`` and ``en-GB``): a region changes
spelling conventions, not whether a voice can be understood at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_ttsbench.support.record_dicts import record_dict

# Item and voice languages written under another code (Mandarin as ``cmn`` in eSpeak NG).
_ALIASES = {"cmn": "zh"}


def primary_language(tag: str) -> str:
    """The primary subtag of a BCP-47 tag or locale name: ``zh-CN`` → ``zh``, ``en_US`` → ``en``, ``cmn`` → ``zh``."""
    primary = tag.strip().lower().replace("_", "-").split("-")[0]
    return _ALIASES.get(primary, primary)


def fits(languages: Iterable[str] | None, item_language: str) -> bool:
    """Whether an item in ``item_language`` is judged on a profile fit for ``languages`` (None: every language)."""
    if languages is None:
        return True
    return primary_language(item_language) in {primary_language(tag) for tag in languages}


@dataclass(frozen=True)
class LanguageSkip:
    """The items one engine left out because the profile is not fit for their languages."""

    engine: str
    counts: dict[str, int]  # primary language → items left out
    languages: tuple[str, ...]  # what the profile is fit for

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def line(self) -> str:
        left_out = ", ".join(sorted(self.counts))
        items = "item" if self.total == 1 else "items"
        return (
            f"{self.engine}: {self.total} {items} in {left_out} skipped: profile languages are "
            f"{', '.join(self.languages)} (--tts-all-languages or naming the case file runs them)"
        )

    def to_dict(self) -> dict[str, object]:
        return record_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> LanguageSkip:
        counts = data["counts"]
        languages = data["languages"]
        assert isinstance(counts, dict) and isinstance(languages, list)
        return cls(str(data["engine"]), {str(k): int(v) for k, v in counts.items()}, tuple(map(str, languages)))


def language_skips(left_out: Sequence[tuple[str, str]], fit: dict[str, tuple[str, ...]]) -> list[LanguageSkip]:
    """One :class:`LanguageSkip` per engine from ``(engine, item language)`` pairs, in engine order of ``fit``."""
    per_engine: dict[str, Counter[str]] = {}
    for engine, language in left_out:
        per_engine.setdefault(engine, Counter())[primary_language(language)] += 1
    return [
        LanguageSkip(engine, dict(sorted(per_engine[engine].items())), fit[engine])
        for engine in fit
        if engine in per_engine
    ]
