"""Reading YAML documents (case files, the configuration, known gaps) with libyaml when it is there.

PyYAML's pure-Python loader is most of the time spent collecting a large benchmark; its C
loader (``CSafeLoader``, present whenever PyYAML was built against libyaml, as its wheels are)
parses the same safe subset to the same objects two to three times faster. PyYAML itself is
imported on the first read, so a pytest run that reads no YAML never pays for it.
"""

from __future__ import annotations

from typing import Any


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
