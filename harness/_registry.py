"""Importing this registers the `sim` and `recover` model providers (the inspect entry point,
`todo_bench.todo_bench`, imports it)."""

from harness.recover import RecoverModel
from harness.sim.provider import SimModel

__all__ = ["RecoverModel", "SimModel"]
