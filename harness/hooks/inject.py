"""L4 on Claude Code: the current list, rendered by the harness's renderer in the words of the
seed's injection, as context after each tool call, with each user message and after a
compaction."""

from __future__ import annotations

from harness.episode.prompts import INJECTED_LIST
from harness.hooks.state import HookState
from harness.todo.base import render


def list_context(state: HookState) -> str | None:
    """The context to add, or None before the agent has written a list (nothing to remind it
    of, and a line after every tool call of a session that never plans)."""
    if not state.items:
        return None
    return INJECTED_LIST.format(rendered=render(state.items))
