"""`python -m harness.commands`."""

from harness.commands import entry

entry()
