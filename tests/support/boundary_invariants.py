"""The invariants every run keeps whatever crosses its boundaries (tests/boundaries, tests/audio, ...).

Each ``assert_*`` names what broke; :func:`assert_run_invariants` checks them all over one finished
run: its terminal output, its exit status and every JSON file it left.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: C0 controls but tab and newline, DEL, C1 controls, and the bidi overrides/isolates
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict_json(text: str) -> Any:
    """``text`` parsed as strict JSON: NaN, Infinity and -Infinity are refused, as other languages refuse them."""
    return json.loads(text, parse_constant=_refuse_constant)


def assert_strict_json_file(path: Path) -> None:
    """Every JSON or JSON-lines document in ``path`` parses strictly."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                try:
                    strict_json(line)
                except ValueError as exc:
                    raise AssertionError(f"{path}: line {number} is not strict JSON: {exc}") from None
    else:
        try:
            strict_json(text)
        except ValueError as exc:
            raise AssertionError(f"{path} is not strict JSON: {exc}") from None


def assert_terminal_clean(output: str, secrets: Iterable[str] = ()) -> None:
    """No traceback, no raw control character, no line a CI runner would take as a workflow command, no secret."""
    assert "Traceback (most recent call last)" not in output, output[-3000:]
    assert "INTERNALERROR" not in output, output[-3000:]
    found = RAW_CONTROL.search(output)
    assert found is None, (
        f"raw control {found.group()!r} on the terminal: {output[max(0, found.start() - 200) :][:400]!r}"
    )
    for line in output.splitlines():
        assert not line.lstrip().startswith("::"), f"a line a CI runner would run as a workflow command: {line!r}"
    for secret in secrets:
        assert secret not in output, "a secret reached the terminal"


def assert_outputs_clean(folder: Path, secrets: Iterable[str] = ()) -> None:
    """Every JSON file under ``folder`` parses strictly and no file there holds a secret."""
    secrets = [s for s in secrets if s]
    for path in folder.rglob("*"):
        if not path.is_file() or path.suffix not in {".json", ".jsonl", ".xml", ".csv", ".html", ".txt"}:
            continue
        if path.suffix in {".json", ".jsonl"}:
            assert_strict_json_file(path)
        body = path.read_text(encoding="utf-8", errors="replace")
        for secret in secrets:
            assert secret not in body, f"a secret in {path}"
