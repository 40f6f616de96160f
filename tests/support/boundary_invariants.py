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


def json_lines(path: Path) -> list[str]:
    """The non-blank lines of a JSON-lines file, split at ``\n`` only (as the package reads them)."""
    return [line for line in path.read_bytes().decode("utf-8").split("\n") if line.strip()]


def assert_strict_json_file(path: Path) -> None:
    """Every JSON or JSON-lines document in ``path`` parses strictly."""
    text = path.read_bytes().decode("utf-8")
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


# --- a finished run -------------------------------------------------------------------------------

#: exit statuses a run may end with: passed, failed, interrupted, internal error (a refused write), usage error
RUN_STATUSES = (0, 1, 2, 3, 4)


def assert_run_invariants(rc: int, output: str, out: Path, selected: set[str], secrets: Iterable[str] = ()) -> None:
    """What holds after any run, whatever crossed its boundaries (``out`` holds ``r.jsonl`` and its sidecars).

    - no traceback, no raw control character or workflow command from outside data, no secret on the terminal;
    - every JSON file parses strictly, no secret in any output file;
    - every selected target has a row, or the run is marked incomplete (it did not pass);
    - exit 0 only when every target was measured and the gate file says it passed.
    """
    secrets = [s for s in secrets if s]
    assert rc in RUN_STATUSES, f"exit status {rc}:\n{output[-3000:]}"
    assert_terminal_clean(output, secrets)
    if out.is_dir():
        assert_outputs_clean(out, secrets)
    results = out / "r.jsonl"
    rows = [strict_json(line) for line in json_lines(results)] if results.is_file() else []
    measured = {row["id"] for row in rows if isinstance(row, dict)}
    gate_file = out / "r.gate.json"
    gate = strict_json(gate_file.read_text(encoding="utf-8")) if gate_file.is_file() else None
    if selected - measured:
        assert rc != 0, f"targets without a row ({sorted(selected - measured)}) in a run that passed"
        assert gate is None or gate["passed"] is False
    if rc == 0:
        assert gate is not None and gate["passed"] is True, "exit 0 without a passing gate file"
        assert all(row.get("verdict") == "correct" for row in rows), "exit 0 with a target not measured correct"
