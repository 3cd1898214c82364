"""The hooks' own record of what they did, one JSON line each, in the file named by
`TODO_BENCH_HOOK_JOURNAL` (nothing is written when it is unset): a runner counts refusals,
injections, blocked stops and the hooks' failures from it."""

from __future__ import annotations

import os
import time
from typing import Literal

from pydantic import BaseModel

#: the environment variable naming the journal file
HOOK_JOURNAL = "TODO_BENCH_HOOK_JOURNAL"

Action = Literal["denied", "injected", "blocked", "withdrawn", "let_through", "failed"]


class HookRecord(BaseModel):
    """One thing a hook did: a denied TodoWrite, injected context, a blocked stop, a block taken
    back because its text was no stop (`withdrawn`: OpenCode's plugin, `plugin.py`), a stop let
    through only because the refusals were spent (`let_through`), or its own failure."""

    time: float
    session_id: str
    event: str
    fixes: list[str]
    action: Action
    #: the refusal's reason, the injected context, or the failure
    text: str
    tool: str = ""
    tool_use_id: str = ""
    #: the subagent whose call it was ("" for the session's main thread)
    agent_id: str = ""


def write(record: HookRecord) -> None:
    """Append a record to the journal, if one is named."""
    path = os.environ.get(HOOK_JOURNAL)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(record.model_dump_json() + "\n")


def record(
    session_id: str,
    event: str,
    fixes: tuple[str, ...],
    action: Action,
    text: str,
    tool: str = "",
    tool_use_id: str = "",
    agent_id: str = "",
) -> None:
    write(
        HookRecord(
            time=time.time(),
            session_id=session_id,
            event=event,
            fixes=list(fixes),
            action=action,
            text=text,
            tool=tool,
            tool_use_id=tool_use_id,
            agent_id=agent_id,
        )
    )
