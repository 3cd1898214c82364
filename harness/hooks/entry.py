"""`todo-bench-hook [--product claude-code|codex|gemini-cli] FIX[,FIX...]`: the one program every
installed hook runs, in Claude Code (the default), Codex CLI or Gemini CLI. It reads the event's
JSON on stdin, answers for the chosen fixes on stdout, and journals what it did.

Its own failure (bad arguments, unreadable input, a broken state file, anything raised) is
journaled and exits 1: every product treats that as a non-blocking error and lets the action
through. It never exits 2, which would block the agent. Work that outlasts the hook's budget
(`budget.py`) is answered before the product's timeout, saying so (`overrun.py`). It imports
only what the event needs: a hook runs at every tool call, so its start-up is its cost.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str] | None = None) -> int:
    # pydantic otherwise scans every installed package's entry points for plugins when the
    # first model is built: about a tenth of a hook's run, for plugins the hooks never use
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from harness.hooks import budget, journal

    args = sys.argv[1:] if argv is None else argv
    session, event = "", ""
    fixes: tuple[str, ...] = ()
    limit = budget.seconds()
    try:
        from harness.hooks.dispatch import handle
        from harness.hooks.fixes import FixError, parse_fixes
        from harness.hooks.hosts import DEFAULT, host
        from harness.hooks.overrun import overrun
        from harness.hooks.protocol import read_input
        from harness.hooks.state import session_state

        product = DEFAULT
        if len(args) == 3 and args[0] == "--product":
            product, args = args[1], args[2:]
        if len(args) != 1:
            raise FixError(
                "usage: todo-bench-hook [--product NAME] FIX[,FIX...] (the event's JSON on stdin)"
            )
        into = host(product)
        fixes = parse_fixes(args[0])
        payload = read_input(sys.stdin.buffer.read())
        session, event = payload.session_id, payload.hook_event_name
        # a subagent's list is not in the session's transcript: it starts from its own calls
        transcript = "" if payload.agent_id else payload.transcript_path
        try:
            with (
                budget.within(limit),
                session_state(payload.state_key, into, transcript) as state,
            ):
                outcome = handle(fixes, into, payload, state)
        except budget.OverBudget:  # the state is left as it was; the answer says why
            outcome = overrun(fixes, into, payload, limit)
        if outcome.action is not None:
            journal.record(
                session, event, fixes, outcome.action, outcome.text,
                payload.tool_name, payload.tool_use_id, payload.agent_id,
            )  # fmt: skip
    except Exception as error:  # any failure lets the action through, and says why
        text = _one_line(error)
        try:
            journal.record(session, event, fixes, "failed", text)
        except Exception as unwritable:  # the journal itself failed: stderr is all that is left
            text += f" (journal: {unwritable})"
        print(f"todo-bench-hook: {text}", file=sys.stderr)
        return 1
    if outcome.answer is not None:
        # ASCII: a lone surrogate in a list's text cannot fail the write to stdout
        print(json.dumps(outcome.answer))
    return 0


def _one_line(error: BaseException) -> str:
    """`Kind: message` on one line, bounded (pydantic's messages span lines)."""
    message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return f"{type(error).__name__}: {message[:300]}" if message else type(error).__name__
