"""One episode: the agent loop (`loop`), the workspace tools, the ledger (the harness's own
record), user turns, compaction, prompts, the end classifier, and the completion gate
(`episode/gate/`). The record (`record`) is pure data for readers of logs. The workspace a
scenario seeds, its outcome checks and its subtask tracker are the scenario's own semantics, in
`harness/suite/`."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.episode.ledger import Ledger
    from harness.episode.loop import todo_agent
    from harness.episode.record import EpisodeRecord, take_record

__getattr__ = lazy(
    __name__,
    {
        "EpisodeRecord": "harness.episode.record",
        "take_record": "harness.episode.record",
        "Ledger": "harness.episode.ledger",
        "todo_agent": "harness.episode.loop",
    },
)

__all__ = [
    "EpisodeRecord",
    "Ledger",
    "take_record",
    "todo_agent",
]
