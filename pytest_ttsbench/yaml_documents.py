"""Reading YAML documents (case files, the configuration, known gaps) with libyaml when it is there.

PyYAML's pure-Python loader is most of the time spent collecting a large benchmark; its C
loader (``CSafeLoader``, present whenever PyYAML was built against libyaml, as its wheels are)
parses the same safe subset to the same objects two to three times faster. PyYAML itself is
imported on the first read, so a pytest run that reads no YAML never pays for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

# Bump when what a cached parse holds changes: old entries then simply miss.
_PARSE_VERSION = "1"


class YamlSyntaxError(ValueError):
    """The text is not valid YAML; the message is PyYAML's, ``line`` the 1-based line it names."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(text: str) -> Any:
    """The single document in ``text``, as plain Python objects (the safe subset only)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise YamlSyntaxError(str(exc), mark.line + 1 if mark is not None else None) from exc


def load_yaml_cached(text: str, cache_dir: Path | None) -> Any:
    """Like :func:`load_yaml`, reusing an earlier parse of the same text stored under ``cache_dir``.

    Even libyaml leaves the building of Python objects to PyYAML's Python code, a third of the
    time spent collecting 10,000 items; ``json`` reads the same document back in C. The entry is
    keyed by the text's SHA-256, and a document JSON would change (a date, a number as a mapping
    key) is never stored, so a cached parse equals a fresh one.
    """
    if cache_dir is None:
        return load_yaml(text)
    from pytest_ttsbench.cache import write_atomically

    digest = hashlib.sha256(f"{_PARSE_VERSION}\0{text}".encode()).hexdigest()
    entry = cache_dir / digest[:2] / f"{digest}.json"
    try:
        return json.loads(entry.read_bytes())
    except (OSError, ValueError):
        pass
    data = load_yaml(text)
    try:
        body = json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):
        return data
    if json.loads(body) == data:
        with contextlib.suppress(OSError):  # a read-only cache: parse every time
            write_atomically(entry, body.encode("utf-8"))
    return data
