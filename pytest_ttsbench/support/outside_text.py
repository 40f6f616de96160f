"""Text that leaves the process, made safe where it is written: the terminal, CI logs, CSV cells, XML.

Much of what a run prints came from outside: a provider's error message, a transcript, an item's
text, an engine's name, a file name. Written raw, such text can drive the reader:

- a terminal runs escape sequences (clear the screen, retitle the window, hide text) and shows
  bidi overrides that reorder what a reviewer reads;
- a GitHub Actions runner takes any log line that starts with ``::`` (after blanks) as a
  workflow command (``::error``, ``::add-mask::``, ``::stop-commands::``), and ``##[`` anywhere
  in a line as an older one, so a hostile or compromised provider could annotate, mask or spoof
  a team's CI;
- a spreadsheet runs a CSV cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a CR as a
  formula (OWASP's CSV injection).

So:

- :func:`shown` is outside text as one safe line (controls, line breaks and bidi marks as
  escapes, a leading ``::`` broken); :func:`shown_block` keeps the line breaks of a block;
- :class:`GuardedStream` sits under everything written to the terminal (pytest's terminal writer
  and the ``ttsbench`` command's stdout and stderr, installed by :func:`guard_terminal` and
  :func:`guarded_std_streams`): whatever reached it raw is escaped there, and a line that would
  be a workflow command is broken, unless this process made it with :func:`workflow_command`;
- :func:`workflow_command` is the one way our own code emits a workflow command: it escapes its
  payload as GitHub's toolkit does and marks the line as ours;
- :func:`csv_text` writes every CSV the package writes, each text cell through :func:`csv_cell`;
- :func:`xml_text` keeps only the characters XML 1.0 allows (JUnit XML).

HTML is autoescaped by Jinja (reporting/templating.py).
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

#: characters never written raw: C0 controls but tab, line feed and carriage return; DEL; C1
#: controls; the Arabic letter mark, LRM/RLM, the bidi embeddings, overrides and isolates; the
#: Unicode line and paragraph separators
_CONTROL = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROLS = re.compile(f"[{_CONTROL}]")
#: the same, and the line breaks: what :func:`shown` escapes in one line of outside text
_LINE_CONTROLS = re.compile(f"[{_CONTROL}\t\n\r]")
#: a colour sequence (SGR) as pytest's terminal writer writes it, let through when markup is on
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_GUARDED = re.compile(f"\x1b\\[[0-9;]*m|[{_CONTROL}\r]|##\\[")
#: a line break as a CI runner reads one (.NET's ReadLine: CR, LF, CRLF)
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
#: the line break of a stream without markup (a CI log, a pipe): a carriage return there is escaped
_NEWLINE = re.compile(r"(\n)")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _break_command(line: str) -> str:
    """``line`` with a leading ``::`` (after blanks) broken, so no runner takes it as a workflow command."""
    stripped = line.lstrip()
    if not stripped.startswith("::"):
        return line
    return line[: len(line) - len(stripped)] + "\\x3a" + stripped[1:]


def shown(text: object) -> str:
    """Outside text as one line safe on a terminal and in a CI log: controls, line breaks and bidi
    marks as escapes (``\\x1b``, ``\\n``, ``\\u202e``), ``##[`` broken and a leading ``::`` broken."""
    line = _LINE_CONTROLS.sub(lambda m: _escape(m.group()), str(text)).replace("##[", "#\\x23[")
    return _break_command(line)


def shown_block(text: object) -> str:
    """Outside text of several lines (a transcript, a multi-line message), each line made safe as :func:`shown`."""
    return "\n".join(shown(line) for line in _LINE_BREAK.split(str(text))[::2])


# --- workflow commands: ours only ----------------------------------------------------------------------

_ISSUED: set[str] = set()
_ISSUED_LOCK = threading.Lock()
_COMMAND_NAME = re.compile(r"[A-Za-z][A-Za-z-]*\Z")


def _escape_data(text: str) -> str:
    # as @actions/core's escapeData: the runner unescapes these three; then no raw control remains
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _CONTROLS.sub(lambda m: _escape(m.group()), text).replace("##[", "#\\x23[")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str = "", **properties: object) -> str:
    """The one line our code writes to give a CI runner a workflow command, e.g.
    ``workflow_command("error", "3 bounds breached", file="ttsbench.yaml", line=4)``
    → ``::error file=ttsbench.yaml,line=4::3 bounds breached``.

    The message and property values are escaped as GitHub's toolkit escapes them (``%``, CR, LF;
    ``:`` and ``,`` in properties), so they cannot end the command or start another; the line is
    remembered as ours, so :class:`GuardedStream` lets it through as it is. Properties whose value
    is None are left out.
    """
    if not _COMMAND_NAME.match(command):
        raise ValueError(f"not a workflow command name: {command!r}")
    props = ",".join(
        f"{name}={_escape_property(str(value))}" for name, value in properties.items() if value is not None
    )
    line = f"::{command}{' ' + props if props else ''}::{_escape_data(message)}"
    with _ISSUED_LOCK:
        _ISSUED.add(line)
    return line


def _issued(line: str) -> bool:
    with _ISSUED_LOCK:
        return line in _ISSUED


