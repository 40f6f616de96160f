"""Root conftest: gives the plugin's own tests pytest's `pytester` fixture and their shared helpers.

The benchmark cases under ``cases/`` need nothing from here; the plugin registers itself
through its ``pytest11`` entry point.
"""

import sys
from pathlib import Path

# Test helpers shared across test folders, imported by module name (`from result_rows import …`,
# `from tts_providers import …`): tests/ has no packages, and "conftest" is not a name to import.
for folder in ("support", "fakes"):
    sys.path.insert(0, str(Path(__file__).parent / "tests" / folder))

pytest_plugins = ["pytester"]
