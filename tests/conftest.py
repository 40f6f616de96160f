"""The plugin's own tests: pytest's ``pytester`` fixture, loaded only when ``tests/`` is collected.

Shared helpers are imported by module name (``from result_rows import …``, ``from tts_providers
import …``): ``tests/support`` and ``tests/fakes`` are on the path through the ``pythonpath`` ini option.
"""

pytest_plugins = ["pytester"]
