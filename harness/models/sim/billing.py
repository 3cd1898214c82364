"""What the simulated agent bills: the token counts a provider would report, from characters.

A provider bills the whole prompt: every message (tool results included), the tool calls already
in the history with their arguments (a full-list rewrite is resent on every turn), the tool
schemas, and the chat template around them. The estimate weighs each part's characters by its
own tokens-per-character and adds the template's framing. The coefficients were measured by
`scripts/token_calibration.py` with the real tokenizer and chat template of the committed local
model (Qwen2.5, through llama.cpp's server) on the simulated agent's own conversations;
`results/token-calibration/` has the fit and its error. Other tokenizers differ; what matters is
that every part that separates the designs (resent lists, tool schemas) is counted and weighed as
a real tokenizer weighs it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.tool import ToolCall, ToolInfo

from harness.tokens import PER_TEXT_CHAR

# tokens per character of tool-call JSON and of tool-schema JSON (of message text:
# `harness.tokens`, the estimate the harness shares)
PER_CALL_CHAR = 0.3825
PER_SCHEMA_CHAR = 0.2597
# the template's framing of a prompt: per message, the tool block's instructions, fixed
PER_MESSAGE = 17.2913
TOOL_BLOCK = 0.3271
FIXED = -82.3358
# a reply: per character of its text and of its calls' JSON, per call (its tags), fixed
REPLY_PER_TEXT_CHAR = 0.3564
REPLY_PER_CALL_CHAR = 0.3724
REPLY_PER_CALL = 12.5364
REPLY_FIXED = -5.7487


@dataclass(frozen=True)
class Parts:
    """The billed parts of a prompt or a reply, in characters and counts."""

    text_chars: int = 0
    call_chars: int = 0
    schema_chars: int = 0
    messages: int = 0
    tools: int = 0
    calls: int = 0


def _calls_text(calls: list[ToolCall]) -> str:
    return "".join(c.function + json.dumps(c.arguments, sort_keys=True) for c in calls)


def _billed_text(message: ChatMessage) -> str:
    """What a provider sends of a message: a failed tool call's result is its error."""
    if isinstance(message, ChatMessageTool) and message.error:
        return f"Error: {message.error.message}"
    return message.text


def part_texts(input: list[ChatMessage], tools: list[ToolInfo]) -> tuple[str, str, str]:
    """A prompt's message text, tool-call JSON and tool-schema JSON."""
    return (
        "".join(_billed_text(m) for m in input),
        "".join(
            _calls_text(m.tool_calls or []) for m in input if isinstance(m, ChatMessageAssistant)
        ),
        "".join(json.dumps(t.model_dump(exclude_none=True), sort_keys=True) for t in tools),
    )


def prompt_parts(input: list[ChatMessage], tools: list[ToolInfo]) -> Parts:
    text, calls, schemas = part_texts(input, tools)
    return Parts(len(text), len(calls), len(schemas), messages=len(input), tools=len(tools))


class PromptMeter:
    """`prompt_parts` for one conversation, remembering what it has measured.

    A conversation grows by a few messages a turn and is offered the same tools every turn, so
    re-encoding every earlier call's arguments and every schema as JSON made billing a turn
    cost as much as the history is long (a third of the simulated agent's time per turn). The
    meter measures each assistant message's calls and each tool list once, recognising them by
    identity (inspect hands the provider the same objects every turn; the reference is kept so
    an identity is never reused). A message whose `tool_calls` was replaced is measured again;
    message text is measured every turn (it is cheap, and a system prompt that carries the
    list changes every turn). Nothing here mutates a message's call arguments in place, nor
    does inspect.
    """

    def __init__(self) -> None:
        self._calls: dict[int, tuple[ChatMessageAssistant, list[ToolCall] | None, int]] = {}
        self._tools: list[ToolInfo] = []
        self._schema_chars = 0

    def parts(self, input: list[ChatMessage], tools: list[ToolInfo]) -> Parts:
        return Parts(
            sum(len(_billed_text(m)) for m in input),
            sum(self._call_chars(m) for m in input if isinstance(m, ChatMessageAssistant)),
            self._schemas(tools),
            messages=len(input),
            tools=len(tools),
        )

    def _call_chars(self, message: ChatMessageAssistant) -> int:
        known = self._calls.get(id(message))
        if known is not None and known[0] is message and known[1] is message.tool_calls:
            return known[2]
        chars = len(_calls_text(message.tool_calls or []))
        self._calls[id(message)] = (message, message.tool_calls, chars)
        return chars

    def _schemas(self, tools: list[ToolInfo]) -> int:
        same = len(tools) == len(self._tools) and all(
            a is b for a, b in zip(tools, self._tools, strict=True)
        )
        if not same:
            self._tools = list(tools)
            self._schema_chars = len(part_texts([], tools)[2])
        return self._schema_chars


def reply_parts(message: ChatMessageAssistant) -> Parts:
    calls = message.tool_calls or []
    return Parts(len(message.text), len(_calls_text(calls)), calls=len(calls))


def prompt_tokens(parts: Parts) -> int:
    return _whole(
        PER_TEXT_CHAR * parts.text_chars
        + PER_CALL_CHAR * parts.call_chars
        + PER_SCHEMA_CHAR * parts.schema_chars
        + PER_MESSAGE * parts.messages
        + (TOOL_BLOCK if parts.tools else 0.0)
        + FIXED
    )


def reply_tokens(parts: Parts) -> int:
    # at least the end-of-turn token
    return max(
        1,
        _whole(
            REPLY_PER_TEXT_CHAR * parts.text_chars
            + REPLY_PER_CALL_CHAR * parts.call_chars
            + REPLY_PER_CALL * parts.calls
            + REPLY_FIXED
        ),
    )


def _whole(tokens: float) -> int:
    return max(0, math.ceil(tokens))
