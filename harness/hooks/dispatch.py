"""What the chosen fixes answer to one event in one product: the event's JSON in, the answer and
what to journal out. The rules run on Claude Code's event names; the product's own are
translated by its wire (`protocol.Wire`), and so are the answers."""

from __future__ import annotations

from dataclasses import dataclass

from harness.hooks import inject, listlock, stop_gate
from harness.hooks.hosts import Host
from harness.hooks.journal import Action
from harness.hooks.protocol import STOP_WITHDRAWN, Answer, HookInput, block
from harness.hooks.state import HookState, apply_list


@dataclass(frozen=True)
class Outcome:
    """The answer on stdout (None: nothing) and the journal's line (None: nothing to say)."""

    answer: Answer | None = None
    action: Action | None = None
    text: str = ""


NOTHING = Outcome()


def handle(fixes: tuple[str, ...], host: Host, payload: HookInput, state: HookState) -> Outcome:
    """The fixes' answer to one event (the state is updated in place)."""
    event = host.wire.canonical(payload.hook_event_name)
    entries = payload.tool_input.get(host.dialect.key)
    if event == "PreToolUse":
        if payload.tool_name != host.tool or not {"textlock", "whitelist"} & set(fixes):
            return NOTHING
        reason = listlock.refusal(state, fixes, host, entries)
        return NOTHING if reason is None else Outcome(host.wire.deny(reason), "denied", reason)
    if event == "PostToolUse":
        # a failed call (Gemini CLI fires AfterTool after one too) changed no list, ticks nothing
        if not payload.failed:
            if payload.tool_name == host.tool:  # the call ran: its list is the stored one now
                apply_list(state, host, entries)
            stop_gate.observe(state, fixes, payload)
        return _injected(fixes, host, state, event)
    if event == "UserPromptSubmit":
        return _injected(fixes, host, state, event)
    if event == "SessionStart":
        return _injected(fixes, host, state, event) if payload.source == "compact" else NOTHING
    if event == "Stop":
        refusal = stop_gate.review(state, fixes, host, payload)
        if refusal is None:
            return NOTHING
        if not stop_gate.spend(state, payload.stop_hook_active):
            return Outcome(None, "let_through", f"{refusal.reason}: {stop_gate.max_blocks()} spent")
        return Outcome(block(refusal.reply), "blocked", f"{refusal.reason}: {refusal.reply}")
    if event == STOP_WITHDRAWN and stop_gate.withdraw(state):
        return Outcome(None, "withdrawn", "the refused text preceded tool calls: it was no stop")
    return NOTHING


def _injected(fixes: tuple[str, ...], host: Host, state: HookState, event: str) -> Outcome:
    text = inject.list_context(state) if "inject" in fixes else None
    return NOTHING if text is None else Outcome(host.wire.context(event, text), "injected", text)
