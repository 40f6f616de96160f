"""The release gate: every floor, limit and rule a ``Bound`` judged once over a run's rows (bounds.py),
from a ``GateConfig`` the front ends build (figures it reads: :mod:`pytest_ttsbench.figures`).

Import the modules themselves: this package imports nothing on its own, so loading one never loads the others.
"""
