"""inspect-ai entry point: importing this registers the `sim` model provider."""

from harness.sim.provider import SimModel

__all__ = ["SimModel"]
