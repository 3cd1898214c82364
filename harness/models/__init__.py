"""Model providers: the simulated agent (`sim/...`, deterministic) and `recover/...`, which
parses tool calls out of a reply's text for models whose server does not."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.models.recover import RecoverModel
    from harness.models.sim.provider import SimModel

__getattr__ = lazy(
    __name__,
    {
        "SimModel": "harness.models.sim.provider",
        "RecoverModel": "harness.models.recover",
    },
)

__all__ = [
    "RecoverModel",
    "SimModel",
]
