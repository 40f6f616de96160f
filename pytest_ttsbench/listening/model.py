"""What a listening kit is made of: the clips, who hears which, and the kit itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SourceClip:
    """One generation of one prompt by one system, as the run recorded it."""

    system: str
    prompt: str  # "<suite>/<item id>"
    generation: int  # 1-based: the repeat index + 1
    text: str
    language: str
    variety: str | None
    review: str | None
    reviewed: str | None
    focus: str | None
    audio_path: Path | None
    error: str | None
    details: dict[str, Any]  # provider, model, voice, settings, seed, date

    @property
    def group_key(self) -> tuple[str, str]:
        return (self.system, self.prompt)


@dataclass(frozen=True)
class MissingClip:
    system: str
    prompt: str
    generation: int
    reason: str


@dataclass
class ListenerPlan:
    listener: str  # L01, L02, …
    clips: list[str]  # clip ids in this listener's order
    groups: list[str]  # consistency group ids in this listener's order


@dataclass
class Kit:
    root: Path
    clips: dict[str, SourceClip]  # anonymous id → what it is
    files: dict[str, str]  # anonymous id → file name under listeners/clips
    groups: dict[str, list[str]]  # group id → its clip ids (one system's generations of one prompt)
    listeners: list[ListenerPlan]
    missing: list[MissingClip] = field(default_factory=list)
    seed: int | None = None
    token: str = ""  # random; keeps two kits' answers apart in a browser's storage

    @property
    def pending_reviews(self) -> dict[str, str]:
        """Prompts that still need their review (prompt → review kind), e.g. dialect prompts."""
        return {c.prompt: c.review for c in self.clips.values() if c.review and not c.reviewed}
