"""inspect-ai entry point: importing this registers the `sim` and `recover` model providers."""

from harness.recover import RecoverModel
from harness.sim.provider import SimModel

__all__ = ["RecoverModel", "SimModel"]
