"""Scoring: the detectors (from the ledger, the workspace and the scenario only) and the
inspect scorer that reports every metric of `harness/metrics.py`."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.scoring.scorer import Counts, detect, todo_scorer

__getattr__ = lazy(
    __name__,
    {
        "Counts": "harness.scoring.scorer",
        "detect": "harness.scoring.scorer",
        "todo_scorer": "harness.scoring.scorer",
    },
)

__all__ = [
    "Counts",
    "detect",
    "todo_scorer",
]
