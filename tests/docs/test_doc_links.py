"""The README and the docs pages never point at nothing: every in-document anchor and every
relative link resolves (see tests/support/markdown_links.py for what is checked, and how)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_links import anchors, broken_links, github_slug, links

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_link_in_the_readme_and_the_docs_resolves() -> None:
    assert broken_links(DOCUMENTS, ROOT) == []


def test_the_readme_has_in_document_links_to_check() -> None:
    # So that the test above cannot pass by reading nothing.
    found = links(ROOT / "README.md")
    assert sum(link.target.startswith("#") for link in found) >= 5
    assert any(link.target.startswith("docs/") for link in found)


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Sharded CI: one gate", "sharded-ci-one-gate"),
        (
            "Set-up on a fresh machine (Python ≥ 3.10, offline apart from the package index)",
            "set-up-on-a-fresh-machine-python--310-offline-apart-from-the-package-index",
        ),
        ("`ttsbench` exit statuses", "ttsbench-exit-statuses"),
        ("What eSpeak NG scored", "what-espeak-ng-scored"),
        ("Quality *beyond* the [transcript](https://example.org)", "quality-beyond-the-transcript"),
        ("snake_case and 中文 标题", "snake_case-and-中文-标题"),
    ],
)
def test_headings_are_slugged_as_github_slugs_them(heading: str, slug: str) -> None:
    assert github_slug(heading) == slug


BROKEN = """\
# Title

## Usage

See [usage](#usage), [the title](#title), [an anchor](#kept) and [the other page](other.md#part-two).
<a id="kept"></a>

## Usage

The second [usage](#usage-1) is numbered.

```bash
echo "[not a link](#inside-a-code-block)"
```

A code span `[neither](#in-a-span)`, a web page [ok](https://example.org/#x).

Broken: [missing section](#sharded-ci-one-gate), [missing file](docs/nothing.md),
[missing part](other.md#part-three), ![missing image](pics/none.png), <a href="#gone">html</a>.

[ref]: other.md#nowhere
"""


def test_a_link_to_nothing_is_found_and_named(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "other.md").write_text("# Other\n\nPart two\n--------\n", encoding="utf-8")
    assert anchors(tmp_path / "README.md") == {"title", "usage", "usage-1", "kept"}
    problems = broken_links([tmp_path / "README.md", tmp_path / "other.md"], tmp_path)
    lines = [problem.split(": ", 1)[0] for problem in problems]
    assert lines == ["README.md:18"] * 2 + ["README.md:19"] * 3 + ["README.md:21"], problems
    joined = "\n".join(problems)
    for target in ("#sharded-ci-one-gate", "docs/nothing.md", "other.md#part-three", "pics/none.png", "#gone"):
        assert target in joined
    assert "other.md#nowhere" in joined and "#usage-1" not in joined and "part-two" not in joined


# --- what the README must explain ------------------------------------------------------------


class _OptionNames:
    """Stands in for pytest's parser and its groups: records the option names declared."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def getgroup(self, *args: object, **kwargs: object) -> _OptionNames:
        return self

    def addoption(self, *names: str, **kwargs: object) -> None:
        self.names.extend(names)


def _section(document: str, slug: str) -> str:
    """The text of the section whose heading slugs to ``slug``, up to the next heading of its level or above."""
    lines = document.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and github_slug(line.lstrip("#")) == slug)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(rf"#{{1,{level}}}\s", lines[i])),
        len(lines),
    )
    return "\n".join(lines[start:end])


def test_every_pytest_option_of_the_plugin_is_in_the_readme() -> None:
    from pytest_ttsbench import plugin

    declared = _OptionNames()
    plugin.pytest_addoption(declared)  # type: ignore[arg-type]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--tts-shard" in declared.names
    assert [name for name in declared.names if name not in readme] == []


def test_the_sharding_section_explains_every_option_of_merge_and_gate() -> None:
    import argparse

    from pytest_ttsbench.cli import build_parser

    section = _section((ROOT / "README.md").read_text(encoding="utf-8"), "sharded-ci-one-gate")
    assert "--tts-shard" in section
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command in ("merge", "gate"):
        assert f"ttsbench {command}" in section
    merge_options = [name for a in commands.choices["merge"]._actions for name in a.option_strings]
    assert [name for name in merge_options if name not in ("-h", "--help") and name not in section] == []
    assert "--rootdir" in section and "--allow-partial" in section
