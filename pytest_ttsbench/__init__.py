"""pytest-ttsbench: text-to-speech benchmark items as pytest tests.

The chain each item runs through is text → engine → audio checks → ASR → scorer → verdict.
Each step lives in its own module; :mod:`pytest_ttsbench.plugin` only wires them into pytest.
"""

__version__ = "0.1.0"
