"""The release gate: floors and bounds, baselines, known gaps, snapshots, coverage, latency budgets,
the gate options, and the same gate over a run on disk. The figures it judges are computed in
:mod:`pytest_ttsbench.figures`.

Import the modules themselves (``pytest_ttsbench.gating.gate`` ...): this package imports
nothing on its own, so loading one of them never loads the others.
"""
