"""A run's results as data: summary.json, what produced it, its logs read back, kept episodes."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.results.summary import Summary, read_summary, write_summary

__getattr__ = lazy(
    __name__,
    {
        "Summary": "harness.results.summary",
        "read_summary": "harness.results.summary",
        "write_summary": "harness.results.summary",
    },
)

__all__ = [
    "Summary",
    "read_summary",
    "write_summary",
]
