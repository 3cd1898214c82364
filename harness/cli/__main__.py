"""`python -m harness.cli`."""

from harness.cli import entry

entry()
