"""Publishing: the leaderboard in every format, the static site, and submissions checked."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.publishing.formats import FORMATS, leaderboard

__getattr__ = lazy(
    __name__,
    {
        "FORMATS": "harness.publishing.formats",
        "leaderboard": "harness.publishing.formats",
    },
)

__all__ = [
    "FORMATS",
    "leaderboard",
]
