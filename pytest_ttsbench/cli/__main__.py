"""``python -m pytest_ttsbench.cli``: the ``ttsbench`` command."""

import sys

from pytest_ttsbench.cli import main

sys.exit(main())
