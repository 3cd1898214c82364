"""The hook protocol of Claude Code (2.1.x) and Codex CLI (0.171.0): the event's JSON on stdin,
and the answers on stdout. Codex CLI speaks Claude Code's wire for every field the fixes use
(its own JSON schemas, in the pinned binary: `scripts/probe_codex_hooks.py`); it adds `turn_id`
and `model`, sends a null `transcript_path` where it has none, and shows a denial's reason to the
model as `Tool call blocked by PreToolUse hook: REASON. Tool: TOOL` and a blocked stop's as a
user message `<hook_prompt ...>REASON</hook_prompt>`. What differs between the products is
their todo tool and record (`hosts.py`).

Exit codes: 0 with the answer (or nothing) on stdout; 2 is a blocking error whose stderr goes to
the model; any other code is a non-blocking error that lets the action through. A hook's own
failure exits 1 (`entry.py`): it never blocks the agent.
"""

from __future__ import annotations

import json
import re
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
    #: SessionStart: startup, resume, clear or compact
    source: str = ""

    @field_validator("transcript_path", "cwd", "tool_name", "tool_use_id", "agent_id", "source",
                     mode="before")  # fmt: skip
    @classmethod
    def _absent(cls, value: object) -> object:
        """Codex CLI's schemas allow null where it has no value (`transcript_path`)."""
        return "" if value is None else value

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


def deny(reason: str) -> Answer:
    """PreToolUse: the call does not run; the model reads `reason` as the tool's error."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def context(event: str, text: str) -> Answer:
    """PostToolUse, UserPromptSubmit, SessionStart: `text` is added to the model's context."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def block(reason: str) -> Answer:
    """Stop: the agent does not stop; the model reads `reason` and goes on."""
    return {"decision": "block", "reason": reason}


def warn(message: str) -> Answer:
    """Any event: the action goes ahead; the user is shown `message`."""
    return {"systemMessage": message}
