"""The package's layers point one way: checked on the real import graph (grimp), imports inside functions included.

* no import cycles, at module level or inside functions;
* engines and ASR routes never import each other;
* reports (``pytest_ttsbench.reporting``) never reach the synthesis stack (pipeline, session,
  engines, ASR, audio decoding, case loading, pytest collection), not even indirectly;
* the bottom utilities and the statistics import nothing above them, and scipy only on first use;
* every folder of the package has its place in :data:`LAYERS` and imports only folders below it, so
  no two folders import each other; at most eight modules sit loose at the top of the package.
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import pytest
from processes import run

import pytest_ttsbench

PACKAGE = "pytest_ttsbench"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # no cache: a cached graph from before a move would judge modules that no longer exist
    return grimp.build_graph(PACKAGE, include_external_packages=True, cache_dir=None)


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


REPORTS_NEVER_REACH = ("pipeline", "session", "plugin", "engines", "asr", "audio", "cases", "cli")


@pytest.mark.parametrize("lower", REPORTS_NEVER_REACH)
def test_reports_import_only_the_run_model_and_figures(graph: grimp.ImportGraph, lower: str) -> None:
    chains = graph.find_shortest_chains(
        importer=f"{PACKAGE}.reporting", imported=f"{PACKAGE}.{lower}", as_packages=True
    )
    assert not chains, f"a report reaches {lower}: {sorted(chains)}"


BOTTOM = (
    "support.text",
    "audio.wav",
    "verdict",
    "support.stats",
    "support.json_documents",
    "support.data_paths",
    "support.atomic_files",
    "support.record_dicts",
    "support.file_hashes",
)


@pytest.mark.parametrize("module", BOTTOM)
def test_bottom_modules_import_nothing_from_the_package(graph: grimp.ImportGraph, module: str) -> None:
    imported = graph.find_modules_directly_imported_by(f"{PACKAGE}.{module}")
    assert not {m for m in imported if m.startswith(PACKAGE)}


def test_statistics_load_scipy_only_when_a_figure_is_computed() -> None:
    # The Wilson interval every summary table shows is worked out without scipy (#28: it was most of
    # a warm rerun); the McNemar test of a comparison is scipy's, loaded when one is computed.
    code = (
        "import sys, pytest_ttsbench.support.stats as s, pytest_ttsbench.figures.summary,"
        " pytest_ttsbench.run_model.reader;"
        "before = 'scipy' in sys.modules; s.wilson_interval(1, 2); wilson = 'scipy' in sys.modules;"
        "s.mcnemar_exact(1, 5); print(before, wilson, 'scipy' in sys.modules)"
    )
    out = run([sys.executable, "-c", code]).stdout.split()
    assert out == ["False", "False", "True"]


# The folders from the bottom up; each may import only the folders before it. A new folder must be
# given its place here, which is the point: where it sits says what it may use.
LAYERS = (
    "support",  # plumbing: strict readers, HTTP client, processes, redaction, statistics, the cache
    "audio",  # decoding, the checks before ASR, the WAV writer
    "scorers",  # verdicts on transcripts
    "run_model",  # what a run writes and the one reader of it
    "figures",  # what a run's rows add up to: buckets, votes, route contributions, timings
    "asr",  # recognizers
    "engines",  # synthesizers
    "quality",  # measures of the audio and their bound syntax
    "cases",  # case files and packs
    "gating",  # the gate's decisions
    "listening",  # listening rounds
    "pipeline",  # one item through the chain
    "reporting",  # reports and dashboards, from the run model only
    "session",  # the pytest session and collection
    "cli",  # the ttsbench command
)
#: modules that may sit loose at the top of the package
LOOSE_MODULES = ("__init__", "config", "languages", "plugin", "protocols", "registry", "verdict")


def _folders() -> list[str]:
    root = Path(pytest_ttsbench.__file__).parent
    return sorted(p.parent.name for p in root.glob("*/__init__.py"))


def test_every_folder_has_its_layer() -> None:
    assert sorted(LAYERS) == _folders()


def test_at_most_eight_loose_modules() -> None:
    root = Path(pytest_ttsbench.__file__).parent
    loose = sorted(p.stem for p in root.glob("*.py"))
    assert loose == sorted(LOOSE_MODULES)
    assert len(loose) <= 8


def folder_imports(graph: grimp.ImportGraph) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(importing folder, imported folder) -> the module imports behind it, between folders only."""
    found: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module in _internal(graph):
        parts = module.split(".")
        if len(parts) < 3:
            continue
        for target in graph.find_modules_directly_imported_by(module):
            tparts = target.split(".")
            if tparts[0] != PACKAGE or len(tparts) < 3 or tparts[1] == parts[1]:
                continue
            found.setdefault((parts[1], tparts[1]), []).append((module, target))
    return found


def test_folders_import_only_the_layers_below(graph: grimp.ImportGraph) -> None:
    upward = {
        pair: sorted(imports)[:3]
        for pair, imports in folder_imports(graph).items()
        if LAYERS.index(pair[1]) > LAYERS.index(pair[0])
    }
    assert not upward, f"folders importing a layer above them: {upward}"


def test_no_two_folders_import_each_other(graph: grimp.ImportGraph) -> None:
    pairs = folder_imports(graph)
    both_ways = sorted((a, b) for a, b in pairs if a < b and (b, a) in pairs)
    assert not both_ways


def test_the_layer_check_sees_an_upward_import() -> None:
    """The check itself, on a graph where the run model reaches into the pipeline."""
    graph = grimp.ImportGraph()
    for name in (PACKAGE, f"{PACKAGE}.run_model.results", f"{PACKAGE}.pipeline.evaluator"):
        graph.add_module(name)
    graph.add_import(importer=f"{PACKAGE}.run_model.results", imported=f"{PACKAGE}.pipeline.evaluator")
    pairs = folder_imports(graph)
    assert list(pairs) == [("run_model", "pipeline")]
    assert LAYERS.index("pipeline") > LAYERS.index("run_model")
