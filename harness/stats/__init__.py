"""Statistics of runs: intervals, tests, the regression gate, power, sequential looks, effects."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.stats.aggregate import summarize
    from harness.stats.intervals import Test, clustered, holm, paired_test

__getattr__ = lazy(
    __name__,
    {
        "summarize": "harness.stats.aggregate",
        "Test": "harness.stats.intervals",
        "clustered": "harness.stats.intervals",
        "holm": "harness.stats.intervals",
        "paired_test": "harness.stats.intervals",
    },
)

__all__ = [
    "Test",
    "clustered",
    "holm",
    "paired_test",
    "summarize",
]
