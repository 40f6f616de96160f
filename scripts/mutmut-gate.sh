#!/bin/sh
# Mutation testing of the release gate's evaluation: gating/thresholds.py, bounds.py, coverage.py, gate.py
# against the gate's fast tests (the configuration is [tool.mutmut] in pyproject.toml).
# MUTMUT_JOBS sets the parallel children (default 2). `mutmut results` lists survivors afterwards,
# `mutmut show NAME` shows one.
set -e
cd "$(dirname "$0")/.."
rm -rf mutants
mutmut run --max-children "${MUTMUT_JOBS:-2}"
mutmut results
