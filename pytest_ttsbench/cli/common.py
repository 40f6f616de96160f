"""What every ``ttsbench`` subcommand shares: exit statuses and the runs they read."""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1  # a guarded slice moved, a regression, or a run that does not match its manifest
EXIT_USAGE = 2  # bad input: a missing or malformed file, a bad option value
