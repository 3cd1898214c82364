"""The hook protocols: the event's JSON on stdin, and the answers on stdout, as each product
speaks them (a host declares its `Wire`; the fixes speak Claude Code's names and answers, and the
wire translates).

Claude Code (2.1.x) and Codex CLI (0.171.0) share one wire for every field the fixes use (Codex's
own JSON schemas, in the pinned binary: `scripts/probe_codex_hooks.py`); Codex adds `turn_id` and
`model`, sends a null `transcript_path` where it has none, and shows a denial's reason to the
model as `Tool call blocked by PreToolUse hook: REASON. Tool: TOOL` and a blocked stop's as a
user message `<hook_prompt ...>REASON</hook_prompt>`.

Gemini CLI (0.61.0, `scripts/probe_gemini_hooks.py`) has its own: events BeforeTool, AfterTool,
BeforeAgent and AfterAgent where Claude Code has PreToolUse, PostToolUse, UserPromptSubmit and
Stop (no SessionStart after its compression); a denial is the top-level `decision: deny` with a
`reason` (the model reads `Tool execution blocked: REASON` as the call's error); context is
`hookSpecificOutput.additionalContext`, wrapped in `<hook_context>` (its `<` and `>` escaped);
AfterAgent's final text is `prompt_response` and a refusal's reason becomes the next prompt; its
AfterTool fires after a failed call too (`tool_response.error`); a hook's timeout is in
milliseconds and a tool matcher is a regular expression searched in the tool's name.

Exit codes (both wires): 0 with the answer (or nothing) on stdout; 2 is a blocking error whose
stderr goes to the model; any other code is a non-blocking error that lets the action through. A
hook's own failure exits 1 (`entry.py`): it never blocks the agent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: a surrogate code point left alone in a str (JSON's escaped pairs are decoded to one char)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class HookInput(BaseModel):
    """The fields of an event's JSON the fixes read (the rest are kept, unread)."""

    model_config = ConfigDict(extra="allow")

    session_id: str = Field(min_length=1)
    hook_event_name: str
    #: set when a subagent made the call: its list is its own
    agent_id: str = ""
    transcript_path: str = ""
    cwd: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = Field(default_factory=dict)
    tool_use_id: str = ""
    #: Stop: the agent is already continuing because a Stop hook blocked it
    stop_hook_active: bool = False
    #: Stop: the text of the agent's last message
    last_assistant_message: str | None = None
    #: Gemini CLI's AfterAgent: the text of the agent's turn (its answers since the prompt)
    prompt_response: str | None = None
    #: PostToolUse: the call's result (Gemini CLI's carries `error` when the call failed)
    tool_response: Any = None
    #: SessionStart: startup, resume, clear or compact
    source: str = ""

    @field_validator("transcript_path", "cwd", "tool_name", "tool_use_id", "agent_id", "source",
                     mode="before")  # fmt: skip
    @classmethod
    def _absent(cls, value: object) -> object:
        """Codex CLI's schemas allow null where it has no value (`transcript_path`)."""
        return "" if value is None else value

    @property
    def final_message(self) -> str:
        """Stop: the agent's final text, in either wire's field."""
        return self.last_assistant_message or self.prompt_response or ""

    @property
    def failed(self) -> bool:
        """PostToolUse: the call failed (Gemini CLI fires AfterTool after a failed call too)."""
        return isinstance(self.tool_response, dict) and bool(self.tool_response.get("error"))

    @property
    def state_key(self) -> str:
        """Whose list the event is about: the session's main thread, or one subagent."""
        return f"{self.session_id}--{self.agent_id}" if self.agent_id else self.session_id


def read_input(raw: bytes) -> HookInput:
    """The event's JSON, with any lone surrogate (Claude Code escapes one as `\\ud800`, which
    pydantic's JSON parser refuses) made U+FFFD, so such a list is still checked: the stored
    and the sent list are read the same way."""
    return HookInput.model_validate(_mended(json.loads(raw)))


def _mended(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_mended(item) for item in value]
    if isinstance(value, dict):
        return {_mended(key): _mended(item) for key, item in value.items()}
    return value


Answer = dict[str, Any]

#: the events the fixes act at, by Claude Code's names (the fixes' own)
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop")
#: todo-bench's own event, which no product sends: the text the last `Stop` judged and blocked
#: was no stop (the step went on to call tools), so the block is taken back. OpenCode's plugin
#: sends it: it must judge a text before it knows whether calls follow (`plugin.py`)
STOP_WITHDRAWN = "StopWithdrawn"


@dataclass(frozen=True)
class Wire:
    """How one product speaks hooks, where it differs from Claude Code (module docstring)."""

    #: the product's name for each of the fixes' events it has (absent: it has no such point)
    events: dict[str, str] = field(default_factory=lambda: {e: e for e in EVENTS})
    #: a hook's timeout in the hooks file, in units per second (1: seconds)
    per_second: int = 1
    #: a tool matcher is a regular expression searched in the tool's name (not a name)
    regex_matchers: bool = False
    #: a denial is the top-level `decision: deny` (not Claude Code's `permissionDecision`)
    flat_deny: bool = False
    #: keys of the settings' `hooks` section that are switches, not events
    config_fields: tuple[str, ...] = ()

    def canonical(self, event: str) -> str:
        """The fixes' name for the product's event (an event they do not use: as it is)."""
        return next((ours for ours, its in self.events.items() if its == event), event)

    def matcher(self, tool: str) -> str:
        """The matcher of exactly one tool."""
        return f"^{re.escape(tool)}$" if self.regex_matchers else tool

    def deny(self, reason: str) -> Answer:
        """PreToolUse: the call does not run; the model reads `reason` as the tool's error."""
        if self.flat_deny:
            return {"decision": "deny", "reason": reason}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }

    def context(self, event: str, text: str) -> Answer:
        """PostToolUse, UserPromptSubmit, SessionStart (the fixes' names): `text` is added to
        the model's context."""
        named = self.events.get(event, event)
        return {"hookSpecificOutput": {"hookEventName": named, "additionalContext": text}}


#: Claude Code's wire, which Codex CLI speaks too
CLAUDE_WIRE = Wire()


def block(reason: str) -> Answer:
    """Stop (Gemini CLI's AfterAgent takes `block` as `deny`): the agent does not stop; the
    model reads `reason` and goes on."""
    return {"decision": "block", "reason": reason}


def warn(message: str) -> Answer:
    """Any event: the action goes ahead; the user is shown `message`."""
    return {"systemMessage": message}
