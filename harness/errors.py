"""The errors a user is shown as one line (exit 2), on the ground floor so that the command
line's argument code can raise them without importing a runner."""

from __future__ import annotations


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit code 2."""
