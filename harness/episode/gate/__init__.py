"""The completion gate: the oracle tracker (subtasks matched to successful tool calls),
the deployable keyword tracker and planner, and the verdict the loop acts on."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.episode.gate.heuristic import HeuristicTracker, KeywordTable
    from harness.episode.gate.tracker import TaskStateTracker

__getattr__ = lazy(
    __name__,
    {
        "TaskStateTracker": "harness.episode.gate.tracker",
        "HeuristicTracker": "harness.episode.gate.heuristic",
        "KeywordTable": "harness.episode.gate.heuristic",
    },
)

__all__ = [
    "HeuristicTracker",
    "KeywordTable",
    "TaskStateTracker",
]
