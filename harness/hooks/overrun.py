"""The answer to an event whose work outlasted the hook's budget (`budget.py`): a decision that
says so, and a journal line, instead of the product killing the hook at its timeout and letting
the call through with nothing recorded.

A todo call (TodoWrite, update_plan) the text lock or whitelist could not check is denied (the
fixes promise that no unchecked rewrite reaches the list; the model reads how to make it
checkable); any other event goes ahead, with a `systemMessage` the user sees and a `failed`
line in the journal.
"""

from __future__ import annotations

from harness.hooks.dispatch import Outcome
from harness.hooks.hosts import Host
from harness.hooks.protocol import HookInput, warn


def overrun(fixes: tuple[str, ...], host: Host, payload: HookInput, limit: float) -> Outcome:
    """The outcome for an event not finished within `limit` seconds."""
    event = host.wire.canonical(payload.hook_event_name)
    if event == "PreToolUse" and payload.tool_name == host.tool:
        todos = payload.tool_input.get(host.dialect.key)
        size = f"{len(todos):,} items" if isinstance(todos, list) else "the list"
        reason = (
            f"todo-bench-hook: checking this {host.tool} ({size}) against the stored list took "
            f"longer than the hook's {limit:g} s budget, so it is refused unchecked: keep the "
            "stored items' texts exactly and change fewer items in one call"
        )
        return Outcome(host.wire.deny(reason), "denied", reason)
    what = {
        "PostToolUse": "this call was not recorded for the fixes and no list was added",
        "Stop": "the gate let this stop through unjudged",
    }.get(event, "it did nothing")
    named = payload.hook_event_name
    text = f"todo-bench-hook: {named} ({','.join(fixes)}) outlasted its {limit:g} s budget; {what}"
    return Outcome(warn(text), "failed", text)
