"""Context compaction as agents do it when the context fills: keep the prompt and the tail."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageTool, ChatMessageUser

from harness.episode import prompts
from harness.suite.scenario import Compaction


def compact(history: list[ChatMessage], compaction: Compaction) -> tuple[list[ChatMessage], int]:
    """The compacted history (first message, a note, the last `keep_last`) and how many went."""
    head, tail = history[:1], history[1:]
    kept = tail[-compaction.keep_last :]
    # a tool result without its assistant call is invalid input for most providers
    while kept and isinstance(kept[0], ChatMessageTool):
        kept.pop(0)
    dropped = len(tail) - len(kept)
    note = ChatMessageUser(content=prompts.COMPACTED.format(count=dropped))
    return [*head, note, *kept], dropped
