"""`todo-bench-hook [--product claude-code|codex|gemini-cli] FIX[,FIX...]`: the one program every
installed hook runs, in Claude Code (the default), Codex CLI or Gemini CLI. It reads the event's
JSON on stdin, answers for the chosen fixes on stdout, and journals what it did.

Its own failure (bad arguments, unreadable input, a broken state file, anything raised) is
journaled and exits 1: every product treats that as a non-blocking error and lets the action
through. It never exits 2, which would block the agent. Work that outlasts the hook's budget
(`budget.py`) is answered before the product's timeout, saying so (`overrun.py`). It imports
only what the event needs: a hook runs at every tool call, so its start-up is its cost; a warm
server (`warm.py`) answers from rules imported once where it can.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    """The program: answered by the warm server where there is one (`warm.py`), else here."""
    # pydantic otherwise scans every installed package's entry points for plugins when the
    # first model is built: about a tenth of a hook's run, for plugins the hooks never use
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = sys.argv[1:] if argv is None else argv
    if argv is not None or _usage(args) is not None:  # a caller in process; or a usage error
        return answer(args, None)
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError):
        return answer(args, None)  # reads again, fails and journals why
    from harness.hooks import budget, warm

    try:
        reply = warm.ask(args, raw, budget.seconds() + warm.MARGIN)
    except warm.ServerLost as lost:
        return _failed(*_named(raw), (), lost)
    if reply is None:
        return answer(args, raw)
    sys.stdout.write(reply.stdout)
    sys.stderr.write(reply.stderr)
    return reply.code


def _named(raw: bytes) -> tuple[str, str]:
    """The event's session and name, where it reads as an event (for the journal)."""
    from harness.hooks.protocol import read_input

    try:
        payload = read_input(raw)
    except Exception:  # not an event: the journal line goes without them
        return "", ""
    return payload.session_id, payload.hook_event_name


def _usage(args: list[str]) -> str | None:
    """Why the arguments are not `[--product NAME] FIX[,FIX...]`; None if they are."""
    if len(args) == 3 and args[0] == "--product":
        args = args[2:]
    if len(args) != 1:
        return "usage: todo-bench-hook [--product NAME] FIX[,FIX...] (the event's JSON on stdin)"
    return None


def answer(args: list[str], raw: bytes | None) -> int:
    """Answer one event in this process: `raw` is the event's JSON (None: read stdin)."""
    import json

    from harness.hooks import budget, journal

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

        wrong = _usage(args)
        if wrong is not None:
            raise FixError(wrong)
        product = args[1] if len(args) == 3 else DEFAULT
        into = host(product)
        fixes = parse_fixes(args[-1])
        payload = read_input(sys.stdin.buffer.read() if raw is None else raw)
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
        return _failed(session, event, fixes, error)
    if outcome.answer is not None:
        # ASCII: a lone surrogate in a list's text cannot fail the write to stdout
        print(json.dumps(outcome.answer))
    return 0


def _failed(session: str, event: str, fixes: tuple[str, ...], error: BaseException) -> int:
    """Journal a failure and say it on stderr: exit 1, which every product lets through."""
    from harness.hooks import journal

    text = _one_line(error)
    try:
        journal.record(session, event, fixes, "failed", text)
    except Exception as unwritable:  # the journal itself failed: stderr is all that is left
        text += f" (journal: {unwritable})"
    print(f"todo-bench-hook: {text}", file=sys.stderr)
    return 1


def _one_line(error: BaseException) -> str:
    """`Kind: message` on one line, bounded (pydantic's messages span lines)."""
    message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return f"{type(error).__name__}: {message[:300]}" if message else type(error).__name__
