"""The README, the top-level documents and the docs site's pages never point at nothing: every
in-document anchor and every relative link resolves (see tests/support/markdown_links.py for what
is checked, and how), and the site's navigation names every page and only pages that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from markdown_links import anchors, broken_links, github_slug, links

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DOCUMENTS = [
    *(ROOT / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")),
    *sorted(DOCS.rglob("*.md")),
]


def test_every_link_in_the_readme_and_the_docs_resolves() -> None:
    assert broken_links(DOCUMENTS, ROOT) == []


def test_the_readme_is_a_front_door_into_the_docs() -> None:
    # So that the test above cannot pass by reading nothing: the README links into the site, and
    # the site's pages link to one another and into their own sections.
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 200
    into_docs = {link.target.split("#")[0] for link in links(readme) if link.target.startswith("docs/")}
    assert len(into_docs) >= 15
    assert all((ROOT / target).exists() for target in into_docs)
    page_links = [link for page in sorted(DOCS.rglob("*.md")) for link in links(page)]
    assert sum("#" in link.target for link in page_links) >= 20


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


# --- the site's navigation ------------------------------------------------------------------


class _MkdocsLoader(yaml.SafeLoader):
    """Reads mkdocs.yml without running its ``!!python/...`` tags (the slug function)."""


_MkdocsLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for entry in nav for page in _nav_pages(entry)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


def test_the_navigation_names_every_page_and_only_pages_that_exist() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_MkdocsLoader)
    assert config["docs_dir"] == "docs" and config["strict"] is True
    listed = _nav_pages(config["nav"])
    assert [page for page in listed if not (DOCS / page).is_file()] == []
    pages = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    assert sorted(pages - set(listed)) == []
    for page in ("getting-started.md", "engines.md", "gating.md", "architecture.md", "reference/options.md"):
        assert page in listed


# --- what the docs must explain -------------------------------------------------------------


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


def _declared_options() -> list[str]:
    from _pytest.config.argparsing import Parser

    from pytest_ttsbench import plugin

    parser = Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    return [name for group in parser._groups for option in group.options for name in option.names()]


def _mentions(text: str, option: str) -> bool:
    # --tts-cache is not mentioned by --tts-cache-dir
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def test_every_pytest_option_is_in_the_reference_and_explained_on_a_guide_page() -> None:
    declared = _declared_options()
    assert "--tts-shard" in declared and len(declared) > 40
    reference = (DOCS / "reference" / "options.md").read_text(encoding="utf-8")
    guides = "\n".join(
        page.read_text(encoding="utf-8") for page in sorted(DOCS.rglob("*.md")) if "reference" not in page.parts
    )
    assert [name for name in declared if f"| `{name}` |" not in reference] == []
    assert [name for name in declared if not _mentions(guides, name)] == []


def test_an_option_missing_from_the_pages_is_found() -> None:
    assert _mentions("use `--tts-cache-dir DIR`", "--tts-cache-dir")
    assert not _mentions("use `--tts-cache-dir DIR`", "--tts-cache")


def test_the_sharding_section_explains_every_option_of_merge_and_gate() -> None:
    import argparse

    from pytest_ttsbench.cli import build_parser

    section = _section((DOCS / "product-guide.md").read_text(encoding="utf-8"), "sharded-ci-one-gate")
    assert "--tts-shard" in section
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command in ("merge", "gate"):
        assert f"ttsbench {command}" in section
    merge_options = [name for a in commands.choices["merge"]._actions for name in a.option_strings]
    assert [name for name in merge_options if name not in ("-h", "--help") and name not in section] == []
    assert "--rootdir" in section and "--allow-partial" in section


def test_ci_builds_the_site_strictly_before_the_tests() -> None:
    # A broken link or a missing page must fail CI, not only a local build.
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    build = next(i for i, line in enumerate(commands) if "mkdocs build" in line)
    assert "--strict" in commands[build] and "--site-dir" in commands[build]
    assert any('pip install -e ".[docs]"' in line for line in commands[:build])
    assert build < next(i for i, line in enumerate(commands) if line.startswith("pytest tests"))
