"""The workflow installs the package as this machine did (PEP 610 ``direct_url.json``), pinned."""

from __future__ import annotations

import string
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_ttsbench.cli.install_source import install_source, source_from

ROOT = Path("/work/product")
hosts = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=10).map(lambda h: f"https://{h}.example/x/y")
commits = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
versions = st.from_regex(r"\A[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,2}\Z")


def test_each_way_of_installing_gives_its_pinned_requirement() -> None:
    assert source_from(None, "1.2.3", ROOT).requirement(["plots"]) == "pytest-ttsbench[plots]==1.2.3"
    vcs = {"url": "https://github.com/o/r.git", "vcs_info": {"vcs": "git", "commit_id": "c" * 40}}
    assert (
        source_from(vcs, "1.2.3", ROOT).requirement() == f"pytest-ttsbench @ git+https://github.com/o/r.git@{'c' * 40}"
    )
    wheel = {"url": "https://files.example/p-1.2.3-py3-none-any.whl", "archive_info": {"hashes": {"sha256": "ab" * 32}}}
    assert source_from(wheel, "1.2.3", ROOT).requirement(["plots"]) == (
        f"pytest-ttsbench[plots] @ https://files.example/p-1.2.3-py3-none-any.whl#sha256={'ab' * 32}"
    )
    old_hash = {"url": "https://files.example/p.whl", "archive_info": {"hash": "sha256=" + "cd" * 32}}
    assert source_from(old_hash, "1.2.3", ROOT).requirement().endswith(f"#sha256={'cd' * 32}")
    vendored = {"url": f"file://{ROOT}/vendor/pytest-ttsbench", "dir_info": {}}
    inside = source_from(vendored, "1.2.3", ROOT)
    assert inside.requirement(["plots"]) == "./vendor/pytest-ttsbench[plots]" and inside.note is None


@given(st.sampled_from(["dir", "editable", "wheel", "git"]), versions)
def test_a_local_source_ci_cannot_reach_falls_back_to_the_index_and_says_so(kind: str, version: str) -> None:
    url = "file:///home/dev/src/pytest-ttsbench" + ("/dist/p.whl" if kind == "wheel" else "")
    info = {
        "dir": {"dir_info": {}},
        "editable": {"dir_info": {"editable": True}},
        "wheel": {"archive_info": {}},
        "git": {"vcs_info": {"vcs": "git", "commit_id": "0" * 40}},
    }[kind]
    source = source_from({"url": url, **info}, version, ROOT)
    assert source.requirement() == f"pytest-ttsbench=={version}"
    assert (
        source.note is not None and "/home/dev/src/pytest-ttsbench" in source.note and "CI cannot reach" in source.note
    )
    assert "file:" not in source.requirement()


@given(hosts, commits, versions, st.lists(st.sampled_from(["plots", "html", "piper"]), unique=True))
def test_a_reachable_source_is_pinned_exactly(url: str, commit: str, version: str, extras: list[str]) -> None:
    for direct in (
        {"url": url, "vcs_info": {"vcs": "git", "commit_id": commit}},
        {"url": url + "/p.whl", "archive_info": {"hashes": {"sha256": commit + "0" * 24}}},
        None,
    ):
        source = source_from(direct, version, ROOT)
        requirement = source.requirement(extras)
        assert source.note is None
        assert commit in requirement or f"=={version}" in requirement, requirement
        assert requirement.startswith("pytest-ttsbench" + (f"[{','.join(extras)}]" if extras else ""))


def test_this_machine_is_read_from_the_installed_distribution(tmp_path: Path) -> None:
    source = install_source(tmp_path)
    assert source.requirement().startswith("pytest-ttsbench")
    assert source.how
