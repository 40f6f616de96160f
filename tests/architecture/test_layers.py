"""The package's layers point one way: checked on the real import graph (grimp), imports inside functions included.

* no import cycles, at module level or inside functions;
* engines and ASR routes never import each other;
* reports (``pytest_ttsbench.reporting``) never reach the synthesis stack (pipeline, session,
  engines, ASR, audio decoding, case loading, pytest collection), not even indirectly;
* the bottom utilities and the statistics import nothing above them, and scipy only on first use.
"""

from __future__ import annotations

import subprocess
import sys

import grimp
import pytest

PACKAGE = "pytest_ttsbench"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, include_external_packages=True)


def _internal(graph: grimp.ImportGraph) -> list[str]:
    return sorted(m for m in graph.modules if m == PACKAGE or m.startswith(PACKAGE + "."))


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each a cycle or a knot of cycles."""
    modules = _internal(graph)
    edges = {m: sorted(d for d in graph.find_modules_directly_imported_by(m) if d in modules) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in edges[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_cycle_finder_sees_a_cycle() -> None:
    """The finder itself, on a graph with one cycle and one chain."""
    graph = grimp.ImportGraph()
    for name in ("pytest_ttsbench", "pytest_ttsbench.a", "pytest_ttsbench.b", "pytest_ttsbench.c"):
        graph.add_module(name)
    graph.add_import(importer="pytest_ttsbench.a", imported="pytest_ttsbench.b")
    graph.add_import(importer="pytest_ttsbench.b", imported="pytest_ttsbench.a")
    graph.add_import(importer="pytest_ttsbench.c", imported="pytest_ttsbench.a")
    assert import_cycles(graph) == [["pytest_ttsbench.a", "pytest_ttsbench.b"]]


def test_no_import_cycles(graph: grimp.ImportGraph) -> None:
    assert import_cycles(graph) == []


def test_engines_and_asr_routes_never_import_each_other(graph: grimp.ImportGraph) -> None:
    for importer, imported in ((f"{PACKAGE}.engines", f"{PACKAGE}.asr"), (f"{PACKAGE}.asr", f"{PACKAGE}.engines")):
        chains = graph.find_shortest_chains(importer=importer, imported=imported, as_packages=True)
        assert not chains, f"{importer} reaches {imported}: {sorted(chains)}"


REPORTS_NEVER_REACH = ("pipeline", "session", "collect", "plugin", "engines", "asr", "audio", "cases", "cli")


@pytest.mark.parametrize("lower", REPORTS_NEVER_REACH)
def test_reports_import_only_the_run_model_and_figures(graph: grimp.ImportGraph, lower: str) -> None:
    chains = graph.find_shortest_chains(
        importer=f"{PACKAGE}.reporting", imported=f"{PACKAGE}.{lower}", as_packages=True
    )
    assert not chains, f"a report reaches {lower}: {sorted(chains)}"


BOTTOM = ("naming", "wav", "verdict", "stats", "json_documents", "data_paths", "atomic_files", "record_dicts")


@pytest.mark.parametrize("module", BOTTOM)
def test_bottom_modules_import_nothing_from_the_package(graph: grimp.ImportGraph, module: str) -> None:
    imported = graph.find_modules_directly_imported_by(f"{PACKAGE}.{module}")
    assert not {m for m in imported if m.startswith(PACKAGE)}


def test_statistics_load_scipy_only_when_a_figure_is_computed() -> None:
    # The Wilson interval every summary table shows is worked out without scipy (#28: it was most of
    # a warm rerun); the McNemar test of a comparison is scipy's, loaded when one is computed.
    code = (
        "import sys, pytest_ttsbench.stats as s, pytest_ttsbench.gating.summary, pytest_ttsbench.runs;"
        "before = 'scipy' in sys.modules; s.wilson_interval(1, 2); wilson = 'scipy' in sys.modules;"
        "s.mcnemar_exact(1, 5); print(before, wilson, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "True"]
