"""Benchmark items: the case-file schema, the in-memory model and the loaders."""

from pytest_ttsbench.cases.loader import CaseFileError, load_case_file, load_case_paths
from pytest_ttsbench.cases.model import CaseItem, Suite, Target

__all__ = ["CaseFileError", "CaseItem", "Suite", "Target", "load_case_file", "load_case_paths"]
