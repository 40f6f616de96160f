"""Every link inside the project's Markdown documents must lead somewhere: a checker.

It reads the links a reader can click (inline ``[text](target)`` and ``![alt](target)``,
reference definitions ``[name]: target``, and HTML ``href``/``src`` attributes) outside code
blocks and code spans, and resolves the ones that stay in the repository:

* ``#anchor`` against the document's headings, slugged as GitHub renders them (and explicit
  ``<a id=…>`` / ``<a name=…>`` anchors);
* a relative path against the document's folder (the file or folder must exist), and a
  ``path.md#anchor`` against that document's headings.

Links with a scheme (``https:``, ``mailto:``) are left alone: the tests run offline.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+\s*)?$")
SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)]*)?\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_ATTRIBUTE = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    """One link: the document and line it is on, and its target as written."""

    document: Path
    line: int
    target: str

    def __str__(self) -> str:
        return f"{self.document.name}:{self.line}: {self.target}"


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its plain text lowercased, every character that is not
    a letter, mark, digit, space, hyphen or underscore dropped, each space made a hyphen."""
    text = plain_heading_text(heading).strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def plain_heading_text(heading: str) -> str:
    """A heading's text as rendered: code spans keep their content, links keep their text,
    images, HTML tags and emphasis markers go."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"(\*\*|__|\*|(?<!\w)_|_(?!\w))", "", text)


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        lines.append((number, line))
    return lines


def anchors(document: Path) -> set[str]:
    """Every anchor the document offers: its headings' slugs (repeats numbered -1, -2, … as
    GitHub numbers them) and explicit HTML anchors."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    previous = ""
    for _, line in _prose_lines(document.read_text(encoding="utf-8")):
        heading = ATX_HEADING.match(line)
        title = heading.group(2) if heading else None
        if title is None and previous.strip() and SETEXT_UNDERLINE.match(line) and not previous.startswith(" " * 4):
            title = previous
        if title is not None:
            slug = github_slug(title)
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
        found.update(HTML_ANCHOR.findall(line))
        previous = line
    return found


def links(document: Path) -> list[Link]:
    """The links a reader of ``document`` can follow, outside code blocks and code spans."""
    found: list[Link] = []
    for number, line in _prose_lines(document.read_text(encoding="utf-8")):
        prose = CODE_SPAN.sub("", line)
        targets = [*INLINE_LINK.findall(prose), *HTML_ATTRIBUTE.findall(prose)]
        definition = REFERENCE_DEFINITION.match(prose)
        if definition:
            targets.append(definition.group(1))
        found.extend(Link(document, number, target) for target in targets)
    return found


def broken_links(documents: list[Path], root: Path) -> list[str]:
    """Why each link of ``documents`` that stays inside ``root`` leads nowhere; empty when all resolve."""
    problems: list[str] = []
    known: dict[Path, set[str]] = {}

    def anchors_of(path: Path) -> set[str]:
        if path not in known:
            known[path] = anchors(path)
        return known[path]

    for document in documents:
        for link in links(document):
            if not link.target or SCHEME.match(link.target):
                continue
            path_part, _, fragment = link.target.partition("#")
            target = (document.parent / unquote(path_part)).resolve() if path_part else document.resolve()
            if not target.is_relative_to(root.resolve()):
                problems.append(f"{link}: leads outside the repository")
            elif not target.exists():
                problems.append(f"{link}: no such file {target.relative_to(root.resolve())}")
            elif fragment and target.suffix.lower() == ".md" and unquote(fragment) not in anchors_of(target):
                problems.append(f"{link}: no heading or anchor #{fragment} in {target.name}")
            elif fragment and target.is_dir():
                problems.append(f"{link}: #{fragment} on a folder")
    return problems
