"""Reading JSON documents strictly: the one JSON reader of every file the project reads.

``json.loads`` keeps the last of two equal keys in an object, so a results row, run header,
manifest or listening key with a key written twice is read as whichever came last, silently.
:func:`load_json` refuses it instead, with :class:`DuplicateKeyError` naming the key and the line
of each occurrence. Callers name the file (and, for JSON lines, pass the line the text came from).

The fast path is the C decoder with an ``object_pairs_hook`` that only checks the keys; the line
of a duplicate is found by a second, slower walk that runs only when there is one.

:func:`read_json_lines` is the one JSON-lines reader (results files, transcripts files, benchmark
source files): lines end at ``\n`` only, as JSON lines are written (``str.splitlines`` would also
break a row at a raw U+2028 or form feed inside a string, which ``json.dumps(ensure_ascii=False)``
writes as it is), blank lines are passed over, and each line is read by :func:`load_json`.

:func:`dump_json` is the one JSON writer: every document the package writes (results rows, run
headers, gate files, manifests, printed reports, cache entries, request bodies) is made by it,
with ``allow_nan=False``, so nothing it writes holds ``NaN`` or ``Infinity``, which strict JSON
parsers (and every other language's) refuse. A figure that came out non-finite is written as
``null`` by :func:`finite_or_null`, which says where it was, so the writer can record why.
"""

from __future__ import annotations

import contextlib
import json
import json.decoder
import json.scanner
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class DuplicateKeyError(json.JSONDecodeError):
    """A key given twice in one JSON object. A :class:`json.JSONDecodeError` (so a ``ValueError``):
    every caller that refuses invalid JSON refuses this too."""

    def __init__(self, key: str, doc: str, pos: int, first_pos: int | None, first_line: int = 1) -> None:
        super().__init__(f"duplicate key {key!r}", doc, pos)
        offset = first_line - 1
        self.key = key
        self.lineno += offset
        self.first_lineno = doc.count("\n", 0, first_pos) + 1 + offset if first_pos is not None else None
        # json.JSONDecodeError keeps msg for callers that format "<msg> (column N)" themselves. A
        # one-line document (a JSON-lines row) has its line named by the caller already.
        self.msg = f"duplicate key {key!r}"
        if "\n" in doc:
            self.msg += f" at line {self.lineno}"
            if self.first_lineno is not None:
                self.msg += f" (first given at line {self.first_lineno})"

    def __str__(self) -> str:
        return f"{self.msg}: a key may appear once per object"

    def __reduce__(self) -> Any:  # picklable, for xdist and process pools
        return (_rebuild, (self.key, self.doc, self.pos, self.first_lineno, self.lineno, self.msg))


def _rebuild(key: str, doc: str, pos: int, first_lineno: int | None, lineno: int, msg: str) -> DuplicateKeyError:
    error = DuplicateKeyError.__new__(DuplicateKeyError)
    json.JSONDecodeError.__init__(error, msg, doc, pos)
    error.key, error.first_lineno, error.lineno, error.msg = key, first_lineno, lineno, msg
    return error


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return result


_WHITESPACE = " \t\n\r"


def _first_duplicate(text: str) -> tuple[str, int, int] | None:
    """(key, position of its second occurrence, position of its first) for the first duplicate in document order.

    Only called on text the C decoder has read up to a duplicate, so the text before it is valid JSON.
    """
    # the stdlib's own scanner and string reader (typeshed describes neither as they are)
    scan_value = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
    scanstring = json.decoder.scanstring  # type: ignore[attr-defined]

    def skip(i: int) -> int:
        while i < len(text) and text[i] in _WHITESPACE:
            i += 1
        return i

    def value(i: int) -> int:
        i = skip(i)
        if text[i] == "{":
            return obj(i + 1)
        if text[i] == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            while True:
                i = skip(value(i))
                if text[i] == "]":
                    return i + 1
                i += 1  # ","
        _, end = scan_value(text, i)
        return int(end)

    found: list[tuple[str, int, int]] = []

    def obj(i: int) -> int:
        first: dict[str, int] = {}
        i = skip(i)
        if text[i] == "}":
            return i + 1
        while True:
            i = skip(i)
            key, end = scanstring(text, i + 1)
            if key in first:
                found.append((key, i, first[key]))
                raise _Duplicate(key)
            first[key] = i
            i = skip(end) + 1  # ":"
            i = skip(value(i))
            if text[i] == "}":
                return i + 1
            i += 1  # ","

    # the walk stops at the first duplicate (found), or at text the decoder never reached
    with contextlib.suppress(_Duplicate, IndexError, ValueError, StopIteration, RecursionError):
        value(0)
    return found[0] if found else None


