"""The seed's fixes as Claude Code, Codex CLI and Gemini CLI hooks and an OpenCode plugin:
programs the product runs at its hook events, each reading the event's JSON on stdin and
answering in the documented form (Claude Code and Codex CLI share a wire, Gemini CLI has its
own, `protocol.py`; OpenCode's generated plugin, `plugin.py`, hands its events over in Claude
Code's; what differs per product, its todo tool, record and wire, is `hosts.py`, built from the
product modules).

- `textlock` (L1) and `whitelist` (L2): `PreToolUse` on the todo tool (Claude Code's
  `TodoWrite`, Codex CLI's `update_plan`, Gemini CLI's `write_todos` at its BeforeTool) denies
  a rewrite that rewords (L1) or drops (L2) a stored item, with the seed's refusal
  (`listlock.py`);
- `inject` (L4): the rendered list as `additionalContext` after every tool call, with every
  user message and after a compaction (`SessionStart`, source `compact`) (`inject.py`);
- `gate-heuristic`, `gate-open`, `gate-oracle`: the completion gate on `Stop` over the agent's
  own first plan ticked by the seed's keyword table, over its own open items, or over the
  scenario's subtasks (benchmark only), with a bounded number of refusals (`stop_gate.py`).

One entry point, `todo-bench-hook [--product codex|gemini-cli] FIX[,FIX...]` (`entry.py`),
handles every event the chosen fixes use, answered by a warm server of itself where it can
(`warm.py`, `warm_server.py`); `settings.py` writes them into a
`.claude/settings.json`, a `.codex/hooks.json` or a `.gemini/settings.json`. The wing uses the
harness's own stores, renderer, identity rule and trackers: no rule is implemented twice.
"""
