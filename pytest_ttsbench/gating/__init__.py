"""The release gate and the figures it is built on: voting, buckets, repeats, floors, baselines, known gaps.

Import the modules themselves (``pytest_ttsbench.gating.summary`` ...): this package imports
nothing on its own, so loading one of them never loads the others.
"""
