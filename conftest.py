"""Root conftest: gives the plugin's own tests pytest's `pytester` fixture and their shared helpers.

The benchmark cases under ``cases/`` need nothing from here; the plugin registers itself
through its ``pytest11`` entry point.
"""

import sys
from pathlib import Path

# Test helpers shared across test folders (`from result_rows import make_result`).
sys.path.insert(0, str(Path(__file__).parent / "tests" / "support"))

pytest_plugins = ["pytester"]
