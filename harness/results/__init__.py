"""Results: the published summary (pure data), the leaderboard renderings and formats, plots,
submissions and the static site; their statistics are `harness.stats`."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.results.publish import FORMATS, leaderboard
    from harness.results.summary import Summary, read_summary, write_summary

__getattr__ = lazy(
    __name__,
    {
        "Summary": "harness.results.summary",
        "read_summary": "harness.results.summary",
        "write_summary": "harness.results.summary",
        "FORMATS": "harness.results.publish",
        "leaderboard": "harness.results.publish",
    },
)

__all__ = [
    "FORMATS",
    "Summary",
    "leaderboard",
    "read_summary",
    "write_summary",
]
