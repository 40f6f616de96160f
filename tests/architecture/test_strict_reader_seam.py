"""Every YAML and JSON document the package reads goes through its strict readers (issue 22, build 5).

``pytest_ttsbench.support.yaml_documents.load_yaml`` and ``pytest_ttsbench.support.json_documents.load_json`` refuse
a key given twice; a reader calling ``yaml.safe_load`` or ``json.loads`` itself would take the last
one silently again. The package's source is parsed (ast), so an import under another name or a
call inside a function is seen too. The exceptions are named, each with the reason it is not a
file the project reads.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_ttsbench

PACKAGE = Path(pytest_ttsbench.__file__).parent

#: the strict readers themselves
SEAM = {"support/yaml_documents.py", "support/json_documents.py"}

#: modules that may parse JSON themselves, and why
EXEMPT = {
    "support/httpclient.py": "provider replies on the wire (error bodies)",
    # entries this package wrote under content-addressed names; a damaged one is a miss, not input
    "support/cache.py": "cache entries",
}
#: the provider adapters parse their providers' replies (an HTTP body, the wire format) as the
#: providers' own clients do; a file an adapter reads is still read strictly (the list below)
ADAPTER_FOLDERS = ("engines/", "asr/")
#: adapter modules that read files, which must go through the strict readers all the same
ADAPTERS_READING_FILES = ("engines/piper.py", "engines/replay.py")

_YAML_READERS = {"load", "safe_load", "load_all", "safe_load_all", "full_load", "unsafe_load", "compose", "parse"}
_JSON_READERS = {"load", "loads", "JSONDecoder", "raw_decode"}


def raw_readers(source: str) -> list[str]:
    """``module.function`` of every YAML or JSON parsing call or import in ``source``."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}  # local name -> "json" / "yaml"
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in ("json", "yaml"):
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module in ("json", "yaml", "json.decoder"):
            readers = _JSON_READERS if node.module.startswith("json") else _YAML_READERS
            found += [f"{node.module}.{a.name}" for a in node.names if a.name in readers or "Loader" in a.name]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            module = aliases[node.value.id]
            readers = _JSON_READERS if module == "json" else _YAML_READERS
            if node.attr in readers or "Loader" in node.attr:
                found.append(f"{module}.{node.attr}")
    return found


def test_the_finder_sees_every_way_of_reading() -> None:
    source = (
        "import json as j, yaml\nfrom yaml import CSafeLoader\nfrom json import loads\n"
        "def f(t):\n    return j.loads(t), yaml.safe_load(t), j.load(t), yaml.load(t, yaml.SafeLoader)\n"
        "x = json_dumps = j.dumps({})\n"
    )
    assert sorted(raw_readers(source)) == sorted(
        ["yaml.CSafeLoader", "json.loads", "json.loads", "yaml.safe_load", "json.load", "yaml.load", "yaml.SafeLoader"]
    )
    assert raw_readers("import json, yaml\njson.dumps({})\nyaml.safe_dump({})\n") == []


def test_no_module_reads_yaml_or_json_around_the_strict_readers() -> None:
    bypasses = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in SEAM or name in EXEMPT:
            continue
        if name.startswith(ADAPTER_FOLDERS) and name not in ADAPTERS_READING_FILES:
            continue
        found = raw_readers(path.read_text(encoding="utf-8"))
        if found:
            bypasses[name] = found
    assert bypasses == {}, "read through yaml_documents.load_yaml / json_documents.load_json instead"


def test_every_exemption_still_exists_and_still_needs_it() -> None:
    """An exemption that no longer parses anything is dropped, so the list cannot grow stale."""
    for name in EXEMPT:
        assert raw_readers((PACKAGE / name).read_text(encoding="utf-8")), f"{name} no longer needs its exemption"
    for name in ADAPTERS_READING_FILES:
        assert (PACKAGE / name).is_file(), f"{name} is gone: drop it from ADAPTERS_READING_FILES"
