"""Root conftest, kept empty on purpose.

The shipped packs under ``pytest_ttsbench/packs/`` need nothing from here (the plugin registers
itself through its ``pytest11`` entry point and collects the packs ``ttsbench.yaml`` names), and
the plugin's own test helpers live in ``tests/conftest.py`` so a user's ``pytest --help`` in this
repository shows only the options they can use.
"""
