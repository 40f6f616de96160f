"""Text helpers with no dependencies inside the package, so every layer may import them: file names
that cannot leave their folder, paths as a person would type them, and messages bounded in length
(whatever a file holds, an error quoting it stays readable).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

#: a category name, in case files and in a readings scorer's table: categories become pytest markers,
#: and pytest refuses marker names that start with an underscore (a leading "." or "-" would become
#: one once made marker-safe)
CATEGORY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*\Z"


def safe_name(text: str) -> str:
    """A file name that cannot leave its directory, whatever ``text`` holds.

    Anything outside ``[A-Za-z0-9._-]`` becomes ``_``; leading dots are dropped; and when the
    name had to change, a short hash of the original keeps distinct ids distinct.
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip(".")[:80] or "item"
    if cleaned != text:
        cleaned += "-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    return cleaned


def shown_path(path: object, base: Path | None) -> str:
    """A path as a person standing in ``base`` (the invocation directory) would type it: relative to
    ``base`` when inside it, else as given. ``base`` None: as given."""
    text = str(path)
    if base is None or not text:
        return text
    try:
        return Path(text).relative_to(base).as_posix() if Path(text).is_absolute() else text
    except ValueError:
        return text


#: characters of one message kept; the rest is replaced by a note saying how much was cut
MAX_MESSAGE_CHARS = 600


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to about ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


def closest_names(name: str, names: Iterable[str]) -> list[str]:
    """Up to three of ``names`` closest to ``name`` (difflib's ratio, at least 0.5), closest first.

    The one place a mistyped name is matched against the known ones: engine profiles, options,
    case-file fields, floors and bounds all suggest through it, so they suggest alike.
    """
    import difflib

    known = sorted(set(names))
    return difflib.get_close_matches(name, known, n=3, cutoff=0.5)


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """``did you mean 'espeak'?``, the closest of ``names`` to a mistyped ``name``; "" when none is close."""
    matches = closest_names(name, names)
    return f"did you mean {matches[0]!r}?" if matches else ""
