"""Benchmark items: the case-file schema, the in-memory model and the loaders, and the known-gaps
files that annotate an engine's items (known_gaps.py)."""

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file, load_case_paths
from pytest_ttsbench.cases.model import CaseItem, Suite, Target

__all__ = ["CaseFileError", "CaseItem", "Suite", "Target", "load_case_file", "load_case_paths"]
