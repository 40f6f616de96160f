"""Root conftest: gives the plugin's own tests pytest's `pytester` fixture.

The benchmark cases under ``cases/`` need nothing from here; the plugin registers itself
through its ``pytest11`` entry point.
"""

pytest_plugins = ["pytester"]
