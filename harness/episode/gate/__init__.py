"""The completion gate: the deployable keyword tracker and planner, and the verdict the loop acts
on. The oracle tracker (subtasks matched to successful tool calls) is the scenario's own
semantics: `harness.suite.tracker`."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.episode.gate.heuristic import HeuristicTracker, KeywordTable

__getattr__ = lazy(
    __name__,
    {
        "HeuristicTracker": "harness.episode.gate.heuristic",
        "KeywordTable": "harness.episode.gate.heuristic",
    },
)

__all__ = [
    "HeuristicTracker",
    "KeywordTable",
]