# --- the terminal ---------------------------------------------------------------------------------------


class GuardedStream:
    """A text stream that writes to ``stream`` only what is safe on a terminal and in a CI log.

    Raw controls and bidi marks become escapes (colour sequences and carriage returns stay when
    ``markup`` is on, a terminal: they are the terminal writer's own); ``##[`` is broken; a line
    that starts with ``::`` is held to its end and broken unless :func:`workflow_command` made it.
    Everything else is passed through as it comes, so progress characters appear at once.
    """

    def __init__(self, stream: TextIO, *, markup: bool = False) -> None:
        self.stream = stream
        self.markup = markup
        self._blank = True  # the line written so far holds only blanks
        self._held = ""  # the rest of a line that starts with ":" (after blanks), held to its end
        self._tail = ""  # the last two characters written, so "#" + "#[" written apart is still broken
        self._lock = threading.Lock()

    def _escaped(self, text: str) -> str:
        def one(match: re.Match[str]) -> str:
            found = match.group()
            if found == "##[":
                return "#\\x23["
            if len(found) > 1:  # a colour sequence
                return found if self.markup else found.replace("\x1b", "\\x1b")
            return found if found == "\r" and self.markup else _escape(found)

        return _GUARDED.sub(one, text)

    def _resolve(self, line: str) -> str:
        return line if _issued(line) else self._escaped(_break_command(line))

    def _guard(self, text: str) -> str:
        out: list[str] = []
        breaks = _LINE_BREAK if self.markup else _NEWLINE
        for piece in breaks.split(text):
            if not piece:
                continue
            if breaks.fullmatch(piece):
                if self._held:
                    out.append(self._resolve(self._held))
                    self._held = ""
                out.append(piece)
                self._blank = True
            elif self._held:
                self._held += piece
            elif self._blank and piece.lstrip().startswith(":"):
                stripped = piece.lstrip()
                out.append(self._escaped(piece[: len(piece) - len(stripped)]))
                self._held, self._blank = stripped, False
            else:
                self._blank = self._blank and not piece.strip()
                out.append(self._escaped(piece))
        if self._held and not self._held.startswith("::") and self._held != ":":
            out.append(self._escaped(self._held))  # ":x…" is no command: nothing to hold it for
            self._held = ""
        return "".join(out)

    def _joined(self, text: str) -> str:
        """``text`` to follow what was written, a "##[" split across two writes broken too."""
        if self._tail.endswith("##") and text.startswith("["):
            text = "\\x5b" + text[1:]
        elif self._tail.endswith("#") and text.startswith("#["):
            text = "\\x23" + text[1:]
        self._tail = (self._tail + text)[-2:]
        return text

    def write(self, text: str) -> int:
        with self._lock:
            guarded = self._joined(self._guard(text))
        if guarded:
            self.stream.write(guarded)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def close_line(self) -> None:
        """Write out a line still held (the stream ends without a last line break)."""
        with self._lock:
            held, self._held = self._held, ""
        if held:
            self.stream.write(self._resolve(held))

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer...: the stream's own
        return getattr(self.stream, name)


def guard_terminal(terminal_reporter: Any) -> None:
    """Put a :class:`GuardedStream` under pytest's terminal writer (once), markup as the writer has it."""
    terminal_writer: Any = getattr(terminal_reporter, "_tw", None)
    file = getattr(terminal_writer, "_file", None)
    if file is None or isinstance(file, GuardedStream):
        return
    terminal_writer._file = GuardedStream(file, markup=bool(getattr(terminal_writer, "hasmarkup", False)))


@contextlib.contextmanager
def guarded_std_streams() -> Iterator[None]:
    """``with guarded_std_streams():`` the ``ttsbench`` command's stdout and stderr are :class:`GuardedStream`."""
    saved = (sys.stdout, sys.stderr)
    sys.stdout = GuardedStream(sys.stdout)
    sys.stderr = GuardedStream(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, GuardedStream):
                stream.close_line()
                stream.flush()
        sys.stdout, sys.stderr = saved


# --- files for other programs --------------------------------------------------------------------------

#: what a spreadsheet takes as the start of a formula (OWASP: CSV injection)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as text: text starting with ``= + - @``, a tab or a CR gets a
    leading ``'``; numbers, None and other text are left as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _csv_field(value: object) -> str:
    text = "" if value is None else str(csv_cell(value))
    # RFC 4180: a field holding a comma, a quote or a line break (a lone CR too) is quoted
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(c in text for c in ',"\r\n') else text


def csv_text(rows: Iterable[Iterable[object]], *, lineterminator: str = "\n") -> str:
    """Rows as CSV text, every cell through :func:`csv_cell`: the one CSV writer of the package."""
    lines = (",".join(_csv_field(cell) for cell in row) for row in rows)
    # a row of one empty field is written quoted, as the csv module does: a blank line is no row
    return "".join((line or '""') + lineterminator for line in lines)


#: characters XML 1.0 does not allow anywhere (JUnit XML, feeds)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: object) -> str:
    """``text`` with every character XML 1.0 forbids shown as an escape (``\\x1b``), so the document stays valid."""
    return _NOT_XML.sub(lambda m: _escape(m.group()), str(text))