def load_json(text: str | bytes, *, first_line: int = 1) -> Any:
    """The JSON document in ``text``; :class:`DuplicateKeyError` when an object gives a key twice.

    ``first_line`` is the line of the file ``text`` starts on (a JSON-lines row), so the error names
    the file's line. Invalid JSON raises :class:`json.JSONDecodeError` as ``json.loads`` does.
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except _Duplicate as exc:
        doc = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        located = _first_duplicate(doc)
        if located is None:  # not reached on a document the decoder accepted up to the duplicate
            raise DuplicateKeyError(exc.key, doc, 0, None, first_line) from None
        key, pos, first_pos = located
        raise DuplicateKeyError(key, doc, pos, first_pos, first_line) from None


@dataclass(frozen=True)
class JsonLine:
    """One non-blank line of a JSON-lines file: its document, or why it is not one."""

    path: Path
    number: int  # counted from 1
    value: Any = None
    #: why the line is no JSON document ("not valid JSON: ... (column N)"); None when it is one
    problem: str | None = None
    #: the file's last line with no newline after it: the line a writer killed mid-row leaves
    unfinished: bool = False

    @property
    def where(self) -> str:
        """``FILE: line N``, the start of every message about this line."""
        return f"{self.path}: line {self.number}"


def read_json_lines(path: Path) -> list[JsonLine]:
    """Every non-blank line of a JSON-lines file, in order, each read strictly (a bad one says why).

    A line that is not one JSON document is returned with its ``problem``, never skipped: the
    caller decides whether that ends the read. The file itself is read with ``Path.read_text``, so
    an unreadable file raises ``OSError`` and one that is not UTF-8 ``UnicodeDecodeError``.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    read: list[JsonLine] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        unfinished = number == len(lines)
        try:
            value = load_json(line, first_line=number)
        except json.JSONDecodeError as exc:
            problem = f"not valid JSON: {exc.msg} (column {exc.colno})"
            read.append(JsonLine(path, number, problem=problem, unfinished=unfinished))
            continue
        read.append(JsonLine(path, number, value, unfinished=unfinished))
    return read


class NonFiniteNumber(ValueError):
    """A document to write holds NaN or an infinity where :func:`finite_or_null` was not asked to null it."""


def dump_json(
    value: Any,
    *,
    indent: int | None = None,
    sort_keys: bool = False,
    ensure_ascii: bool = False,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], Any] | None = None,
    null_non_finite: bool = False,
) -> str:
    """``value`` as strict JSON text: the one JSON writer of the package.

    ``NaN`` and the infinities are refused (:class:`NonFiniteNumber`) instead of written as the
    bare words ``NaN``/``Infinity``, which are not JSON: a writer that may meet them cleans its
    document with :func:`finite_or_null` first, to record where, or passes ``null_non_finite``
    (a printed report, whose reader sees a missing figure as missing).
    """
    if null_non_finite:
        value = finite_or_null(value)[0]
    try:
        return json.dumps(
            value,
            indent=indent,
            sort_keys=sort_keys,
            ensure_ascii=ensure_ascii,
            separators=separators,
            default=default,
            allow_nan=False,
        )
    except ValueError as exc:
        if "Out of range float" not in str(exc):
            raise
        where = ", ".join(finite_or_null(value)[1]) or "a value"
        raise NonFiniteNumber(f"not written: {where} is not a finite number (NaN or infinite)") from None


def finite_or_null(value: Any, where: str = "") -> tuple[Any, list[str]]:
    """``value`` with every NaN or infinite float replaced by ``None``, and the dotted paths of those replaced.

    Mappings, lists and tuples are walked (a tuple comes back as a list, as JSON writes it);
    anything else is returned as it is.
    """
    if isinstance(value, float):
        return (value, []) if math.isfinite(value) else (None, [where or "(value)"])
    if isinstance(value, dict):
        cleaned: dict[Any, Any] = {}
        found: list[str] = []
        for key, item in value.items():
            cleaned[key], inner = finite_or_null(item, f"{where}.{key}" if where else str(key))
            found += inner
        return (cleaned, found) if found else (value, [])
    if isinstance(value, (list, tuple)):
        items: list[Any] = []
        found = []
        for index, item in enumerate(value):
            clean, inner = finite_or_null(item, f"{where}[{index}]")
            items.append(clean)
            found += inner
        return (items, found) if found else (value, [])
    return value, []
